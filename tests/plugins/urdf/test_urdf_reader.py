"""The URDF plugin as a parser: link poses, joints, link contents, errors, robustness."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code, Severity
from snapframe.core.loading import LoadContext
from snapframe.core.model import Joint, Link, Model, NestedInclude
from snapframe.core.pose import IDENTITY, Pose
from snapframe.plugins.urdf.reader import parse_include, read, read_string

DATA = Path(__file__).resolve().parents[2] / "data" / "urdf"
ARM = DATA / "arm.urdf"
BROKEN = DATA / "broken"


def include(path: Path) -> tuple[Model | None, LoadContext]:
    """Call the custom model parser the way the core does."""
    context = LoadContext(use_environment=False)
    nested = NestedInclude(uri=path.name, resolved_file_name=str(path), absolute_model_name="x",
                           local_model_name="x", is_static=False)
    return parse_include(nested, context), context


def line_of(path: Path, needle: str, nth: int = 1) -> int:
    """1-based line of the ``nth`` line of ``path`` containing ``needle``."""
    hits = [i for i, text in enumerate(path.read_text().splitlines(), 1) if needle in text]
    return hits[nth - 1]


def by_name(model: Model, cls: type) -> dict:
    return {n.name: n for n in model.entities if isinstance(n, cls)}


# -- link poses -------------------------------------------------------------------------
# Rotations as row-major 3x3 tuples.  With Rz(a) = [[c,-s,0],[s,c,0],[0,0,1]],
# Rx(a) = [[1,0,0],[0,c,-s],[0,s,c]], Ry(a) = [[c,0,s],[0,1,0],[-s,0,c]] at a = 90 deg:
RZ90 = (0, -1, 0, 1, 0, 0, 0, 0, 1)
# forearm: Rz90 @ Rx90 = [[0,-1,0],[1,0,0],[0,0,1]] @ [[1,0,0],[0,0,-1],[0,1,0]]
#                      = [[0,0,1],[1,0,0],[0,1,0]]
R_FOREARM = (0, 0, 1, 1, 0, 0, 0, 1, 0)
# tool_link: R_FOREARM @ Ry(-90) = [[0,0,1],[1,0,0],[0,1,0]] @ [[0,0,-1],[0,1,0],[1,0,0]]
#                                = [[1,0,0],[0,0,-1],[0,1,0]] = Rx90
RX90 = (1, 0, 0, 0, 0, -1, 0, 1, 0)

# X_M_L for every link of arm.urdf (M = model frame = base_link frame):
#   base_link: the root, at the model origin.
#   upper_arm: X_M_base @ shoulder origin = T(0, 0, 0.2) Rz90.
#   forearm:   X_M_upper @ elbow origin (T(0.5, 0, 0) Rx90):
#              p = (0, 0, 0.2) + Rz90 (0.5, 0, 0) = (0, 0, 0.2) + (0, 0.5, 0) = (0, 0.5, 0.2).
#   tool_link: X_M_fore @ tool_mount origin (T(0, 0, 0.3) Ry(-90)):
#              p = (0, 0.5, 0.2) + R_FOREARM (0, 0, 0.3) = (0, 0.5, 0.2) + (0.3, 0, 0)
#                = (0.3, 0.5, 0.2).
ARM_LINK_POSES = {
    "base_link": IDENTITY,
    "upper_arm": Pose(RZ90, (0, 0, 0.2)),
    "forearm": Pose(R_FOREARM, (0, 0.5, 0.2)),
    "tool_link": Pose(RX90, (0.3, 0.5, 0.2)),
}


def test_link_poses_compose_joint_origins_from_the_root():
    model, context = include(ARM)
    assert model is not None and not context.diagnostics.has_errors(), list(context.diagnostics)
    assert model.name == "arm"
    links = by_name(model, Link)
    assert list(links) == list(ARM_LINK_POSES)
    for name, expected in ARM_LINK_POSES.items():
        spec = links[name].pose
        assert spec.relative_to == "", name  # in the model frame
        assert spec.value.almost_equal(expected, 1e-12), (name, spec.value, expected)


def test_root_link_is_canonical_and_at_the_model_origin():
    model, _ = include(ARM)
    assert model.canonical_link == "base_link"
    assert model.interface_pose_in_canonical is not None
    assert model.interface_pose_in_canonical.is_identity()
    assert model.pose.value.is_identity() and model.pose.relative_to == ""
    assert model.static is False


def test_joints_map_types_and_sit_on_their_child_link():
    model, _ = include(ARM)
    joints = by_name(model, Joint)
    assert {n: (j.type, j.parent_name, j.child_name) for n, j in joints.items()} == {
        "shoulder": ("revolute", "base_link", "upper_arm"),
        "elbow": ("revolute", "upper_arm", "forearm"),
        "tool_mount": ("fixed", "forearm", "tool_link"),
    }
    for joint in joints.values():
        # SDFormat's joint frame defaults to the child frame, which is URDF's joint frame.
        assert joint.pose.value.is_identity() and joint.pose.relative_to == ""
        assert joint.source.file == str(ARM) and joint.source.line > 0
    assert joints["tool_mount"].axes == []


def test_axes_are_normalised_in_the_joint_frame_with_limits():
    model, _ = include(ARM)
    joints = by_name(model, Joint)
    shoulder, = joints["shoulder"].axes
    assert shoulder.xyz == (0.0, 0.0, 1.0) and shoulder.expressed_in == ""
    limits = (shoulder.lower, shoulder.upper, shoulder.effort, shoulder.velocity)
    assert limits == (-3.14, 3.14, 50, 2)
    elbow, = joints["elbow"].axes
    assert elbow.xyz == (0.0, 1.0, 0.0)  # written "0 2 0"
    assert (elbow.lower, elbow.upper) == (-2.0, 2.5)


def test_continuous_joint_has_no_position_limits_and_default_axis():
    doc = read_string("""<robot name="r"><link name="a"/><link name="b"/>
        <joint name="j" type="continuous"><parent link="a"/><child link="b"/>
          <limit effort="3" velocity="4" lower="-1" upper="1"/></joint></robot>""")
    assert not doc.diagnostics.has_errors(), list(doc.diagnostics)
    axis, = by_name(doc.root, Joint)["j"].axes
    assert axis.xyz == (1.0, 0.0, 0.0)  # URDF's default axis
    assert (axis.lower, axis.upper, axis.effort, axis.velocity) == (None, None, 3.0, 4.0)


def test_inertials_visuals_collisions_and_materials():
    model, _ = include(ARM)
    links = by_name(model, Link)
    base, upper, forearm, tool = (links[n] for n in ARM_LINK_POSES)

    inertial = upper.inertial
    assert inertial.mass == 1.5 and inertial.written_inertia
    assert (inertial.ixx, inertial.iyy, inertial.izz) == (0.03, 0.031, 0.004)
    assert (inertial.ixy, inertial.ixz, inertial.iyz) == (-0.001, 0.002, 0.0)
    # origin xyz="0.25 0 0" rpy="0 pi/2 0": Ry90 = [[0,0,1],[0,1,0],[-1,0,0]]
    assert inertial.pose.value.almost_equal(Pose((0, 0, 1, 0, 1, 0, -1, 0, 0), (0.25, 0, 0)))
    assert inertial.pose.relative_to == ""
    assert forearm.inertial is None

    # Unnamed parts get <link>_visual / <link>_collision, named ones keep their name.
    assert [v.name for v in base.visuals] == ["base_link_visual"]
    assert [c.name for c in base.collisions] == ["base_link_collision"]
    assert [v.name for v in upper.visuals] == ["shell"]
    cyl = base.visuals[0]
    assert cyl.geometry.shape == "cylinder"
    assert cyl.geometry.params == {"radius": 0.1, "length": 0.1}
    assert cyl.pose.value.almost_equal(Pose(p=(0, 0, 0.05)))
    assert cyl.color == (1.0, 0.5, 0.0, 1.0)  # robot-level material "orange"
    assert upper.visuals[0].geometry.params == {"size": (0.5, 0.08, 0.06)}
    assert upper.visuals[0].color == (0.6, 0.6, 0.65, 1.0)  # inline colour
    # "steel" was defined inline in upper_arm; forearm refers to it by name only.
    assert forearm.visuals[0].color == (0.6, 0.6, 0.65, 1.0)
    assert forearm.visuals[0].geometry.shape == "sphere"
    assert forearm.visuals[0].geometry.params == {"radius": 0.04}
    assert all(v.parent is base for v in base.visuals)


def test_mesh_filenames_resolve_package_and_relative_uris():
    model, context = include(ARM)
    tool = by_name(model, Link)["tool_link"]
    mesh_file = str((DATA / "meshes" / "tool.stl").resolve())
    visual = tool.visuals[0].geometry
    assert visual.shape == "mesh"
    assert visual.params["uri"] == "package://urdf/meshes/tool.stl"
    assert visual.params["scale"] == (0.001, 0.001, 0.001)
    assert visual.params["resolved_path"] == mesh_file
    collision = tool.collisions[0].geometry
    assert collision.params["uri"] == "meshes/tool.stl"
    assert collision.params["scale"] == (1.0, 1.0, 1.0)
    assert collision.params["resolved_path"] == mesh_file
    assert not context.diagnostics.warnings


def test_missing_mesh_is_a_warning_not_an_error(tmp_path):
    path = tmp_path / "m.urdf"
    path.write_text('<robot name="m"><link name="a"><visual><geometry>'
                    '<mesh filename="package://nowhere/x.dae"/></geometry></visual></link></robot>')
    model, context = include(path)
    assert model is not None
    assert [d.code for d in context.diagnostics] == [Code.URI_LOOKUP]
    assert context.diagnostics.warnings[0].line == 1
    assert by_name(model, Link)["a"].visuals[0].geometry.params["resolved_path"] is None


def test_floating_and_planar_joints_are_left_out_with_a_warning():
    model, context = include(DATA / "floating_and_planar.urdf")
    assert model is not None  # warnings do not fail the include
    warnings = context.diagnostics.warnings
    assert [(w.code, w.line) for w in warnings] == [
        (Code.ELEMENT_INVALID, line_of(DATA / "floating_and_planar.urdf", 'type="floating"')),
        (Code.ELEMENT_INVALID, line_of(DATA / "floating_and_planar.urdf", 'type="planar"'))]
    assert "floating" in warnings[0].message and "planar" in warnings[1].message
    assert by_name(model, Joint) == {}
    assert model.extras["urdf_skipped_joints"] == ["fly", "slide"]
    links = by_name(model, Link)
    # The child links stay where the joint origins put them: free bodies.
    assert links["drone"].pose.value.almost_equal(Pose.from_xyz_rpy(0, 0, 2, 0, 0, 0.5))
    assert links["puck"].pose.value.almost_equal(Pose(p=(1, 0, 0)))


def test_world_root_link_becomes_joints_to_the_world():
    path = DATA / "world_root.urdf"
    model, context = include(path)
    assert model is not None and not context.diagnostics.has_errors()
    links = by_name(model, Link)
    assert list(links) == ["base", "post"]  # "world" is the world frame, not a link
    assert model.canonical_link == "base"
    assert links["base"].pose.value.almost_equal(Pose(p=(0, 0, 0.5)))
    assert links["post"].pose.value.almost_equal(Pose(p=(0, 0, 1.5)))
    # X_LM: the model frame seen from the canonical link.
    assert model.interface_pose_in_canonical.almost_equal(Pose(p=(0, 0, -0.5)))
    joints = by_name(model, Joint)
    assert joints["world_weld"].parent_name == "world"
    # The URDF joint "post" shares its name with a link: renamed, with a warning.
    assert "post" not in joints and joints["post_joint"].child_name == "post"
    assert joints["post_joint"].extras["urdf_name"] == "post"
    warning, = context.diagnostics.warnings
    assert warning.code == Code.DUPLICATE_NAME
    assert warning.line == line_of(path, 'joint name="post"')


def test_read_gives_a_checked_urdf_document():
    doc = read(ARM)
    assert doc.format == "urdf" and doc.path == str(ARM)
    assert isinstance(doc.root, Model) and doc.root.name == "arm"
    assert not doc.diagnostics.items, list(doc.diagnostics)
    poses = {f.name: f.pose for f in doc.frames.frames()}
    for name, expected in ARM_LINK_POSES.items():
        assert poses["arm::" + name].almost_equal(expected, 1e-12)
    # A joint frame is its child link's frame.
    assert poses["arm::elbow"].almost_equal(ARM_LINK_POSES["forearm"], 1e-12)


def test_unrelated_files_are_declined_without_diagnostics(tmp_path):
    other = tmp_path / "robot.yaml"
    other.write_text("robot: {}\n")
    model, context = include(other)
    assert model is None and not context.diagnostics.items


# -- errors -----------------------------------------------------------------------------
# (file, expected code, text on the expected line, which occurrence of that text, whether
# read() can still show a model: a nameless link is skipped, a broken tree has no poses)
BROKEN_CASES = [
    ("malformed.urdf", Code.FILE_READ, "</link>", 1, False),
    ("missing_name.urdf", Code.ATTRIBUTE_MISSING, "<link>", 1, True),
    ("missing_robot_name.urdf", Code.ATTRIBUTE_MISSING, "<robot>", 1, False),
    ("unknown_link.urdf", Code.JOINT_CHILD_LINK_INVALID, '<child link="hand"/>', 1, False),
    ("two_parents.urdf", Code.JOINT_CHILD_LINK_INVALID, '<child link="tip"/>', 2, False),
    ("loop.urdf", Code.ELEMENT_INVALID, 'joint name="ab"', 1, False),
    ("two_roots.urdf", Code.ELEMENT_INVALID, 'link name="stray"', 1, False),
    ("no_links.urdf", Code.MODEL_WITHOUT_LINK, "<robot", 1, False),
    ("duplicate_names.urdf", Code.DUPLICATE_NAME, 'link name="arm"', 2, True),
    ("not_a_robot.urdf", Code.ELEMENT_INVALID, "<sdf", 1, False),
]


@pytest.mark.parametrize("name,code,needle,nth,shown", BROKEN_CASES,
                         ids=[c[0] for c in BROKEN_CASES])
def test_broken_urdf_fails_with_file_and_line(name, code, needle, nth, shown):
    path = BROKEN / name
    model, context = include(path)
    assert model is None  # any error fails the include (spec 1.5)
    first = context.diagnostics.errors[0]
    assert (first.code, first.file, first.line) == (code, str(path), line_of(path, needle, nth)), \
        first.format()
    # Reading the file directly reports the same thing.
    doc = read(path)
    assert doc.diagnostics.errors[0].format() == first.format()
    assert (doc.root is not None) == shown


def test_error_messages_name_the_culprits():
    def messages(name: str) -> list[str]:
        return [d.message for d in include(BROKEN / name)[1].diagnostics.errors]

    assert messages("loop.urdf") == [
        "Kinematic loop through joints [ab, bc, ca] (links a -> b -> c -> a); a URDF must be "
        "a tree."]
    two_parents, = messages("two_parents.urdf")
    assert "[tip] has two parents" in two_parents and "[left_tip]" in two_parents \
        and "[base_tip]" in two_parents
    roots, = messages("two_roots.urdf")
    assert "[base, stray]" in roots
    dup_link, dup_joint = messages("duplicate_names.urdf")
    assert "link with name[arm] already exists" in dup_link
    assert "joint with name[j] already exists" in dup_joint


def test_bad_values_are_all_reported_each_at_its_own_line():
    path = BROKEN / "bad_values.urdf"
    model, context = include(path)
    assert model is None
    found = {(d.code, d.line) for d in context.diagnostics.errors}
    assert {(Code.ATTRIBUTE_INVALID, line_of(path, 'xyz="1 2"')),
            (Code.ATTRIBUTE_INVALID, line_of(path, "nan")),
            (Code.ATTRIBUTE_INVALID, line_of(path, "heavy")),
            (Code.ELEMENT_INVALID, line_of(path, 'axis xyz="0 0 0"')),
            (Code.ELEMENT_MISSING, line_of(path, 'joint name="hinge"')),
            (Code.ATTRIBUTE_INVALID, line_of(path, "spherical"))} <= found
    # A bad colour is reported once, not again as an undefined material.
    assert not context.diagnostics.warnings


def test_a_model_with_only_element_errors_is_still_shown_when_read_directly():
    doc = read_string('<robot name="r"><link name="a"><visual><origin xyz="1 x 2"/>'
                      '<geometry><box size="1 1 1"/></geometry></visual></link></robot>')
    assert [d.code for d in doc.diagnostics.errors] == [Code.ATTRIBUTE_INVALID]
    assert doc.root is not None and doc.root.links[0].name == "a"


@pytest.mark.parametrize("text,code", [
    ('<robot name="a::b"><link name="l"/></robot>', Code.RESERVED_NAME),
    ('<robot name="r"><link name="x::y"/></robot>', Code.RESERVED_NAME),
    ('<robot name="r"><link name="__model__"/></robot>', Code.RESERVED_NAME),
    ('<robot name="r"><link name=""/></robot>', Code.ATTRIBUTE_INVALID),
    ('<robot name="r"><link name="a"/><joint name="j" type="fixed"><parent link="a"/>'
     '<child link="world"/></joint><link name="world"/></robot>', Code.JOINT_CHILD_LINK_INVALID),
    ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed">'
     '<parent link="a"/><child link="a"/></joint></robot>', Code.JOINT_PARENT_SAME_AS_CHILD),
    ('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed">'
     '<child link="b"/></joint></robot>', Code.ELEMENT_MISSING),
    ('<robot name="r"><link name="a"/><link name="b"/><joint name="j">'
     '<parent link="a"/><child link="b"/></joint></robot>', Code.ATTRIBUTE_MISSING),
    ('<robot name="r"><link name="a"><inertial><inertia ixx="1" iyy="1" izz="1"/></inertial>'
     '</link></robot>', Code.ELEMENT_MISSING),
    ('<robot name="r"><link name="a"><visual><geometry><capsule radius="1" length="1"/>'
     '</geometry></visual></link></robot>', Code.ELEMENT_INVALID),
    ('<robot name="r"><link name="a"><collision/></link></robot>', Code.ELEMENT_MISSING),
    ('<robot name="r"><link name="world"/></robot>', Code.MODEL_WITHOUT_LINK),
    ('<robot name="r"><material name="m"/><material name="m"/><link name="a"/></robot>',
     Code.DUPLICATE_NAME),
    ("", Code.FILE_READ),
])
def test_more_invalid_input(text, code):
    doc = read_string(text, path="inline.urdf")
    assert code in [d.code for d in doc.diagnostics.errors], list(doc.diagnostics)
    assert all(d.file == "inline.urdf" for d in doc.diagnostics)


def test_an_inertial_without_a_tensor_is_a_warning_as_libsdformat_converts_it():
    # urdfdom complains, libsdformat 12.3 still converts the robot and keeps the link
    # (test/integration/cfm_damping_implicit_spring_damper.urdf loads without errors).
    doc = read_string('<robot name="r"><link name="a"><inertial><mass value="1"/></inertial>'
                      '</link></robot>', path="inline.urdf")
    assert doc.diagnostics.errors == []
    assert [d.code for d in doc.diagnostics.warnings] == [Code.ELEMENT_MISSING]
    assert doc.root.links[0].inertial.mass == 1.0


def test_unreadable_file_is_a_diagnostic(tmp_path):
    model, context = include(tmp_path / "missing.urdf")
    assert model is None and context.diagnostics.errors[0].code == Code.FILE_READ


def test_xacro_leftovers_are_pointed_out():
    doc = read_string('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                      '<xacro:macro name="m"/><link name="a"/></robot>')
    assert doc.root is not None
    assert [d.severity for d in doc.diagnostics] == [Severity.WARNING]
    assert "xacro" in doc.diagnostics.items[0].message


def test_entity_bombs_and_external_entities_fail_cleanly():
    levels = '<!ENTITY l0 "lollollol">' + "".join(
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    bomb = (f'<?xml version="1.0"?><!DOCTYPE r [{levels}]>'
            '<robot name="r"><link name="&l9;"/></robot>')
    doc = read_string(bomb, path="bomb.urdf")  # libxml2's amplification limit stops it
    assert doc.root is None and [d.code for d in doc.diagnostics] == [Code.FILE_READ]
    secret = ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
              '<robot name="r"><link name="a&x;"/></robot>')
    doc = read_string(secret)
    assert doc.root is None or all("root:" not in l.name for l in doc.root.links)


# -- robustness -------------------------------------------------------------------------
def test_long_chains_and_loops_stay_linear():
    n = 5000
    links = "".join(f'<link name="l{i}"/>' for i in range(n))
    chain = "".join(f'<joint name="j{i}" type="fixed"><parent link="l{i}"/><child link="l{i + 1}"/>'
                    f'<origin xyz="0 0 1"/></joint>' for i in range(n - 1))
    doc = read_string(f'<robot name="r">{links}{chain}</robot>')
    assert not doc.diagnostics.has_errors()
    assert doc.root.links[-1].pose.value.p == (0.0, 0.0, n - 1.0)
    # Close the chain into one big loop (l0 gets a parent): reported once, no hang.
    closing = '<joint name="close" type="fixed"><parent link="l4999"/><child link="l0"/></joint>'
    doc = read_string(f'<robot name="r">{links}{chain}{closing}</robot>')
    assert [d.code for d in doc.diagnostics.errors] == [Code.ELEMENT_INVALID]


def test_mutated_input_never_raises():
    data = ARM.read_bytes()
    rng = random.Random(20240611)
    for _ in range(400):
        cut = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            if not cut:
                break
            op = rng.random()
            i = rng.randrange(len(cut))
            if op < 0.4:
                del cut[i:i + rng.randint(1, 40)]
            elif op < 0.7:
                cut[i:i] = rng.choice([b'"', b"<", b">", b" nan", b"::", b"link", b"/>", b"\x00"])
            else:
                cut = cut[:i]
        doc = read_string(bytes(cut), path="mutant.urdf")  # must not raise
        if doc.root is None:
            assert doc.diagnostics.has_errors()


# -- <gazebo reference="joint"> extensions, as libsdformat applies them -----------------------
REAL = Path(__file__).resolve().parents[2] / "data" / "sdformat_real"
CONVERSION = REAL / "golden" / "urdf_conversion.json"
EXTENSION_PATHS = ("physics/provide_feedback", "physics/ode/provide_feedback",
                   "physics/ode/implicit_spring_damper", "physics/ode/cfm_damping",
                   "physics/ode/fudge_factor", "physics/ode/limit/cfm", "physics/ode/limit/erp",
                   "axis/dynamics/spring_reference", "axis/dynamics/spring_stiffness")


def _same_value(ours: str, theirs: str) -> bool:
    try:
        return abs(float(ours) - float(theirs)) < 1e-12
    except ValueError:
        return ours == theirs


@pytest.mark.parametrize("rel", ["sdformat/test/integration/urdf_gazebo_extensions.urdf",
                                 "sdformat/test/integration/provide_feedback.urdf"])
def test_joint_extensions_become_the_sdformat_libsdformat_makes(rel):
    import json
    expected = json.loads(CONVERSION.read_text())["files"][rel]  # libsdformat 12.3's output
    doc = read(REAL / rel)
    assert doc.diagnostics.errors == []
    checked = 0
    for joint in doc.root.joints:
        sdf = joint.extras.get("sdformat_elements")
        if sdf is None:
            continue
        for path in EXTENSION_PATHS:
            el = sdf.find(path)
            if el is not None:
                assert _same_value(el.text, expected[joint.name][path]), (joint.name, path)
                checked += 1
    assert checked >= (9 if "extensions" in rel else 4)
    assert doc.root.joints[1].extras["gazebo_extension"]["provideFeedback"] in ("0", "1")


def test_disable_fixed_joint_lumping_makes_a_revolute_joint_with_zero_limits():
    import json
    rel = "sdformat/test/integration/fixed_joint_reduction_disabled.urdf"
    theirs = json.loads(CONVERSION.read_text())["files"][rel]["joint12a"]
    doc = read(REAL / rel)
    joints = {j.name: j for j in doc.root.joints}
    j = joints["joint12a"]
    assert (j.type, j.extras["urdf_type"]) == (theirs["type"], "fixed") == ("revolute", "fixed")
    [axis] = j.axes
    assert axis.xyz == tuple(float(v) for v in theirs["axis/xyz"].split())
    assert (axis.lower, axis.upper) == (float(theirs["axis/limit/lower"]),
                                        float(theirs["axis/limit/upper"])) == (0.0, 0.0)
    # A fixed joint without the extension stays fixed (libsdformat would lump it; Snapframe
    # keeps every link so that other files can refer to it).
    assert joints["joint23a"].type == "fixed"


def test_preserve_fixed_joint_wins_and_bad_numbers_are_reported():
    doc = read_string("""<robot name="r"><link name="a"/><link name="b"/>
        <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>
        <gazebo reference="j"><disableFixedJointLumping>true</disableFixedJointLumping>
          <preserveFixedJoint>yes</preserveFixedJoint><stopErp value="1_0"/></gazebo>
        </robot>""", path="inline.urdf")
    [j] = doc.root.joints
    assert j.type == "fixed" and j.extras["preserve_fixed_joint"] is True
    assert [(d.code, d.line) for d in doc.diagnostics.errors] == [(Code.ELEMENT_INVALID, 3)]
    assert "stopErp" not in j.extras["gazebo_extension"]


def test_unknown_joint_extension_children_are_copied_as_sdformat():
    doc = read_string("""<robot name="r"><link name="a"/><link name="b"/>
        <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
          <limit lower="0" upper="1" effort="1" velocity="1"/></joint>
        <gazebo reference="j"><sensor name="ft" type="force_torque"/><mu1>1</mu1></gazebo>
        <gazebo reference="a"><provideFeedback>1</provideFeedback></gazebo></robot>""")
    [j] = doc.root.joints
    sdf = j.extras["sdformat_elements"]
    assert [c.tag for c in sdf] == ["sensor"] and sdf[0].get("name") == "ft"


def test_a_fifo_is_a_file_read_error_naming_the_file(tmp_path):
    import os
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    fifo = tmp_path / "robot.urdf"
    os.mkfifo(fifo)
    [error] = read(fifo).diagnostics.errors  # ends at once: the FIFO is never opened for reading
    assert error.code == Code.FILE_READ and str(fifo) in error.message and "FIFO" in error.message


def test_malformed_xml_is_file_read_as_libsdformat_reports_it():
    [error] = read_string("<robot name='r'><link name='a'></robot>",
                          path="bad.urdf").diagnostics.errors
    assert error.code == Code.FILE_READ and error.line == 1
    assert error.message.startswith("Unable to read file:bad.urdf: XML error at line 1")
