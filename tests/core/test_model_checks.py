"""check_values(document): the value checks libsdformat's Root::Load makes on what the core
model holds (inertia), as one pure function a reader and a live document both call."""

from __future__ import annotations

import json
from pathlib import Path

from snapframe.core.diagnostics import Code, SourceLocation
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Document, Inertial, Link, Model, World
from snapframe.core.model_checks import check_node_values, check_values

REAL = Path(__file__).resolve().parents[1] / "data" / "sdformat_real"


def _link(name: str, mass: float | None, ixx=1.0, iyy=1.0, izz=1.0, ixy=0.0, auto=False) -> Link:
    inertial = Inertial(auto=auto, mass=mass, ixx=ixx, iyy=iyy, izz=izz, ixy=ixy,
                        written_inertia=True, source=SourceLocation("robot.sdf", 7))
    return Link(name=name, inertial=inertial, source=SourceLocation("robot.sdf", 6))


def _document(*links: Link) -> Document:
    model = Model(name="robot")
    for link in links:
        model.add(link)
    world = World(name="w")
    world.add(model)
    return Document(root=world, path="robot.sdf")


def test_invalid_inertia_is_reported_at_the_inertial_with_the_element_path():
    doc = _document(_link("good", 2.0, 1, 2, 2.5), _link("bad", -1.0))
    found = check_values(doc)
    assert [(d.code, d.file, d.line, d.element) for d in found] == [
        (Code.LINK_INERTIA_INVALID, "robot.sdf", 7,
         '/world[@name="w"]/model[@name="robot"]/link[@name="bad"]/inertial')]
    assert found[0].message.startswith("A link named bad has invalid inertia")
    assert found[0].is_error


def test_the_links_libsdformat_refuses_and_only_those():
    # handmade/inertia_cases.sdf holds one link per case; libsdformat 12.3 (golden) names
    # the links it refuses.  Zero mass and a zero tensor are accepted.
    golden = json.loads((REAL / "golden" / "handmade__inertia_cases.sdf.json").read_text())
    refused = sorted(e["message"].split()[3] for e in golden["errors"])
    doc = load(REAL / "handmade" / "inertia_cases.sdf", LoadContext(use_environment=False))
    ours = sorted(d.message.split()[3] for d in check_values(doc))
    assert ours == refused == ["default_mass_bad_tensor", "negative_mass", "negative_moment",
                               "not_positive_definite", "triangle_violated"]


def test_an_edit_that_fixes_the_value_removes_the_finding():
    bad = _link("arm", 1.0, 1, 1, 3)  # principal moments break the triangle inequality
    doc = _document(bad)
    assert [d.code for d in check_values(doc)] == [Code.LINK_INERTIA_INVALID]
    bad.inertial.izz = 1.5  # what an edit command does to the node
    assert check_values(doc) == []
    bad.inertial.mass = -2.0
    assert "mass must be positive" in check_values(doc)[0].message


def test_auto_inertials_missing_inertials_and_empty_documents_give_nothing():
    doc = _document(_link("auto", -1.0, auto=True), Link(name="bare"))
    assert check_values(doc) == []
    assert check_values(Document()) == []


def test_a_subtree_can_be_checked_on_its_own():
    model = Model(name="m")
    model.add(_link("l", 1.0, 1, 1, 1, ixy=2.0))  # not positive definite
    found = check_node_values(model)
    assert len(found) == 1 and "positive semi-definite" in found[0].message


def test_the_sdformat_reader_reports_them_at_load():
    doc = load(REAL / "sdformat" / "test" / "sdf" / "inertial_invalid.sdf",
               LoadContext(use_environment=False))
    assert [(d.code, d.line) for d in doc.diagnostics.errors] == [(Code.LINK_INERTIA_INVALID, 5)]


def test_the_quick_acceptance_never_accepts_what_the_exact_check_refuses():
    # The fast path (no numpy import at load) may only say "valid" when gz-math's check
    # (snapframe.core.inertia.validate) says so too.
    import random
    from snapframe.core.inertia.validate import mass_matrix_problems
    from snapframe.core.model_checks import _clearly_valid
    rng = random.Random(8)
    accepted = 0
    for _ in range(4000):
        d = [rng.choice([0.0, rng.uniform(-0.2, 2.0)]) for _ in range(3)]
        off = [rng.choice([0.0, rng.uniform(-1.0, 1.0)]) for _ in range(3)]
        tensor = [[d[0], off[0], off[1]], [off[0], d[1], off[2]], [off[1], off[2], d[2]]]
        mass = rng.choice([1.0, 0.0, -1.0])
        if _clearly_valid(mass, tensor):
            accepted += 1
            assert mass_matrix_problems(mass, tensor, strict=False) == [], (mass, tensor)
    assert accepted > 20  # the test exercises the fast path
