"""Packaging: every package folder is listed in pyproject, imports resolve under `snapframe`."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    found = set()
    for top, dotted in cfg["package-dir"].items():
        for init in (ROOT / dotted).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / dotted)
            found.add(".".join([top, *rel.parts]))
    assert found == listed


def test_no_bare_top_level_packages():
    # `core`, `editor`, `plugins` must only be importable as snapframe.*
    out = subprocess.run([sys.executable, "-c", "import core"], capture_output=True, text=True,
                         cwd="/")
    assert out.returncode != 0


def test_console_script_help_documents_every_command():
    out = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "--help"],
                         capture_output=True, text=True)
    assert out.returncode == 0
    for command in ("check", "frames", "graph", "inertia", "snap", "convert"):
        assert command in out.stdout
