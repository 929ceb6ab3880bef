"""Build Snapframe's wheel from a clean copy of the source tree.

``python packaging/build_wheel.py OUT_DIR`` writes ``snapframe-<version>-py3-none-any.whl``
into ``OUT_DIR`` and prints its path.  The PyInstaller spec (``pyinstaller/snapframe.spec``)
and ``tests/test_wheel.py`` use :func:`build_wheel` too, so the frozen application is made
of exactly what ``pip install .`` installs.

Why a copy: setuptools builds in ``build/lib`` inside the source tree and never empties it,
so a file deleted from the sources would still end up in the wheel; it also rewrites
``*.egg-info`` next to ``pyproject.toml`` while others may be using the tree.  Building from
a fresh copy of only what the package is made of avoids both.  No network is used:
``--no-build-isolation`` takes setuptools and wheel from the running environment.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

__all__ = ["ROOT", "source_parts", "build_wheel"]

#: The repository (this file is ``packaging/build_wheel.py``).
ROOT = Path(__file__).resolve().parents[1]

_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.egg-info")


def source_parts(root: Path = ROOT) -> list[str]:
    """The top-level files and folders the distribution is built from: ``pyproject.toml``,
    the readme and licence files it names, and every folder of ``package-dir``."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    parts = ["pyproject.toml"]
    readme = project["project"].get("readme")
    if isinstance(readme, str):
        parts.append(readme)
    parts += [f for f in project["project"].get("license-files", []) if (root / f).exists()]
    folders = project["tool"]["setuptools"]["package-dir"].values()
    parts += sorted({f.split("/")[0] for f in folders})
    return parts


def build_wheel(out_dir: str | Path, root: Path = ROOT, python: str = sys.executable) -> Path:
    """Build the wheel of the project at ``root`` into ``out_dir`` and return its path.

    Raises :class:`subprocess.CalledProcessError` (with pip's output) when the build fails.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="snapframe-src-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for part in source_parts(root):
            if (root / part).is_dir():
                shutil.copytree(root / part, src / part, ignore=_IGNORED)
            else:
                shutil.copy2(root / part, src / part)
        before = set(out_dir.glob("*.whl"))
        subprocess.run([python, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "--no-index", "--quiet", "--wheel-dir", str(out_dir), str(src)],
                       check=True, capture_output=True, text=True)
    built = sorted(set(out_dir.glob("snapframe-*.whl")) - before) or \
        sorted(out_dir.glob("snapframe-*.whl"), key=lambda p: p.stat().st_mtime)[-1:]
    if not built:
        raise FileNotFoundError(f"pip wheel wrote no snapframe wheel into {out_dir}")
    return built[-1]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python packaging/build_wheel.py OUT_DIR")
    print(build_wheel(sys.argv[1]))
