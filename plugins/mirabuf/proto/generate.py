"""Regenerate ``plugins/mirabuf/generated/*_pb2.py`` from the ``.proto`` files next to this script.

Usage::

    python plugins/mirabuf/proto/generate.py            # rewrite the committed modules
    python plugins/mirabuf/proto/generate.py --out DIR  # write them somewhere else

Needs ``grpcio-tools`` (the exact version pinned in pyproject's ``test`` extra: another
protoc writes other bytes, and the drift test compares bytes).

The ``.proto`` files import one another by bare file name (``import "types.proto";``), as
mirabuf's own files do, so protoc writes ``import types_pb2 as types__pb2``: an absolute
import that only works with the output folder on ``sys.path``.  The modules live in the
package ``snapframe.plugins.mirabuf.generated``, so two lines are rewritten afterwards:
the sibling imports become relative (``from . import types_pb2 as types__pb2``), and the
module name protoc records for the generated classes becomes the full dotted name (so
``__module__`` names an importable module, which pickling and reprs rely on).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PROTO_DIR = Path(__file__).resolve().parent
DEFAULT_OUT = PROTO_DIR.parent / "generated"
PACKAGE = "snapframe.plugins.mirabuf.generated"

_SIBLING_IMPORT = re.compile(r"^import (\w+_pb2) as (\w+)$", re.MULTILINE)
_MODULE_NAME = re.compile(r"(BuildTopDescriptorsAndMessages\(DESCRIPTOR, )'(\w+_pb2)'")


def proto_files() -> list[Path]:
    return sorted(PROTO_DIR.glob("*.proto"))


def _package_relative(text: str) -> str:
    text, imports = _SIBLING_IMPORT.subn(r"from . import \1 as \2", text)
    text, names = _MODULE_NAME.subn(rf"\1'{PACKAGE}.\2'", text)
    if names != 1:
        raise RuntimeError("protoc's output changed shape: no BuildTopDescriptorsAndMessages call")
    return text


def generate(out_dir: Path) -> list[Path]:
    """Compile every ``.proto`` into ``out_dir``; return the ``*_pb2.py`` files written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as raw:
        cmd = [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_DIR}",
               f"--python_out={raw}", *(p.name for p in proto_files())]
        done = subprocess.run(cmd, cwd=PROTO_DIR, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"protoc failed ({done.returncode}):\n{done.stderr}")
        written = []
        for module in sorted(Path(raw).glob("*_pb2.py")):
            target = out_dir / module.name
            target.write_text(_package_relative(module.read_text(encoding="utf-8")),
                              encoding="utf-8", newline="\n")
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output folder (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
