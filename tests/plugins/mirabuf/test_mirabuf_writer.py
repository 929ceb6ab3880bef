"""The mirabuf writer: real files round trip unchanged, edits land in the right fields, a
model built here decodes to numbers worked out by hand, and composed SDFormat assemblies
read back with every link where libsdformat puts it.

What Synthesis needs to accept a file (``synthesis_problems``) is the checklist of the
notes on how its reader loads an assembly (design tree, grounded joint, references,
joint payloads, mesh arrays, version 5).
"""

from __future__ import annotations

import gzip
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from snapframe.core.diagnostics import Diagnostics
from snapframe.core.frames import FrameGraph
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import (Collision, Document, Geometry, Inertial, Joint, JointAxis,
                                  Link, Model, PoseSpec, Visual)
from snapframe.core.pose import Pose
from snapframe.plugins.mirabuf.generated import assembly_pb2
from snapframe.plugins.mirabuf.reader import _Converter, read, read_bytes
from snapframe.plugins.mirabuf.writer import assembly_of, encode, write

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data" / "mirabuf"
REAL = ["Dozer_v2.mira", "FRC_Field_2018_v14.mira", "HingeTestFission_v1.mira",
        "SliderTestFission_v2.mira", "TestCube_v1.mira"]


def decode(data: bytes):
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return assembly_pb2.Assembly.FromString(data)


def synthesis_problems(a) -> list[str]:
    """What would stop Synthesis loading ``a`` (empty: nothing)."""
    out = []
    parts = a.data.parts
    if a.info.version < 5:
        out.append("version below 5")
    if not a.design_hierarchy.nodes:
        out.append("empty design tree")
    in_tree: set[str] = set()
    stack = list(a.design_hierarchy.nodes)
    while stack:
        n = stack.pop()
        if n.value not in parts.part_instances:
            out.append(f"tree node {n.value!r} is no part instance")
        in_tree.add(n.value)
        stack.extend(n.children)
    for key, inst in parts.part_instances.items():
        if inst.part_definition_reference not in parts.part_definitions:
            out.append(f"instance {key} names a missing definition")
    g = a.data.joints.joint_instances.get("grounded")
    if g is None or not g.parts.nodes or g.parts.nodes[0].value not in parts.part_instances:
        out.append("no grounded part")
    for key, ji in a.data.joints.joint_instances.items():
        if key == "grounded":
            continue
        d = a.data.joints.joint_definitions.get(ji.joint_reference)
        if d is None:
            out.append(f"joint {key} names a missing definition")
            continue
        if d.joint_motion_type == 1 and not d.rotational.HasField("rotational_freedom"):
            out.append(f"revolute {key} without rotational freedom")
        if d.joint_motion_type == 2 and not d.prismatic.HasField("prismatic_freedom"):
            out.append(f"slider {key} without prismatic freedom")
        if ji.parent_part not in in_tree or ji.child_part not in in_tree:
            out.append(f"joint {key} names parts outside the design tree")
    for rg in a.data.joints.rigid_groups:
        out.extend(f"rigid group {rg.name} names {o}" for o in rg.occurrences if o not in in_tree)
    for dkey, d in parts.part_definitions.items():
        for b in d.bodies:
            if b.triangle_mesh.WhichOneof("mesh_type") != "mesh":
                continue
            m = b.triangle_mesh.mesh
            n = len(m.verts) // 3
            if len(m.verts) % 3 or len(m.indices) % 3 or len(m.normals) != len(m.verts) \
                    or len(m.uv) != 2 * n or (m.indices and max(m.indices) >= n):
                out.append(f"inconsistent mesh arrays in {dkey}")
    return out


# -- real files ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", REAL)
def test_read_write_read_gives_the_message_read(tmp_path, name):
    doc = read(DATA / name)
    out = tmp_path / name
    write(doc, out)
    data = out.read_bytes()
    assert data[:2] == b"\x1f\x8b"                 # gzip, as the exporter writes
    original = decode((DATA / name).read_bytes())
    assert decode(data) == original                # map order aside: message equality
    again = read(out)
    assert [l.name for l in again.root.links] == [l.name for l in doc.root.links]
    assert sorted((j.name, j.type) for j in again.root.joints) == \
        sorted((j.name, j.type) for j in doc.root.joints)
    assert not [d for d in doc.diagnostics if d.severity >= 1 and "not saved" in d.message]


