"""The wheel: what ``pip install .`` installs holds every module and every data file of the
packages (examples, window icons, plugin data), declares the entry points, and its
``snapframe`` command works on the examples installed with it.

The wheel is built as ``packaging/build_wheel.py`` builds it (``pip wheel --no-deps
--no-build-isolation`` on a clean copy of the sources) and installed with ``--no-deps`` into a
new virtual environment that borrows this one's site-packages for the dependencies (through a
``.pth`` line, which does not run this environment's editable-install hook): no network.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
# Files in package folders that are for developers, not for the installed package.
NOT_INSTALLED_SUFFIXES = {".py", ".pyc", ".md"}


def _build_wheel_module():
    spec = importlib.util.spec_from_file_location("build_wheel", ROOT / "packaging" / "build_wheel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    try:
        return _build_wheel_module().build_wheel(out, python=sys.executable)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"building the wheel failed:\n{exc.stdout}\n{exc.stderr}")


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A virtual environment with the wheel installed; returns its ``bin`` folder."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    out = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                          "--no-deps", "--no-index", "--quiet", str(wheel)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # The dependencies (numpy, lxml, PySide6, vtk, protobuf, openplx-bundles) from this
    # environment, after the new one's own site-packages.
    Path(purelib, "test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin"


def _package_files() -> dict[str, Path]:
    """Every file the wheel must hold, by its path in the wheel: the modules of the listed
    packages and every other file in or below their folders (package data), except what
    only developers use (scripts outside any package, READMEs, caches)."""
    wanted: dict[str, Path] = {}
    listed = set(SETUPTOOLS["packages"])
    for top, folder in SETUPTOOLS["package-dir"].items():
        base = ROOT / folder
        for path in base.rglob("*"):
            rel = path.relative_to(base)
            if not path.is_file() or "__pycache__" in rel.parts:
                continue
            package = ".".join([top, *rel.parent.parts])
            if path.suffix == ".py":
                if package in listed:
                    wanted["/".join([*top.split("."), *rel.parts])] = path
            elif path.suffix not in NOT_INSTALLED_SUFFIXES:
                wanted["/".join([*top.split("."), *rel.parts])] = path
    return wanted


def test_wheel_holds_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = _package_files()
    missing = sorted(set(wanted) - names)
    assert not missing, f"not in the wheel (add them to package-data in pyproject.toml): {missing}"
    # What the issue names explicitly: examples, the window icon, the generated mirabuf modules.
    assert "snapframe/resources/examples/flanges/super_armio_bros.sdf" in names
    assert "snapframe/resources/icons/snapframe-256.png" in names
    assert "snapframe/plugins/mirabuf/generated/assembly_pb2.py" in names
    # ... and the floor plan plugin's data, whatever it turns out to hold.
    floorplan = [n for n in wanted if n.startswith("snapframe/plugins/floorplan/")
                 and not n.endswith(".py")]
    assert set(floorplan) <= names


def test_wheel_declares_the_entry_points_of_pyproject(wheel):
    with zipfile.ZipFile(wheel) as archive:
        info = next(n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt"))
        text = archive.read(info).decode()
    declared: dict[str, dict[str, str]] = {"console_scripts": PYPROJECT["project"]["scripts"]}
    declared.update(PYPROJECT["project"]["entry-points"])
    found: dict[str, dict[str, str]] = {}
    group = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            group = line.strip("[]")
        elif "=" in line:
            name, _, value = line.partition("=")
            found.setdefault(group, {})[name.strip()] = value.strip()
    assert found == declared


def _run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / "snapframe"), *args], capture_output=True, text=True,
                          timeout=300, cwd=bin_dir)


def test_installed_package_is_the_wheel_not_the_sources(installed):
    out = subprocess.run([str(installed / "python"), "-c",
                          "import snapframe.core, snapframe.resources as r; "
                          "print(snapframe.core.__file__); print(r.EXAMPLES); print(r.ICONS)"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    core, examples, icons = (Path(p) for p in out.stdout.split())
    venv = installed.parent
    for path in (core, examples, icons):
        assert venv in path.parents, path
    assert (examples / "flanges" / "super_armio_bros.sdf").is_file()
    assert sorted(p.name for p in icons.glob("*.png")) == sorted(
        f"snapframe-{n}.png" for n in (16, 32, 48, 64, 128, 256))


def test_installed_snapframe_help_and_check_the_installed_example(installed):
    out = _run(installed, "--help")
    assert out.returncode == 0, out.stderr
    assert "snap" in out.stdout.split()  # the OpenPLX plugin's command, by entry point
    examples = subprocess.run(
        [str(installed / "python"), "-c", "import snapframe.resources as r; print(r.EXAMPLES)"],
        capture_output=True, text=True, check=True).stdout.strip()
    # Every bundled document, each read by its format plugin with the plugin's data files.
    documents = sorted(p for p in Path(examples).rglob("*")
                       if p.suffix in {".sdf", ".urdf", ".openplx", ".fpm"}
                       or p.name == "floorplan.json")
    assert {p.suffix for p in documents} >= {".sdf", ".openplx"}
    for document in documents:
        out = _run(installed, "check", str(document))
        assert out.returncode == 0, out.stdout + out.stderr
        assert out.stdout.strip().endswith(": valid"), out.stdout
    out = _run(installed, "frames", str(Path(examples, "flanges", "super_armio_bros.sdf")), "--json")
    assert out.returncode == 0, out.stderr
    assert "super_armio_bros::robot_1::arm::link" in out.stdout
