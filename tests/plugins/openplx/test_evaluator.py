"""Evaluator: inheritance, becomes, traits, nested overrides, references, name lookup,
imports, declared local transforms, opaque unknowns and 0.16 names."""

from __future__ import annotations

import math

import pytest

from snapframe.core.diagnostics import Severity
from snapframe.plugins.openplx.evaluator import Obj, Opaque
from snapframe.plugins.openplx.physics import collect

from .conftest import DATA


def vec(f, obj: Obj, name: str):
    return f.evaluator.vec3(obj.get(name))


def test_inheritance_overrides_and_dotted_paths(load) -> None:
    f = load("""
Part is Physics3D.Bodies.RigidBody:
    inertia.mass: 2
    shell is Physics3D.Geometries.Box:
        size: {1, 2, 3}
    grip is Physics3D.Interactions.MateConnector:
        position.x: 0.5

Heavy is Part:
    inertia.mass: 20
    shell.size.z: 30
    grip:
        position.y: 2

Rig is Physics3D.System:
    part is Heavy:
        shell.size.x: 10
""")
    rig = f.instantiate("Rig")
    part = rig.get("part")
    assert part.path == "Rig.part" and part.is_a("Physics3D.Bodies.RigidBody")
    assert part.get("inertia").get("mass") == 20
    assert vec(f, part.get("shell"), "size") == (10, 2, 30)
    assert vec(f, part.get("grip"), "position") == (0.5, 2, 0)
    assert f.all_problems() == []


def test_becomes_narrows_and_traits_add_members(load) -> None:
    f = load("""
trait Heavy:
    inertia.mass: 100
    label is String: "heavy"

trait Labelled is Heavy:
    tag is Int: 7

Holder is Physics3D.Bodies.RigidBody:
    with Labelled
    part is Physics3D.Geometries.ContactGeometry

Boxed is Holder:
    part becomes Physics3D.Geometries.Box:
        size: {1, 1, 1}

Rig is Physics3D.System:
    a is Boxed
    b is Physics3D.Bodies.RigidBody with Heavy
""")
    rig = f.instantiate("Rig")
    a, b = rig.get("a"), rig.get("b")
    assert a.get("part").is_a("Physics3D.Geometries.Box")
    assert vec(f, a.get("part"), "size") == (1, 1, 1)
    assert a.get("inertia").get("mass") == 100 and a.get("label") == "heavy" and a.get("tag") == 7
    assert a.is_a("Labelled") and a.is_a("Heavy")
    assert b.get("inertia").get("mass") == 100 and b.is_a("Heavy")
    assert f.all_problems() == []


def test_becomes_that_does_not_narrow_is_an_error(load) -> None:
    # Spec section 2.3: 'becomes' narrows an inherited attribute to a compatible subtype.
    f = load("""
Rig is Physics3D.System:
    local_transform becomes Math.Vec3
    b is Physics3D.Bodies.RigidBody:
        inertia becomes Physics3D.Bodies.Inertia
        kinematics.local_transform.position.x: 1
    c is Physics3D.Bodies.RigidBody:
        inertia becomes Math.Vec3
""")
    rig = f.instantiate("Rig")
    assert rig.get("local_transform").is_a("Math.AffineTransform")   # the type is kept
    rig.get("c").get("inertia")
    problems = [(p.line, p.col, p.message) for p in f.all_problems()]
    assert problems == [
        (3, 29, "'local_transform' is a Math.AffineTransform; 'becomes' can only narrow it to a "
                "subtype, not to Math.Vec3"),
        (8, 25, "'inertia' is a Physics3D.Bodies.Inertia; 'becomes' can only narrow it to a "
                "subtype, not to Math.Vec3"),
    ]


def test_expressions_resolve_in_the_model_they_are_written_in(bundle_root) -> None:
    # StructuralPlanarConnector writes "position: x: x": the right-hand x is the
    # connector's own attribute, not position.x.
    from snapframe.plugins.openplx.loader import load_text
    f = load_text("""
Rig is Physics3D.System:
    c is Physics3D.Interactions.StructuralPlanarConnector:
        angle: Math.PI / 2
        x: 1.5
        y: -2
""")
    c = f.instantiate("Rig").get("c")
    assert vec(f, c, "position") == (1.5, -2, 0)
    assert vec(f, c, "main_axis") == (0, 0, 1)
    assert vec(f, c, "normal") == pytest.approx((0, 1, 0), abs=1e-12)


def test_references_are_the_objects_of_the_tree(load) -> None:
    f = load("""
Rig is Physics3D.System:
    a is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    b is Physics3D.Bodies.RigidBody:
        mc is Physics3D.Interactions.MateConnector
    lock is Physics3D.Interactions.Lock:
        connectors: [a.mc, b.mc]
    reference_body: b
""")
    rig = f.instantiate("Rig")
    c0, c1 = rig.get("lock").get("connectors")
    assert c0 is rig.get("a").get("mc") and c1 is rig.get("b").get("mc")
    assert rig.get("reference_body") is rig.get("b")
    # 'source: this' in the bundle's Lock points at the lock itself.
    lock = rig.get("lock")
    assert lock.get("torque_output").get("source") is lock