def test_uncompressed_output_when_asked(tmp_path):
    doc = read(DATA / "TestCube_v1.mira")
    out = tmp_path / "cube.mira"
    write(doc, out, compress=False)
    assert out.read_bytes()[:2] != b"\x1f\x8b"
    assert decode(out.read_bytes()) == decode((DATA / "TestCube_v1.mira").read_bytes())


def _world_of(a, key: str) -> np.ndarray:
    conv = _Converter(a, "", Diagnostics(), True)
    conv.build_tree()
    return conv.world[key]


def test_a_moved_link_moves_its_parts_and_nothing_else(tmp_path):
    doc = read(DATA / "HingeTestFission_v1.mira")
    original = doc.extras["mirabuf_assembly"]
    swing = next(l for l in doc.root.links if l.name == "Swing_2")
    others = {l.name: FrameGraph(doc).pose(l.name) for l in doc.root.links if l is not swing}
    before = swing.pose.value
    shift = Pose.from_xyz_rpy(0.1, -0.2, 0.3, 0.0, 0.0, 0.5)
    swing.pose = PoseSpec(shift @ before, "", True)
    out = tmp_path / "moved.mira"
    write(doc, out)
    a = decode(out.read_bytes())
    assert not synthesis_problems(a)
    back = read(out)
    g = FrameGraph(back)
    got = next(l for l in back.root.links if l.name == "Swing_2")
    assert g.pose(got.name).almost_equal(shift @ before, 1e-5)
    for name, X in others.items():
        assert g.pose(name).almost_equal(X, 1e-5), name
    # the file's transforms stay consistent: global = parent global x local
    for key, inst in a.data.parts.part_instances.items():
        if len(inst.global_transform.spatial_matrix) == 16:
            G = np.asarray(inst.global_transform.spatial_matrix).reshape(4, 4)
            assert np.allclose(G, _world_of(a, key), atol=1e-3)
    # only the moved instance's transforms changed
    moved = swing.extras["mirabuf"]["part_instances"]
    for key, inst in a.data.parts.part_instances.items():
        if key not in moved and not any(_parent_is(a, key, m) for m in moved):
            assert inst == original.data.parts.part_instances[key], key


def _parent_is(a, key: str, parent: str) -> bool:
    conv = _Converter(a, "", Diagnostics(), True)
    conv.build_tree()
    return conv.tree_parent.get(key) == parent


def test_joint_limit_and_name_edits_are_saved(tmp_path):
    doc = read(DATA / "HingeTestFission_v1.mira")
    joint = next(j for j in doc.root.joints if j.name == "FourtyFive")
    lower, upper = joint.axes[0].lower, joint.axes[0].upper
    joint.axes[0].lower, joint.axes[0].upper = lower / 2, upper / 2
    joint.name = "half"
    out = tmp_path / "edited.mira"
    write(doc, out)
    back = read(out)
    j = next(j for j in back.root.joints if j.extras["mirabuf"]["key"] == joint.extras["mirabuf"]["key"])
    assert j.name == "half"
    assert math.isclose(j.axes[0].lower, lower / 2, abs_tol=1e-6)
    assert math.isclose(j.axes[0].upper, upper / 2, abs_tol=1e-6)
    # the axis and pivot were not rewritten: the definition's other fields are as read
    a, o = decode(out.read_bytes()), doc.extras["mirabuf_assembly"]
    key = joint.extras["mirabuf"]["key"]
    d_new = a.data.joints.joint_definitions[a.data.joints.joint_instances[key].joint_reference]
    d_old = o.data.joints.joint_definitions[o.data.joints.joint_instances[key].joint_reference]
    assert d_new.origin == d_old.origin
    assert d_new.rotational.rotational_freedom.axis == d_old.rotational.rotational_freedom.axis


