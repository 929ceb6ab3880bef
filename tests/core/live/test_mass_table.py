"""The per-link mass table and its totals: hand-computed values (parallel-axis theorem)
and ``snapframe inertia --json`` on the bundled examples."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys

import numpy as np
import pytest

from assembly_checks import EXAMPLES

from snapframe.core.loading import LoadContext, load
from snapframe.core.live.masstable import COMPUTED, MISSING, WRITTEN, mass_table
from snapframe.core.pose import Pose

HAND = """<?xml version="1.0"?>
<sdf version="1.11">
  <model name="m">
    <link name="a">
      <inertial><pose>0 0 0.1 0 0 0</pose><mass>2</mass>
        <inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.3</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
    </link>
    <link name="b">
      <pose>1 0 0 0 0 1.5707963267948966</pose>
      <inertial><pose>0.2 0 0 0 0 0</pose><mass>1</mass>
        <inertia><ixx>1</ixx><iyy>2</iyy><izz>3</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
      </inertial>
    </link>
    <link name="c">
      <pose>0 1 0 0 0 0</pose>
      <inertial auto="true"/>
      <collision name="box"><pose>0 0 0.5 0 0 0</pose>
        <geometry><box><size>0.1 0.2 0.3</size></box></geometry></collision>
    </link>
    <link name="d"><pose>5 5 5 0 0 0</pose></link>
    <joint name="ab" type="revolute"><parent>a</parent><child>b</child>
      <axis><xyz>0 0 1</xyz></axis></joint>
    <model name="ground">
      <static>true</static>
      <link name="g"><inertial><mass>100</mass></inertial></link>
    </model>
  </model>
