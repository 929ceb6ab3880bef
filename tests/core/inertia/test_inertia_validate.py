"""Checks of hand-written inertials (gz-math IsValid) and the proposed fix."""

import math

import numpy as np
import pytest

from snapframe.core.diagnostics import Code, Severity, SourceLocation
from snapframe.core.inertia.mass_properties import MassProperties
from snapframe.core.inertia.validate import (check_inertial, check_links, inertial_mass_properties,
                                             mass_matrix_problems, propose_inertial_fix)
from snapframe.core.model.nodes import Collision, Geometry, Inertial, Link, Model, PoseSpec
from snapframe.core.pose import Pose


def link_with(**values):
    src = SourceLocation("/robots/arm.sdf", 42)
    inertial = Inertial(source=src, written_inertia=True, **values)
    link = Link(name="forearm", inertial=inertial, source=SourceLocation("/robots/arm.sdf", 40))
    return link


def test_valid_inertial_has_no_findings():
    assert check_inertial(link_with(mass=2.0, ixx=1, iyy=1, izz=1)) == []
    assert check_inertial(Link(name="no_inertial")) == []          # SDFormat default 1 / I
    assert check_inertial(link_with(mass=2.0, ixx=-1, auto=True)) == []   # computed later


def test_diagnostic_names_link_file_and_line():
    (d,) = check_inertial(link_with(mass=-1.0, ixx=1, iyy=1, izz=1))
    assert d.code == Code.LINK_INERTIA_INVALID and d.severity == Severity.ERROR
    assert d.file == "/robots/arm.sdf" and d.line == 42
    assert "A link named forearm has invalid inertia" in d.message and "mass" in d.message
    assert d.element == '/link[@name="forearm"]'


def test_triangle_inequality():
    (d,) = check_inertial(link_with(mass=1.0, ixx=1, iyy=1, izz=3))
    assert d.is_error and "triangle inequality" in d.message
    # exactly on the boundary (a flat plate: izz = ixx + iyy) is valid
    assert check_inertial(link_with(mass=1.0, ixx=1, iyy=2, izz=3)) == []


def test_not_positive_semidefinite():
    (d,) = check_inertial(link_with(mass=1.0, ixx=1, iyy=1, izz=1, ixy=2))
    assert d.is_error and "not positive semi-definite" in d.message


def test_gz_math_tolerance():
    """gz-math allows the triangle inequality to be off by 10 * eps * trace / 2."""
    eps = np.finfo(float).eps
    ixx, iyy = 1.0, 1.0
    trace_half = (ixx + iyy + 2.0) / 2
    inside = 2.0 + 5 * eps * trace_half          # within tolerance
    outside = 2.0 + 1000 * eps * trace_half
    assert mass_matrix_problems(1.0, np.diag([ixx, iyy, inside]), strict=False) == []
    assert mass_matrix_problems(1.0, np.diag([ixx, iyy, outside]), strict=False) != []


def test_singular_tensor_is_a_warning_only_in_strict_mode():
    problems = mass_matrix_problems(1.0, np.zeros((3, 3)))
    assert [s for s, _ in problems] == [Severity.WARNING]
    assert mass_matrix_problems(1.0, np.zeros((3, 3)), strict=False) == []
    rod = MassProperties(1.0, [0, 0, 0], np.diag([1.0, 1.0, 0.0]))
    assert rod.is_valid()


def test_nan_is_invalid():
    (d,) = check_inertial(link_with(mass=1.0, ixx=float("nan"), iyy=1, izz=1))
    assert d.is_error and "finite" in d.message


def test_rotated_inertial_frame():
    """The tensor is given in the inertial frame's axes: rotating it keeps it valid and
    moves the moments into the link axes."""
    link = link_with(mass=1.0, ixx=1, iyy=2, izz=2.5,
                     pose=PoseSpec(Pose.from_xyz_rpy(0.1, 0, 0, 0, 0, math.pi / 2)))
    assert check_inertial(link) == []
    mp = inertial_mass_properties(link.inertial)
    assert mp.ixx == pytest.approx(2) and mp.iyy == pytest.approx(1) and mp.com[0] == 0.1


def test_check_links_walks_a_model():
    m = Model(name="m")
    m.add(link_with(mass=0.0, ixx=1, iyy=1, izz=1))
    m.add(Link(name="ok"))
    found = check_links(m)
    assert len(found) == 1 and found[0].is_error


def test_propose_fix_from_collisions():
    link = link_with(mass=3.0, ixx=1, iyy=1, izz=5)          # violates the triangle inequality
    c = Collision(name="c", geometry=Geometry("box", {"size": (1, 1, 1)}), density=1.0,
                  pose=PoseSpec(Pose.translation(0, 0, 0.5)))
    c.parent = link
    link.collisions.append(c)
    fix = propose_inertial_fix(link)
    assert fix.problems and fix.available
    new = fix.inertial
    assert not new.auto and new.mass == 3.0                   # the written mass is kept
    assert new.ixx == pytest.approx(0.5) and new.izz == pytest.approx(0.5)
    assert new.pose.value.p == pytest.approx((0, 0, 0.5))
    assert "forearm" in fix.describe() and "auto" in fix.describe()
    assert link.inertial.izz == 5 and link.inertial.mass == 3.0   # document untouched
    no_mass = propose_inertial_fix(link, keep_mass=False).inertial
    assert no_mass.mass == pytest.approx(1.0)


def test_propose_fix_without_collisions():
    fix = propose_inertial_fix(link_with(mass=-1.0))
    assert not fix.available
    assert Code.ELEMENT_MISSING in [d.code for d in fix.computation.diagnostics]