def test_a_removed_joint_and_link_leave_the_file(tmp_path):
    doc = read(DATA / "HingeTestFission_v1.mira")
    model = doc.root
    joint = next(j for j in model.joints if j.name == "FourtyFive")
    key = joint.extras["mirabuf"]["key"]
    model.entities.remove(joint)
    link = next(l for l in model.links if l.name == joint.child_name)
    instances = link.extras["mirabuf"]["part_instances"]
    model.entities.remove(link)
    out = tmp_path / "removed.mira"
    write(doc, out)
    a = decode(out.read_bytes())
    assert key not in a.data.joints.joint_instances
    assert not set(instances) & set(a.data.parts.part_instances)
    assert not synthesis_problems(a)
    back = read(out)
    assert len(back.root.links) == len(model.links)
    # what the model cannot express is still there: signals, motors, thumbnail
    o = doc.extras["mirabuf_assembly"]
    assert a.data.signals == o.data.signals and a.thumbnail == o.thumbnail
    assert a.data.joints.motor_definitions == o.data.joints.motor_definitions


def test_an_sdformat_part_added_to_a_mira_document_is_saved(tmp_path):
    doc = read(DATA / "TestCube_v1.mira")
    cube = doc.root.links[0]
    extra = Link(name="added")
    extra.pose = PoseSpec(Pose.from_xyz_rpy(0.5, 0.0, 0.0), "", True)
    extra.visuals.append(Visual(name="v", geometry=Geometry("box", {"size": (0.1, 0.1, 0.1)})))
    extra.visuals[0].parent = extra
    doc.root.add(extra)
    hinge = Joint(name="hinge", type="revolute", parent_name=cube.name, child_name="added",
                  axes=[JointAxis(xyz=(0.0, 0.0, 1.0), lower=-1.0, upper=1.0)])
    doc.root.add(hinge)
    out = tmp_path / "added.mira"
    write(doc, out)
    a = decode(out.read_bytes())
    assert not synthesis_problems(a)
    back = read(out)
    added = next(l for l in back.root.links if l.name == "added")
    assert FrameGraph(back).pose(added.name).almost_equal(extra.pose.value, 1e-6)
    j = next(j for j in back.root.joints if j.name == "hinge")
    assert j.type == "revolute" and j.child_name == "added" and j.parent_name == cube.name
    assert (j.axes[0].lower, j.axes[0].upper) == pytest.approx((-1.0, 1.0))


# -- a model built here -----------------------------------------------------------------------

def _built() -> Document:
    """base (box, red, at the origin), arm (cylinder on a revolute joint at (1, 2, 3)),
    slider (sphere, prismatic along x), cap (welded to arm)."""
    def link(name, xyz, shape, params, colour=None, mass=2.0):
        lk = Link(name=name)
        lk.pose = PoseSpec(Pose.from_xyz_rpy(*xyz), "", True)
        vis = Visual(name="v", geometry=Geometry(shape, params), color=colour)
        col = Collision(name="c", geometry=Geometry(shape, params), density=800.0)
        vis.parent = col.parent = lk
        lk.visuals.append(vis)
        lk.collisions.append(col)
        lk.inertial = Inertial(mass=mass, pose=PoseSpec(Pose.translation(0.0, 0.0, 0.1)))
        return lk
    m = Model(name="built")
    m.add(link("base", (0, 0, 0), "box", {"size": (1.0, 0.5, 0.2)}, (1.0, 0.0, 0.0, 1.0)))
    m.add(link("arm", (1, 2, 3), "cylinder", {"radius": 0.1, "length": 1.0}))
    m.add(link("slider", (0, 0, 1), "sphere", {"radius": 0.2}))
    m.add(link("cap", (1, 2, 3.6), "box", {"size": (0.1, 0.1, 0.1)}))
    m.add(Joint(name="hinge", type="revolute", parent_name="base", child_name="arm",
                axes=[JointAxis(xyz=(0.0, 1.0, 0.0), lower=-0.5, upper=1.25)]))
    m.add(Joint(name="slide", type="prismatic", parent_name="base", child_name="slider",
                axes=[JointAxis(xyz=(1.0, 0.0, 0.0), lower=0.0, upper=0.3)]))
    m.add(Joint(name="weld", type="fixed", parent_name="arm", child_name="cap"))
    doc = Document(path="built.sdf", format="sdformat")
    doc.root = m
    return doc


