"""Helpers for the assembling tests: the libsdformat 12.3 oracle and pose comparison."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.pose import Pose

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "resources" / "examples"
ORACLE = REPO / "tests" / "oracle" / "build" / "sdf_oracle"


def oracle(path: Path) -> dict:
    """libsdformat's ``{"errors", "frames"}`` for ``path`` (skips when the oracle is not
    built: ``tests/oracle/build.sh``)."""
    if not (ORACLE.is_file() and os.access(ORACLE, os.X_OK)):
        pytest.skip("the libsdformat oracle is not built (tests/oracle/build.sh)")
    done = subprocess.run([str(ORACLE), "--path", str(path.parent), str(path)],
                          capture_output=True, text=True, timeout=120, cwd=path.parent)
    assert done.stdout.strip(), done.stderr[-2000:]
    return json.loads(done.stdout)


def oracle_poses(path: Path, *, strip_top: bool = True) -> dict[str, np.ndarray]:
    """Every frame libsdformat resolves in ``path``, as 4x4 matrices by key (the top
    model's name taken off, as live keys have it); asserts it loaded without errors."""
    result = oracle(path)
    assert result["errors"] == [], result["errors"]
    out = {}
    for name, frame in result["frames"].items():
        head, sep, rest = name.partition("::")
        key = rest if strip_top and sep else ("" if strip_top else name)
        out[key] = Pose.from_xyz_quat(frame["pose"][:3], frame["pose"][3:]).matrix()
    return out


def assert_poses(expected: dict[str, np.ndarray], got: dict[str, np.ndarray],
                 keys=None, atol: float = 1e-9) -> None:
    for k in (expected if keys is None else keys):
        assert k in got, f"{k} missing"
        assert np.allclose(expected[k], got[k], atol=atol), (k, expected[k], got[k])


def xyz_rpy(x=0.0, y=0.0, z=0.0, roll=0.0, pitch=0.0, yaw=0.0) -> np.ndarray:
    return Pose.from_xyz_rpy(x, y, z, roll, pitch, yaw).matrix()
