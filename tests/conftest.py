"""Shared fixtures: writing small SDFormat trees into a temporary folder and loading them."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from snapframe.core.loading import LoadContext, load

DATA = Path(__file__).parent / "data"

# Shared test helpers next to this file (hang_guard) are importable from every test
# (pytest runs in importlib mode, which adds no test folder to sys.path).
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def write_files(tmp_path: Path):
    """``write_files({"a.sdf": "...", "m/model.config": "..."})`` -> tmp folder."""
    def write(files: dict[str, str]) -> Path:
        for name, text in files.items():
            p = tmp_path / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).strip() + "\n")
        return tmp_path
    return write


@pytest.fixture
def load_text(tmp_path: Path):
    """Load SDFormat text (plus optional extra files) and return the document."""
    def _load(text: str, name: str = "main.sdf", files: dict[str, str] | None = None, **ctx):
        for fname, body in (files or {}).items():
            p = tmp_path / fname
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(body).strip() + "\n")
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).strip() + "\n")
        return load(path, LoadContext(use_environment=False, **ctx))
    return _load


def codes(doc) -> list[str]:
    return [str(d.code) for d in doc.diagnostics.errors]