def test_a_built_model_decodes_to_hand_computed_numbers():
    doc = _built()
    diags = Diagnostics()
    a = assembly_of(doc, diags)
    assert not synthesis_problems(a)
    assert a.info.version == 5 and a.dynamic           # a robot: nothing fixed to the world
    insts = a.data.parts.part_instances
    assert set(insts) == {"__root__", "base", "arm", "slider", "cap"}
    # Z-up metres -> Y-up centimetres: (x, y, z) -> (100 x, 100 z, -100 y)
    arm = np.asarray(insts["arm"].transform.spatial_matrix).reshape(4, 4)
    assert np.allclose(arm[:3, 3], [100.0, 300.0, -200.0])
    # the link's axes seen from the Y-up design: x stays, y is -z, z is +y
    assert np.allclose(arm[:3, :3], [[1, 0, 0], [0, 0, 1], [0, -1, 0]], atol=1e-7)
    assert a.data.joints.joint_instances["grounded"].parts.nodes[0].value == "base"
    jd = a.data.joints.joint_definitions
    hinge = jd["hinge"]
    assert hinge.joint_motion_type == 1
    assert [hinge.origin.x, hinge.origin.y, hinge.origin.z] == pytest.approx([100, 300, -200])
    dof = hinge.rotational.rotational_freedom
    # world +y is the design's -z
    assert [dof.axis.x, dof.axis.y, dof.axis.z] == pytest.approx([0, 0, -1])
    assert (dof.limits.lower, dof.limits.upper, dof.value) == pytest.approx((-0.5, 1.25, 0.0))
    ji = a.data.joints.joint_instances["hinge"]
    assert (ji.parent_part, ji.child_part) == ("arm", "base")     # moving side first
    slide = jd["slide"].prismatic.prismatic_freedom
    assert jd["slide"].joint_motion_type == 2
    assert [slide.axis.x, slide.axis.y, slide.axis.z] == pytest.approx([-1, 0, 0])  # x negated
    assert (slide.limits.lower, slide.limits.upper) == pytest.approx((0.0, 30.0))  # cm
    assert [list(g.occurrences) for g in a.data.joints.rigid_groups] == [["arm", "cap"]]
    base = a.data.parts.part_definitions[insts["base"].part_definition_reference]
    assert base.physical_data.mass == pytest.approx(2.0)
    assert base.physical_data.com.z == pytest.approx(10.0)        # link frame, cm
    assert base.physical_data.volume == pytest.approx(1.0 * 0.5 * 0.2 * 1e6, rel=1e-6)
    verts = np.asarray(base.bodies[0].triangle_mesh.mesh.verts).reshape(-1, 3)
    assert np.allclose(verts.min(axis=0), [-50, -25, -10]) and np.allclose(verts.max(axis=0), [50, 25, 10])
    app = a.data.materials.appearances[base.bodies[0].appearance_override]
    assert (app.albedo.R, app.albedo.G, app.albedo.B, app.albedo.A) == (255, 1, 1, 255)
    assert a.data.materials.physicalMaterials[insts["base"].physical_material].mechanical.density == 800
    assert any("inertia tensor" in d.message for d in diags)


def test_a_built_model_reads_back_with_its_parts_transforms_and_joints():
    doc = _built()
    back = read_bytes(encode(assembly_of(doc)), "built.mira")
    assert not back.diagnostics.has_errors()
    g, gb = FrameGraph(doc), FrameGraph(back)
    names = {l.name for l in back.root.links}
    assert names == {"base", "arm", "slider"}           # cap is welded into arm
    for name in names:
        assert gb.pose(name).almost_equal(g.pose(name), 1e-6), name
    joints = {j.name: j for j in back.root.joints}
    assert set(joints) == {"hinge", "slide"}
    hinge, slide = joints["hinge"], joints["slide"]
    assert (hinge.type, hinge.parent_name, hinge.child_name) == ("revolute", "base", "arm")
    assert (slide.type, slide.parent_name, slide.child_name) == ("prismatic", "base", "slider")
    assert gb.pose("hinge").p == pytest.approx((1, 2, 3))
    assert hinge.axes[0].xyz == pytest.approx((0, 1, 0))
    assert (hinge.axes[0].lower, hinge.axes[0].upper) == pytest.approx((-0.5, 1.25))
    assert slide.axes[0].xyz == pytest.approx((1, 0, 0))
    assert (slide.axes[0].lower, slide.axes[0].upper) == pytest.approx((0.0, 0.3))
    # masses come back (the tensor is recomputed from the meshes)
    arm = next(l for l in back.root.links if l.name == "arm")
    assert arm.inertial.mass == pytest.approx(4.0)       # arm + the welded cap


