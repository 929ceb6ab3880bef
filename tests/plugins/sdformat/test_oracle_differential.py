"""Differential test against libsdformat 12.3 itself: the oracle binary (tests/oracle/) is
run on every file of tests/data/sdformat_real, and Snapframe must accept or refuse it the
same way, with the same root error codes, and resolve the same frames to the same poses.

Skipped unless the oracle is built (``tests/oracle/build.sh``); ``-m oracle`` selects these alone.
"""

from __future__ import annotations

import json
import resource
import subprocess
from pathlib import Path

import pytest

from snapframe.core.loading import LoadContext, load
from snapframe.core.pose import quat_distance

pytestmark = pytest.mark.oracle

REPO = Path(__file__).resolve().parents[3]
ORACLE = REPO / "tests" / "oracle" / "build" / "sdf_oracle"
REAL = REPO / "tests" / "data" / "sdformat_real"
MODELS = REAL / "sdformat" / "test" / "integration" / "model"
FILES = sorted(p.relative_to(REAL).as_posix() for p in REAL.rglob("*")
               if p.suffix in (".sdf", ".urdf") and "golden" not in p.parts)
DERIVED = {"FRAME_ATTACHED_TO_GRAPH_ERROR", "POSE_RELATIVE_TO_GRAPH_ERROR"}
WRAPPERS = ("Error reading element", "Failed to load a world", "Unable to read file",
            "Unable to parse sdf element", "Errors were found when checking")
#: Where Snapframe answers differently on purpose (tests/data/sdformat_real/README.md).
DELIBERATE = {"handmade/underscore_in_number.sdf": "XML Schema number syntax: 1_0 is refused"}

if not ORACLE.exists():
    pytest.skip(f"the libsdformat oracle is not built ({ORACLE}; run tests/oracle/build.sh)",
                allow_module_level=True)


def oracle(rel: str) -> dict:
    def limit() -> None:  # 12.3 recurses without end on include cycles
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    out = subprocess.run([str(ORACLE), "--path", str(MODELS), "--relative-to", str(REAL),
                          str(REAL / rel)], capture_output=True, text=True, timeout=300,
                         preexec_fn=limit)
    assert out.returncode in (0, 1), out.stderr[-500:]
    return json.loads(out.stdout)


def root_codes(errors: list[dict]) -> list[str]:
    roots = [e["code"] for e in errors
             if e["code"] not in DERIVED and not e["message"].startswith(WRAPPERS)]
    return list(dict.fromkeys(roots or [e["code"] for e in errors][:1]))


@pytest.mark.parametrize("rel", FILES)
def test_snapframe_agrees_with_libsdformat(rel):
    theirs = oracle(rel)
    path = REAL / rel
    doc = load(path, LoadContext(search_paths=[MODELS, path.parent], use_environment=False))
    ours = list(dict.fromkeys(str(d.code) for d in doc.diagnostics.errors))
    if rel in DELIBERATE:
        assert ours and not theirs["errors"], DELIBERATE[rel]
        return
    assert ours == root_codes(theirs["errors"])
    if theirs["errors"] or doc.root is None:
        return
    frames = {f.name: f for f in doc.frames.frames()}
    for name, g in theirs["frames"].items():
        assert name in frames and frames[name].kind == g["kind"], name
        assert max(abs(a - b) for a, b in zip(frames[name].pose.p, g["pose"][:3])) < 1e-6, name
        assert quat_distance(frames[name].pose.quat(), g["pose"][3:]) < 1e-6, name


@pytest.mark.parametrize("rel", FILES)
def test_the_recorded_answers_are_libsdformats(rel):
    golden = REAL / "golden" / (rel.replace("/", "__") + ".json")
    assert json.loads(golden.read_text()) == oracle(rel)
