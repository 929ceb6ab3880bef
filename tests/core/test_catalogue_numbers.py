"""The expected numbers of the libsdformat test catalogue (reference notes, sdformat.md
section 1.2) for SDFormat <= 1.10, checked against Snapframe directly.

The table of hand-derived expectations lives beside the corpus, in make_golden.py, where it is
also checked against the libsdformat 12.3 oracle: the same numbers are checked three ways
(notes, libsdformat, Snapframe).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from snapframe.core.json_output import frames_json
from snapframe.core.loading import LoadContext, load

DATA = Path(__file__).resolve().parents[1] / "data" / "sdformat"
_spec = importlib.util.spec_from_file_location("make_golden", DATA / "make_golden.py")
make_golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_golden)


def test_the_table_covers_the_catalogue():
    assert len(make_golden.EXPECTED_POSES) >= 15
    assert sum(len(v) for v in make_golden.EXPECTED_POSES.values()) >= 80


@pytest.mark.parametrize("rel", sorted(make_golden.EXPECTED_POSES))
def test_catalogue_numbers(rel):
    doc = load(DATA / rel, LoadContext(search_paths=[DATA / "models"], use_environment=False))
    frames = frames_json(doc)["frames"]
    assert make_golden.check_expected(rel, frames) == []