def test_a_mesh_file_that_cannot_be_read_is_reported(tmp_path):
    doc = _built()
    base = doc.root.links[0]
    base.visuals[0].geometry = Geometry("mesh", {"uri": "missing.stl", "scale": (1, 1, 1),
                                                 "resolved_path": str(tmp_path / "missing.stl")})
    out = tmp_path / "x.mira"
    write(doc, out)
    assert any("missing.stl" in d.message for d in doc.diagnostics)
    assert not synthesis_problems(decode(out.read_bytes()))


# -- composed SDFormat assemblies ---------------------------------------------------------------

@pytest.fixture(scope="module")
def oracle():
    from tests.plugins.composite_assemblies import oracle_binary
    binary, why = oracle_binary()
    if binary is None:
        pytest.skip(why)
    return binary


def _check_against_oracle(oracle, top: Path, search: list[Path], prefix: str) -> list[str]:
    """Write ``top`` as mirabuf, read it back; the problems with links and joints."""
    from tests.plugins.composite_assemblies import misplaced, oracle_poses, run_oracle
    doc = load(top, LoadContext(search_paths=search, use_environment=False))
    assert not doc.diagnostics.has_errors()
    a = assembly_of(doc)
    problems = synthesis_problems(a)
    result = run_oracle(oracle, top)
    assert result["errors"] == []
    back = read_bytes(encode(a), "back.mira")
    problems += [d.format() for d in back.diagnostics.errors]
    # every part instance (one per link) where libsdformat puts the link
    conv = _Converter(a, "", Diagnostics(), False)
    conv.build_tree()
    links = {prefix + k: Pose.from_matrix(conv.pose_of(k)) for k in conv.order
             if k in a.data.parts.part_instances and
             a.data.parts.part_definitions[a.data.parts.part_instances[k].part_definition_reference].bodies}
    expected = oracle_poses(result)
    problems += misplaced(expected, links)
    # every read-back link where libsdformat puts the link that places it
    gb = FrameGraph(back)
    placed = {prefix + l.extras["mirabuf"]["placed_by"]: gb.pose(l.name) for l in back.root.links}
    problems += misplaced({k: expected[k] for k in placed}, placed)
    # every movable joint, its pivot where libsdformat puts the joint frame, its axis
    ours = FrameGraph(doc)
    joints = {}
    frames = {f.name: f for f in ours.frames() if f.kind == "joint"}
    expected_joints = oracle_poses(result, "joint")
    types = _joint_types(doc)
    movable = {name for name in frames if types.get(name) in ("revolute", "prismatic", "continuous")}
    got = {prefix + j.extras["mirabuf"]["key"]: j for j in back.root.joints
           if j.extras["mirabuf"]["key"] != "grounded"}
    full = {n if n.startswith(prefix) or not prefix else prefix + n for n in movable}
    if set(got) != full:
        problems.append(f"joints: wrote {sorted(got)}, expected {sorted(full)}")
    for name, j in got.items():
        X = expected_joints[name]
        if not np.allclose(gb.pose(j.name).p, X.p, atol=1e-5):
            problems.append(f"joint {name} pivot {gb.pose(j.name).p} != {X.p}")
        joints[name] = j
    problems += _same_motion(doc, back, got, prefix)
    return problems


