"""Placing a part whose automatic inertia comes from a large mesh: the mesh is read and
integrated on a worker while the user aims, never on the UI thread, and the placed link
gets the inertia the mesh's shape gives."""

from __future__ import annotations

import shutil
import struct
import threading
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from snapframe.core.inertia import mesh_calculator
from snapframe.core.inertia.mesh_calculator import mesh_cache

LEFT = QtCore.Qt.MouseButton.LeftButton
EXAMPLES = Path(__file__).resolve().parents[3] / "resources" / "examples"
SIZE = (0.2, 0.1, 0.05)      # the block, metres
DENSITY = 500.0              # kg/m³

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


def box_triangles(size, n: int) -> np.ndarray:
    """(12 n², 3, 3) triangles of a box centred on the origin, each face an n x n grid,
    wound outwards."""
    half = np.asarray(size, dtype=float) / 2
    t = np.linspace(-1.0, 1.0, n + 1)
    out = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for sign in (-1.0, 1.0):
            grid = np.zeros((n + 1, n + 1, 3))
            grid[..., axis] = sign
            grid[..., u], grid[..., v] = np.meshgrid(t, t, indexing="ij")
            a, b = grid[:-1, :-1], grid[1:, :-1]
            c, d = grid[1:, 1:], grid[:-1, 1:]
            tris = np.concatenate([np.stack([a, b, c], -2).reshape(-1, 3, 3),
                                   np.stack([a, c, d], -2).reshape(-1, 3, 3)])
            if sign < 0:
                tris = tris[:, ::-1]        # (u x v) is +axis: the minus face turns over
            out.append(tris * half)
    return np.concatenate(out)


def write_stl(path: Path, triangles: np.ndarray) -> None:
    """Binary STL (80-byte header, count, then normal, 3 corners and 2 bytes a face)."""
    record = np.zeros(len(triangles), dtype=[("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                              ("a", "<u2")])
    record["v"] = triangles
    path.write_bytes(b"\0" * 80 + struct.pack("<I", len(triangles)) + record.tobytes())


@pytest.fixture
def block(tmp_path) -> Path:
    triangles = box_triangles(SIZE, 90)             # 97,200 faces
    write_stl(tmp_path / "block.stl", triangles)
    part = tmp_path / "block.sdf"
    part.write_text(f"""<?xml version="1.0"?>
<sdf version="1.11">
  <model name="block">
    <link name="body">
      <inertial auto="true"><density>{DENSITY}</density></inertial>
      <collision name="shell"><geometry><mesh><uri>block.stl</uri></mesh></geometry></collision>
    </link>
  </model>
</sdf>
""")
    return part


def test_a_placed_parts_mesh_inertia_is_integrated_off_the_ui_thread(
        qtbot, window, block, tmp_path, monkeypatch):
    folder = tmp_path / "arm_gripper"
    shutil.copytree(EXAMPLES / "arm_gripper", folder)
    session = window.open(folder / "arm.sdf")
    mesh_cache().clear()
    threads: list[threading.Thread] = []
    analyze = mesh_calculator.analyze_mesh

    def recording(*args, **kwargs):
        threads.append(threading.current_thread())
        return analyze(*args, **kwargs)
    monkeypatch.setattr(mesh_calculator, "analyze_mesh", recording)

    panel = window.start_placement(block, "gripper_mount")
    assert panel is not None
    [job] = window.jobs.jobs
    assert job.title == "Reading the meshes of block.sdf"
    assert job.wait(60) and job.state == "done" and job.result == 1
    QTest.mouseClick(panel.place_button, LEFT)
    doc = session.document
    assert doc.element("block") is not None
    assert threads and threading.main_thread() not in threads
    # the placed link's inertia: the block's, from its size and density (to the
    # precision of the STL's 32-bit floats)
    result = session.live.inertia.of(doc.element("block::body"))
    mp = result.mass_properties
    a, b, c = SIZE
    mass = DENSITY * a * b * c
    assert mp.mass == pytest.approx(mass, rel=1e-6)
    np.testing.assert_allclose(mp.com, (0, 0, 0), atol=1e-8)
    expected = np.diag([mass * (b * b + c * c), mass * (a * a + c * c),
                        mass * (a * a + b * b)]) / 12
    np.testing.assert_allclose(mp.inertia, expected, rtol=1e-6, atol=1e-12)