</sdf>
"""


def _parallel_axis_total(parts):
    """(mass, com, inertia about com) of (m, c, I_c) parts, all in one frame's axes, by
    the parallel-axis theorem: I = sum I_i + m_i (|d_i|^2 E - d_i d_i^T), d_i = c_i - c."""
    M = sum(m for m, _, _ in parts)
    c = sum(m * np.asarray(ci) for m, ci, _ in parts) / M
    I = np.zeros((3, 3))
    for m, ci, Ii in parts:
        d = np.asarray(ci) - c
        I += np.asarray(Ii) + m * (d @ d * np.eye(3) - np.outer(d, d))
    return M, c, I


def test_mass_table_by_hand(tmp_path):
    path = tmp_path / "hand.sdf"
    path.write_text(HAND)
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors, [str(d) for d in doc.diagnostics.errors]
    table = mass_table(doc)
    assert [r.key for r in table.rows] == ["a", "b", "c", "d", "ground::g"]
    assert [r.source for r in table.rows] == [WRITTEN, WRITTEN, COMPUTED, MISSING, WRITTEN]
    a, b, c, d, g = table.rows
    assert a.mass == 2 and np.allclose(a.com, (0, 0, 0.1))
    assert np.allclose(a.inertia, np.diag([0.1, 0.2, 0.3]))
    # b is turned a quarter about z: its inertial x offset points along world y, and its
    # moments about x and y swap
    assert np.allclose(b.com, (1, 0.2, 0), atol=1e-12)
    assert np.allclose(b.inertia, np.diag([2.0, 1.0, 3.0]), atol=1e-12)
    # c: a 0.1 x 0.2 x 0.3 box of water, m = 6, I = m/12 (y^2+z^2, x^2+z^2, x^2+y^2)
    box = 6 / 12 * np.array([0.2 ** 2 + 0.3 ** 2, 0.1 ** 2 + 0.3 ** 2, 0.1 ** 2 + 0.2 ** 2])
    assert c.mass == pytest.approx(6.0)
    assert np.allclose(c.com, (0, 1, 0.5), atol=1e-12)
    assert np.allclose(c.inertia, np.diag(box), atol=1e-12)
    assert (d.mass, d.com, d.inertia) == (None, None, None)
    assert g.static and g.mass == 100
    # totals: the moving links with a mass; d and the static ground left out
    assert table.missing == ("d",)
    M, com, I = _parallel_axis_total([(2, (0, 0, 0.1), np.diag([0.1, 0.2, 0.3])),
                                      (1, (1, 0.2, 0), np.diag([2.0, 1.0, 3.0])),
                                      (6, (0, 1, 0.5), np.diag(box))])
    assert table.total_mass == pytest.approx(9.0) == pytest.approx(M)
    assert np.allclose(table.com, (1 / 9, 6.2 / 9, 3.2 / 9), atol=1e-12)
    assert np.allclose(table.com, com, atol=1e-12)
    assert np.allclose(table.inertia, I, atol=1e-12)
    # joint positions move the centres of mass (the overlay is what is shown)
    doc.live.joints.set_position("ab", math.pi / 2)
    turned = mass_table(doc)
    # about z through the joint at b's origin (1, 0, 0): (1, 0.2) -> (0.8, 0)
    assert np.allclose(turned.row("b").com, (0.8, 0, 0), atol=1e-12)
    assert np.allclose(turned.row("b").inertia, np.diag([1.0, 2.0, 3.0]), atol=1e-12)
    doc.live.joints.reset()
    assert np.allclose(mass_table(doc).com, com, atol=1e-12)


def _cli_inertia(path):
    done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "inertia", str(path),
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("example", ["arm_gripper/arm_and_gripper.sdf",
                                     "flanges/super_armio_bros.sdf"])
def test_mass_table_agrees_with_snapframe_inertia(tmp_path, example):
    folder = tmp_path / "example"
    shutil.copytree((EXAMPLES / example).parent, folder)
    path = folder / (EXAMPLES / example).name
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors
    cli = _cli_inertia(path)
    assert cli["errors"] == []
    top = doc.root.name + "::" if doc.root.kind == "model" else ""
    links = {name[len(top):]: entry for name, entry in cli["links"].items()}
    table = mass_table(doc)
    assert sorted(r.key for r in table.rows) == sorted(links)
    parts = []
    for row in table.rows:
        entry = links[row.key]
        X_WL = doc.live.poses.pose(row.key)
        X_LC = Pose.from_xyz_quat(entry["pose"][:3], entry["pose"][3:]).matrix()
        X_WC = X_WL @ X_LC
        I_C = np.array([[entry["ixx"], entry["ixy"], entry["ixz"]],
                        [entry["ixy"], entry["iyy"], entry["iyz"]],
                        [entry["ixz"], entry["iyz"], entry["izz"]]])
        I_W = X_WC[:3, :3] @ I_C @ X_WC[:3, :3].T
        assert row.mass == pytest.approx(entry["mass"], rel=1e-12), row.key
        assert np.allclose(row.com, X_WC[:3, 3], atol=1e-12), row.key
        assert np.allclose(row.inertia, I_W, atol=1e-12), row.key
        if not row.static:
            parts.append((entry["mass"], X_WC[:3, 3], I_W))
    M, com, I = _parallel_axis_total(parts)
    assert table.total_mass == pytest.approx(M, rel=1e-12)
    assert np.allclose(table.com, com, atol=1e-12)
    assert np.allclose(table.inertia, I, atol=1e-12)
    assert table.missing == ()


def test_the_table_agrees_with_each_links_properties_moved_and_combined_one_by_one():
    # every row is the link's own mass properties expressed in the root frame by its pose,
    # and the totals are inertia.combine of the rows (the library's tested algebra)
    from pathlib import Path
    from snapframe.core.inertia.mass_properties import MassProperties, combine
    from snapframe.core.live.masstable import _link_properties, mass_table
    from snapframe.core.loading import LoadContext, load
    from snapframe.core.pose import Pose
    examples = Path(__file__).resolve().parents[3] / "resources" / "examples"
    for path in ("flanges/super_armio_bros.sdf", "arm_gripper/arm_and_gripper.sdf",
                 "openplx/clock.openplx"):
        doc = load(examples / path, LoadContext())
        table = mass_table(doc)
        rows = [r for r in table.rows if r.mass is not None]
        assert rows, path
        poses = doc.live.poses
        for r in rows:
            node = poses.node(r.key)
            mp, _source = _link_properties(node, doc.live)
            expect = mp.expressed_in(Pose.from_matrix(poses.pose(r.key)))
            assert r.mass == pytest.approx(expect.mass)
            assert np.allclose(r.com, expect.com, atol=1e-12)
            assert np.allclose(r.inertia, expect.inertia, atol=1e-12)
        whole = combine([MassProperties(r.mass, r.com, r.inertia) for r in rows if not r.static])
        assert table.total_mass == pytest.approx(whole.mass)
        assert np.allclose(table.com, whole.com, atol=1e-12)
        assert np.allclose(table.inertia, whole.inertia, atol=1e-12)