def _same_motion(doc: Document, back: Document, got: dict, prefix: str) -> list[str]:
    """Each movable joint moved by the same amount in the original and in the file read
    back moves every link to the same place (axis, sign, sides and limits agree)."""
    from snapframe.core.model.edits import EditRefused
    out = []
    placed = {l.name: l.extras["mirabuf"]["placed_by"] for l in back.root.links}
    for name, j in got.items():
        key = name[len(prefix):]
        try:
            doc.live.joints.set_position(key, 0.3)
        except EditRefused:
            continue          # a loop or a joint the original cannot move either
        back.live.joints.set_position(j.name, 0.3)
        for link, original in placed.items():
            A = doc.live.poses.pose(original)
            B = back.live.poses.pose(link)
            if not np.allclose(A, B, atol=1e-5):
                out.append(f"moving {name} puts {original} at {B[:3, 3]} (expected {A[:3, 3]})")
                break
        doc.live.joints.set_position(key, 0.0)
        back.live.joints.set_position(j.name, 0.0)
    return out


def _joint_types(doc: Document) -> dict[str, str]:
    """Scoped joint name (as ``frames`` lists it, from the root scope) -> type."""
    from snapframe.core.model import Include, World
    out: dict[str, str] = {}
    root = doc.root
    stack = [(list(root.entities), "" if isinstance(root, World) else f"{root.name}::")]
    while stack:
        entities, prefix = stack.pop()
        for e in entities:
            if isinstance(e, Joint):
                out[prefix + e.name] = e.type
            elif isinstance(e, Model):
                stack.append((list(e.entities), f"{prefix}{e.name}::"))
            elif isinstance(e, Include) and e.model is not None:
                inner = prefix if e.merge else f"{prefix}{e.effective_name}::"
                stack.append((list(e.model.entities), inner))
                stack.append((list(e.entities), prefix))
    return out


@pytest.mark.oracle
def test_the_flanges_example_reads_back_where_libsdformat_puts_it(oracle):
    top = REPO / "resources" / "examples" / "flanges" / "super_armio_bros.sdf"
    problems = _check_against_oracle(oracle, top, [top.parent], "super_armio_bros::")
    assert problems == []


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(12))
def test_composed_assemblies_read_back_where_libsdformat_puts_them(tmp_path, oracle, seed):
    from tests.plugins.composite_assemblies import make_assembly
    asm = make_assembly(tmp_path / f"a{seed}", seed)
    prefix = "" if asm.is_world else f"{asm.top_name}::"
    problems = _check_against_oracle(oracle, asm.top, [asm.folder], prefix)
    assert problems == [], f"seed {seed}: {problems}"


# -- the command line ---------------------------------------------------------------------------

def test_convert_writes_mira_and_check_reads_it(tmp_path):
    top = REPO / "resources" / "examples" / "flanges" / "super_armio_bros.sdf"
    out = tmp_path / "bros.mira"
    done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "convert", str(top),
                           str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "no frames" in done.stderr                  # what mirabuf cannot hold is said
    assert not synthesis_problems(decode(out.read_bytes()))
    done = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", "check", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout


def test_an_openplx_model_exports(tmp_path):
    examples = sorted((REPO / "resources" / "examples" / "openplx").rglob("*.openplx"))
    assert examples
    from snapframe.core.formats import registry
    doc = registry.implementation("openplx").read(examples[0])
    a = assembly_of(doc)
    assert not synthesis_problems(a)
    back = read_bytes(encode(a), "back.mira")
    assert back.root is not None and back.root.links


def test_a_urdf_robot_with_a_mesh_file_exports():
    from snapframe.plugins.meshio import load_collision_mesh
    path = REPO / "tests" / "data" / "urdf" / "arm.urdf"
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.has_errors()
    diags = Diagnostics()
    a = assembly_of(doc, diags)
    assert not synthesis_problems(a)
    assert not any("could not be read" in d.message for d in diags)
    # the STL's triangles are a body of the link that shows it
    stl = load_collision_mesh(REPO / "tests" / "data" / "urdf" / "meshes" / "tool.stl")
    triangles = sum(len(s.faces) for s in stl.submeshes)
    counts = [len(b.triangle_mesh.mesh.indices) // 3
              for d in a.data.parts.part_definitions.values() for b in d.bodies]
    assert triangles in counts
    back = read_bytes(encode(a), "arm.mira")
    g, gb = FrameGraph(doc), FrameGraph(back)
    top = doc.root.name
    for link in back.root.links:
        placed = link.extras["mirabuf"]["placed_by"]
        assert gb.pose(link.name).almost_equal(g.pose(f"{top}::{placed}"), 1e-6), placed