def test_default_normal_is_the_orthogonal_unit_vector_of_main_axis(load) -> None:
    f = load("""
Rig is Physics3D.System:
    down is Physics3D.Interactions.MateConnector:
        main_axis: {0, 0, -2}
    plain is Physics3D.Interactions.MateConnector
""")
    rig = f.instantiate("Rig")
    assert vec(f, rig.get("down"), "normal") == (1, 0, 0)
    assert vec(f, rig.get("plain"), "main_axis") == (0, 0, 1)
    assert vec(f, rig.get("plain"), "normal") == (-1, 0, 0)


def test_any_assignment_declares_a_local_transform(load) -> None:
    f = load("""
Fixed is Physics3D.Bodies.RigidBody:
    kinematics.local_transform.position.x: 0

Sub is Physics3D.System:
    inner is Physics3D.Bodies.RigidBody

Rig is Physics3D.System:
    free is Physics3D.Bodies.RigidBody
    by_model is Fixed
    by_block is Physics3D.Bodies.RigidBody:
        kinematics:
            local_transform:
                rotation: Math.Quat.angle_axis(Math.PI, Math.Vec3.Z_AXIS())
    by_value is Physics3D.Bodies.RigidBody:
        kinematics.local_transform: Math.AffineTransform.from({1, 2, 3}, {0, 0, 0, 1})
    sub is Sub:
        local_transform.position: {0, 0, 1}
    plain_sub is Sub

Derived is Rig:
    plain_sub.inner.kinematics.local_transform.position.z: 0
""")
    asm = collect(f.evaluator, f.instantiate("Derived"))
    declared = {b.path: b.declared for b in asm.bodies}
    assert declared["Derived.free"] is None
    assert declared["Derived.by_model"] is not None and declared["Derived.by_model"].is_identity()
    assert declared["Derived.by_block"].almost_equal(
        declared["Derived.by_block"].from_xyz_rpy(0, 0, 0, 0, 0, math.pi), 1e-12)
    assert declared["Derived.by_value"].p == (1, 2, 3)
    assert declared["Derived.plain_sub.inner"] is not None
    assert declared["Derived.sub.inner"] is None
    systems = {s.path: s.declared for s in asm.systems}
    assert systems["Derived.sub"].p == (0, 0, 1) and systems["Derived.plain_sub"] is None
    # Where it was declared is kept (the writer and diagnostics use it).
    site = next(b for b in asm.bodies if b.path == "Derived.plain_sub.inner").declared_sites[0]
    assert (site.stmt.line, site.stmt.col) == (22, 5)
    assert f.all_problems() == []


def test_unknown_models_are_opaque_and_reported(load) -> None:
    f = load("""
Rig is Physics3D.System:
    gizmo is Vendor.Gizmo
    value is Real: gizmo.size * 2
""")
    rig = f.instantiate("Rig")
    assert isinstance(rig.get("gizmo"), Opaque)
    assert isinstance(rig.get("value"), Opaque)
    [p] = f.all_problems()
    assert (p.line, p.col, p.message) == (3, 14, "unknown type 'Vendor.Gizmo'")


def test_imports_with_and_without_alias(tmp_path, load) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "links.openplx").write_text(
        "Link is Physics3D.Bodies.RigidBody:\n    inertia.mass: 3\n")
    (tmp_path / "tools.openplx").write_text(
        "Tool is Physics3D.Bodies.RigidBody:\n    inertia.mass: 4\n")
    f = load('import @"parts/links.openplx" as parts\nimport "tools.openplx"\n\n'
             "Rig is Physics3D.System:\n    link is parts.Link\n    tool is Tool\n")
    rig = f.instantiate("Rig")
    assert rig.get("link").get("inertia").get("mass") == 3
    assert rig.get("tool").get("inertia").get("mass") == 4
    assert f.all_problems() == []


def test_at_strings_are_paths_relative_to_the_file(load, tmp_path) -> None:
    f = load('Rig is Physics3D.System:\n    mesh is String: @"meshes/arm.obj"\n')
    assert f.instantiate("Rig").get("mesh") == str((tmp_path / "meshes" / "arm.obj").resolve())


def test_old_dialect_names_are_accepted_with_warnings() -> None:
    from snapframe.plugins.openplx.loader import load_file
    f = load_file(DATA / "semantic" / "old_dialect.openplx")
    rig = f.instantiate("Arm")
    base = rig.get("base")
    assert base.get("box").is_a("Physics3D.Geometries.Box")
    assert base.get("mc").is_a("Physics3D.Interactions.MateConnector")
    hinge = rig.get("hinge")
    assert hinge.get("connectors") == [base.get("mc"), rig.get("tip").get("mc")]
    assert f.evaluator.quat(rig.get("turn")) == pytest.approx((0, 0, 1, 0), abs=1e-12)
    problems = f.all_problems()
    assert problems and all(p.severity == Severity.WARNING for p in problems)
    assert {p.line for p in problems} == {5, 7, 10, 13, 15}


