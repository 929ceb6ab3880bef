"""Automatic inertia of a mesh held in memory (a reader's MeshData, no file): the same
integrals as for a file, from the triangles, with the geometry's scale."""

from __future__ import annotations

import numpy as np
import pytest

from snapframe.core.diagnostics import Diagnostics
from snapframe.core.inertia.calculators import CalculatorInput
from snapframe.core.inertia.mesh_calculator import mesh_calculator
from snapframe.core.model import Geometry
from snapframe.core.model.nodes import MeshData
from snapframe.core.model.tessellation import box_triangles


def _geometry(data) -> Geometry:
    return Geometry("mesh", {"uri": "mirabuf://part/body_0", "scale": (0.01, 0.01, 0.01),
                             "submesh": None, "center_submesh": False, "resolved_path": None,
                             "data": data})


def test_a_box_in_centimetres_gives_the_box_formula():
    V, F = box_triangles(1.0, 2.0, 3.0)
    data = MeshData(V * 100.0 + np.array([50.0, 0.0, 0.0]), F, "box")   # cm, shifted 0.5 m
    diags = Diagnostics()
    mp = mesh_calculator(CalculatorInput(1000.0, _geometry(data)), diags)
    assert not diags.has_errors(), diags.items
    m = 1000.0 * 6.0                                     # 1 x 2 x 3 m at 1000 kg/m^3
    assert mp.mass == pytest.approx(m)
    assert np.allclose(mp.com, [0.5, 0.0, 0.0])
    # about the centre of mass: m/12 (b^2 + c^2), ...
    assert np.allclose(np.diag(mp.inertia), [m / 12 * 13, m / 12 * 10, m / 12 * 5])


def test_a_mesh_without_triangles_is_an_error_naming_it():
    data = MeshData(np.zeros((0, 3)), np.zeros((0, 3), dtype=int), "empty")
    diags = Diagnostics()
    assert mesh_calculator(CalculatorInput(1000.0, _geometry(data)), diags) is None
    assert any("mirabuf://part/body_0" in d.message for d in diags.errors)