SEMANTIC = {
    # file: (severity, line, column, message fragment)
    "unknown_type": ("ERROR", 2, 13, "unknown type 'Physics3D.Bodies.RigidBdy'"),
    "unknown_attribute": ("ERROR", 3, 17, "'Physics3D.Bodies.Inertia' has no attribute 'mas'"),
    "unknown_name": ("ERROR", 2, 25, "unknown name 'width'"),
    "wrong_type": ("ERROR", 3, 23, "expected a value of type Real, got a String"),
    "division_by_zero": ("ERROR", 2, 22, "division by zero"),
    "index_out_of_range": ("ERROR", 3, 28, "index 2 is out of range"),
    "circular": ("ERROR", 3, 16, "circular reference while evaluating 'Arm.a'"),
    "mate_one_connector": ("ERROR", 5, 21, "needs exactly two connectors, it has 1"),
    "parallel_normal": ("WARNING", 5, 21, "is parallel to its main_axis"),
    "unknown_function": ("ERROR", 2, 31, "'Math.Vec3' has no function 'from_xy'"),
    "missing_import": ("ERROR", 1, 8, "imported file not found"),
    "type_not_value": ("ERROR", 2, 24, "'Math.Vec3' is a type, not a value"),
}


@pytest.mark.parametrize("name", sorted(SEMANTIC))
def test_semantic_errors_have_exact_positions(name: str) -> None:
    from snapframe.plugins.openplx.cli import check
    path = DATA / "semantic" / f"{name}.openplx"
    severity, line, col, fragment = SEMANTIC[name]
    found = [d for d in check(path) if d.severity.name == severity and fragment in d.message]
    assert len(found) == 1, [d.format() for d in check(path)]
    d = found[0]
    assert (d.file, d.line) == (str(path), line)
    assert d.message.startswith(f"column {col}: ")


def test_user_bundles_are_namespaces(tmp_path) -> None:
    from snapframe.plugins.openplx.loader import load_file
    bundle = tmp_path / "Shop"
    (bundle / "Parts").mkdir(parents=True)
    (bundle / "config.openplx").write_text('config is BundleConfig:\n    name: "Shop"\n')
    (bundle / "Parts" / "arm.openplx").write_text(
        "Arm is Physics3D.Bodies.RigidBody:\n    inertia.mass: 3\n"
        "Gripper is Arm:\n    inertia.mass: 1\n")
    (bundle / "robot.openplx").write_text(
        "Robot is Physics3D.System:\n    arm is Parts.Arm\n    grip is Shop.Parts.Gripper\n")
    (tmp_path / "cell.openplx").write_text("Cell is Physics3D.System:\n    robot is Shop.Robot\n")
    inside = load_file(bundle / "robot.openplx")          # relative names inside the bundle
    robot = inside.instantiate("Robot")
    assert robot.get("arm").type.qname == "Shop.Parts.Arm"
    assert robot.get("grip").get("inertia").get("mass") == 1
    outside = load_file(tmp_path / "cell.openplx")        # a bundle folder next to the file
    cell = outside.instantiate("Cell")
    assert cell.get("robot").get("arm").get("inertia").get("mass") == 3
    assert inside.all_problems() == [] and outside.all_problems() == []


def test_every_bundle_model_evaluates_without_crashing(bundle_root) -> None:
    """Instantiate all 406 non-trait bundle models and read their attributes a few levels
    deep: incomplete library models give problems, never Python exceptions."""
    from snapframe.plugins.openplx.evaluator import Evaluator
    from snapframe.plugins.openplx.workspace import ModelSymbol, Workspace
    ws = Workspace()
    ev = Evaluator(ws)
    symbols = []
    for name, root in ws.bundles.items():
        for d in [root, *(p for p in root.rglob("*") if p.is_dir())]:
            ns = ws.namespace((name, *d.relative_to(root).parts))
            symbols += [s for s in ns.values() if isinstance(s, ModelSymbol)
                        and not s.decl.is_trait and s.name != "config"]
    assert len(symbols) == 406

    def walk(obj: Obj, depth: int) -> int:
        n = 0
        for attr in obj.names():
            value = obj.try_get(attr)
            n += 1
            if depth and isinstance(value, Obj) and value.path == obj.child_path(attr):
                n += walk(value, depth - 1)
        return n
    assert sum(walk(ev.instantiate(s), 3) for s in symbols) > 5000
    assert all(p.line >= 1 and p.col >= 1 for p in ev.problems)
