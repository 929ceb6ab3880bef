"""Review of the mirabuf writer (issue 11, commit 403fb99): one failing test per bug found.

Expectations come from /work/shared/reference/mirabuf.md (notes) and the writer's own
contract (plugins/mirabuf/writer.py docstring: "A document saved without edits decodes to
the message read", "What cannot be saved is reported in document.diagnostics").  Synthesis's
rigid-body grouping is taken from the reader's ``_Converter.group`` (a port of
``MirabufParser.ts``, notes 4.2).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

from snapframe.core.diagnostics import Diagnostics
from snapframe.core.frames import FrameGraph
from snapframe.core.model import (Document, Geometry, Joint, JointAxis, Link, Model, PoseSpec,
                                  Visual)
from snapframe.core.model.edits import RemoveNode, SetField, SetJointAxis, SetMass
from snapframe.core.pose import Pose
from snapframe.plugins.mirabuf.generated import assembly_pb2
from snapframe.plugins.mirabuf.reader import _Converter, read, read_bytes
from snapframe.plugins.mirabuf.writer import assembly_of, encode

from tests.plugins.mirabuf.test_mirabuf_writer import _built, synthesis_problems

DATA = Path(__file__).resolve().parents[2] / "data" / "mirabuf"


# -- helpers ---------------------------------------------------------------------------------

def _raw(name: str):
    data = (DATA / name).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return assembly_pb2.Assembly.FromString(data)


def _box_link(name: str, xyz, relative_to: str = "", visual_relative_to: str = "") -> Link:
    link = Link(name=name)
    link.pose = PoseSpec(Pose.from_xyz_rpy(*xyz), relative_to, True)
    vis = Visual(name="v", geometry=Geometry("box", {"size": (0.1, 0.1, 0.1)}),
                 pose=PoseSpec(Pose.from_xyz_rpy(0, 0, 0), visual_relative_to, True))
    vis.parent = link
    link.visuals.append(vis)
    return link


def _doc(root) -> Document:
    doc = Document(path="review.sdf", format="sdformat")
    doc.root = root
    return doc


def _grouping(a) -> _Converter:
    conv = _Converter(a, "", Diagnostics(), False)
    conv.build_tree()
    conv.group()
    return conv


def _warned(diags, *words: str) -> bool:
    return any(all(w in d.message for w in words) for d in diags if d.severity >= 1)


# -- 1. fields: every part definition is written dynamic -> every link a game piece ----------

def test_a_static_model_is_one_static_body_not_game_pieces():
    """Notes 3.6: in a field ``dynamic`` is false except for game pieces; 4.2 step 2: a
    field's dynamic definitions become free game pieces.  A static model's links must all
    end up in the grounded (static) rigid node."""
    m = Model(name="field")
    m.static = True
    for i, x in enumerate((0.0, 1.0, 2.0)):
        m.add(_box_link(f"l{i}", (x, 0, 0)))
    a = assembly_of(_doc(m), Diagnostics())
    assert not a.dynamic
    conv = _grouping(a)
    free = [k for k in ("l0", "l1", "l2") if conv.rigid[k] != conv.ground]
    assert free == [], f"links Synthesis makes free game pieces: {free}"


# -- 2. reserved keys: a link named "root", a joint named "grounded" -------------------------

def test_a_link_named_root_keeps_its_joint():
    """The root part instance is keyed "root"; a link of that name overwrites it."""
    m = Model(name="robot")
    m.add(_box_link("root", (0, 0, 0.5)))
    m.add(_box_link("arm", (1, 0, 0)))
    m.add(Joint(name="j", type="revolute", parent_name="root", child_name="arm",
                axes=[JointAxis(xyz=(0, 0, 1))]))
    back = read_bytes(encode(assembly_of(_doc(m))), "x.mira")
    assert sorted(l.name for l in back.root.links) == ["arm", "root"]
    assert [(j.name, j.type) for j in back.root.joints] == [("j", "revolute")]


def test_a_joint_named_grounded_is_not_merged_into_the_grounded_joint():
    """Notes 3.2/4.2: "grounded" is the special key; a joint of that name overwrites it
    (the joint is lost and the grounded part becomes the moving link)."""
    m = Model(name="robot")
    m.add(_box_link("base", (0, 0, 0)))
    m.add(_box_link("arm", (1, 0, 0)))
    m.add(Joint(name="grounded", type="revolute", parent_name="base", child_name="arm",
                axes=[JointAxis(xyz=(0, 0, 1))]))
    a = assembly_of(_doc(m))
    assert a.data.joints.joint_instances["grounded"].parts.nodes[0].value == "base"
    back = read_bytes(encode(a), "x.mira")
    assert [j.type for j in back.root.joints] == ["revolute"]


# -- 3. geometry placed relative to another frame inside a nested model ----------------------

def test_a_visual_posed_relative_to_a_sibling_link_in_a_nested_model():
    """sub::b's visual sits at sub::a (relative_to="a"), i.e. 1 m along -x in b's frame.
    The builder resolves relative_to before the link is registered (prefix_of -> ""),
    the lookup fails and the raw pose is used silently."""
    top = Model(name="top")
    top.add(_box_link("base", (0, 0, 0)))
    sub = Model(name="sub")
    sub.pose = PoseSpec(Pose.from_xyz_rpy(0, 0, 1), "", True)
    sub.add(_box_link("a", (0, 0, 0)))
    sub.add(_box_link("b", (1, 0, 0), visual_relative_to="a"))
    sub.add(Joint(name="w", type="fixed", parent_name="a", child_name="b"))
    top.add(sub)
    top.add(Joint(name="j", type="revolute", parent_name="base", child_name="sub::a",
                  axes=[JointAxis(xyz=(0, 0, 1))]))
    a = assembly_of(_doc(top))
    pd = a.data.parts.part_definitions[a.data.parts.part_instances["sub::b"].part_definition_reference]
    V = np.asarray(pd.bodies[0].triangle_mesh.mesh.verts).reshape(-1, 3)
    centre = (V.min(axis=0) + V.max(axis=0)) / 2                  # cm, b's frame
    assert np.allclose(centre, [-100.0, 0.0, 0.0], atol=1e-3), centre


# -- 4. content added to a file read: keys not checked against the file's -------------------

def _built_read_back() -> Document:
    return read_bytes(encode(assembly_of(_built())), "built.mira")


def test_added_content_does_not_take_over_a_part_definition_of_the_file():
    """A nested model added to a .mira document (written by this builder, so its
    definitions are keyed by link names) whose link is named "base" appends its body to
    the file's definition "base" and overwrites its mass."""
    doc = _built_read_back()
    other = Model(name="other")
    other.pose = PoseSpec(Pose.from_xyz_rpy(0, 3, 0), "", True)
    lk = Link(name="base")
    v = Visual(name="v", geometry=Geometry("sphere", {"radius": 0.3}))
    v.parent = lk
    lk.visuals.append(v)
    other.add(lk)
    doc.root.add(other)
    doc.root.add(Joint(name="jj", type="revolute", parent_name="base", child_name="other::base",
                       axes=[JointAxis(xyz=(0, 0, 1))]))
    a = assembly_of(doc)
    assert not synthesis_problems(a)
    back = read_bytes(encode(a), "x.mira")
    base = next(l for l in back.root.links if l.name == "base")
    assert len(base.visuals) == 1                     # the file's box only
    assert base.inertial.mass == 2.0


def test_an_added_link_named_like_a_welded_instance_is_saved():
    """The file holds instance "cap" (welded into link "arm"), so the document has no
    link "cap" and the name is free; the new link overwrites the instance, is lost with
    its joint, and nothing is reported."""
    doc = _built_read_back()
    lk = Link(name="cap")
    lk.pose = PoseSpec(Pose.from_xyz_rpy(-2, 0, 0), "", True)
    v = Visual(name="v", geometry=Geometry("sphere", {"radius": 0.3}))
    v.parent = lk
    lk.visuals.append(v)
    doc.root.add(lk)
    doc.root.add(Joint(name="jj", type="revolute", parent_name="base", child_name="cap",
                       axes=[JointAxis(xyz=(0, 0, 1))]))
    back = read_bytes(encode(assembly_of(doc)), "x.mira")
    assert "cap" in {l.name for l in back.root.links}
    assert "jj" in {j.name for j in back.root.joints}
    arm = next(l for l in back.root.links if l.name == "arm")
    assert len(arm.visuals) == 2                      # arm + the file's welded cap


def test_an_added_nested_model_gives_no_body_without_parts():
    """In build mode ``group_check`` keeps a model instance with its link; content added
    to a file read skips it, so the model instance is a rigid node of its own (a phantom
    1 kg body in Synthesis, notes 4.4 'If the sum is 0 it is set to 1')."""
    doc = read(DATA / "TestCube_v1.mira")
    cube = doc.root.links[0].name
    sub = Model(name="zarm")
    sub.pose = PoseSpec(Pose.from_xyz_rpy(1, 0, 0), "", True)
    sub.add(_box_link("a", (0, 0, 0)))
    sub.add(_box_link("b", (0.5, 0, 0)))
    sub.add(Joint(name="elbow", type="revolute", parent_name="a", child_name="b",
                  axes=[JointAxis(xyz=(0, 0, 1))]))
    doc.root.add(sub)
    doc.root.add(Joint(name="shoulder", type="revolute", parent_name=cube, child_name="zarm::a",
                       axes=[JointAxis(xyz=(0, 0, 1))]))
    back = read_bytes(encode(assembly_of(doc)), "x.mira")
    assert [l.name for l in back.root.links if not l.visuals] == []
    assert len(back.root.links) == 3


# -- 5. removals -----------------------------------------------------------------------------

def test_removing_the_grounded_link_leaves_a_valid_grounded_part():
    """Notes 4.2 step 3 / 5 checklist: joint_instances["grounded"].parts.nodes[0] must
    be a part instance, or Synthesis throws.  Removing the grounded link leaves it dangling
    and nothing is reported."""
    doc = read(DATA / "HingeTestFission_v1.mira")
    m = doc.root
    for j in list(m.joints):
        m.entities.remove(j)
    m.entities.remove(next(l for l in m.links if l.name == "CORE_1"))
    diags = Diagnostics()
    a = assembly_of(doc, diags)
    assert "no grounded part" not in synthesis_problems(a)


def test_removing_a_link_keeps_its_design_tree_children_in_place():
    """Removed instances give their tree children to their parents (writer.py
    remove_instances) but the children's local transforms are not recomputed unless
    something moved (rewrite_transforms returns early): they jump."""
    a = assembly_of(_built())
    insts = a.data.parts.part_instances
    W = {k: np.asarray(insts[k].global_transform.spatial_matrix).reshape(4, 4)
         for k in ("arm", "slider", "cap")}
    root = a.design_hierarchy.nodes[0]
    del root.children[:]
    root.children.add().value = "base"
    arm = root.children.add()
    arm.value = "arm"
    for k in ("cap", "slider"):                       # a component with bodies and children
        arm.children.add().value = k
        del insts[k].transform.spatial_matrix[:]
        insts[k].transform.spatial_matrix.extend((np.linalg.inv(W["arm"]) @ W[k]).reshape(-1).tolist())
    a.data.joints.joint_instances["slide"].child_part = "cap"
    doc = read_bytes(encode(a), "nested.mira")
    assert {l.name for l in doc.root.links} == {"base", "arm", "slider"}
    m = doc.root
    for j in list(m.joints):
        m.entities.remove(j)
    m.entities.remove(next(l for l in m.links if l.name == "arm"))
    out = assembly_of(doc)
    c = _Converter(out, "", Diagnostics(), True)
    c.build_tree()
    assert np.allclose(c.world["slider"], W["slider"], atol=1e-4), c.world["slider"][:3, 3]


def test_removing_a_joint_reports_that_its_link_is_welded():
    """Without its joint the link is rounded up into the grounded body (notes 4.2 step 4);
    the builder warns about exactly this, the edit path says nothing."""
    doc = read(DATA / "HingeTestFission_v1.mira")
    doc.commands.push(RemoveNode(doc, next(j for j in doc.root.joints if j.name == "FourtyFive")))
    diags = Diagnostics()
    back = read_bytes(encode(assembly_of(doc, diags)), "x.mira")
    kept = len(back.root.links) == len(doc.root.links)
    assert kept or _warned(diags, "Swing_2")


# -- 6. edits that do not land (and are not reported) ----------------------------------------

def test_a_joint_parent_edit_is_saved_or_reported():
    doc = read(DATA / "SliderTestFission_v2.mira")
    j = next(j for j in doc.root.joints if j.name == "Slider_2")
    doc.commands.push(SetField(doc, j, "parent_name", "CORE_1"))
    diags = Diagnostics()
    back = read_bytes(encode(assembly_of(doc, diags)), "x.mira")
    jb = next(j for j in back.root.joints if j.name == "Slider_2")
    assert jb.parent_name == "CORE_1" or _warned(diags, "Slider_2")


def test_a_mass_edit_is_saved_or_reported():
    doc = read(DATA / "TestCube_v1.mira")
    link = doc.root.links[0]
    doc.commands.push(SetMass(doc, link, 5.0))
    diags = Diagnostics()
    back = read_bytes(encode(assembly_of(doc, diags)), "x.mira")
    assert abs(back.root.links[0].inertial.mass - 5.0) < 1e-6 or _warned(diags, "mass")


def test_a_removed_visual_is_saved_or_reported():
    doc = read(DATA / "TestCube_v1.mira")
    link = doc.root.links[0]
    doc.commands.push(RemoveNode(doc, link.visuals[0]))
    diags = Diagnostics()
    back = read_bytes(encode(assembly_of(doc, diags)), "x.mira")
    assert not back.root.links[0].visuals or _warned(diags, "visual")


def test_a_colour_edit_is_saved_or_reported():
    """The issue's use case: 'fix joints and materials'."""
    doc = read(DATA / "TestCube_v1.mira")
    vis = doc.root.links[0].visuals[0]
    doc.commands.push(SetField(doc, vis, "color", (0.0, 0.0, 1.0, 1.0)))
    diags = Diagnostics()
    back = read_bytes(encode(assembly_of(doc, diags)), "x.mira")
    got = back.root.links[0].visuals[0].color
    assert np.allclose(got[:3], (0, 0, 1), atol=0.01) or _warned(diags, "colo")


def test_joint_effort_and_velocity_edits_are_saved_or_reported():
    """The builder writes Limits.effort/velocity and the reader reads them back; the
    edit path ignores them."""
    doc = read(DATA / "HingeTestFission_v1.mira")
    j = next(j for j in doc.root.joints if j.name == "FourtyFive")
    doc.commands.push(SetJointAxis(doc, j, effort=12.0, velocity=3.0))
    diags = Diagnostics()
    back = read_bytes(encode(assembly_of(doc, diags)), "x.mira")
    jb = next(j for j in back.root.joints if j.name == "FourtyFive")
    assert (jb.axes[0].effort, jb.axes[0].velocity) == (12.0, 3.0) or \
        _warned(diags, "FourtyFive")


def test_a_ball_joint_pivot_follows_its_moved_link():
    """patch_joint returns before the pivot for ball joints: the anchor stays behind."""
    top = Model(name="top")
    top.add(_box_link("base", (0, 0, 0)))
    top.add(_box_link("arm", (1, 0, 0)))
    top.add(Joint(name="sock", type="ball", parent_name="base", child_name="arm"))
    doc = read_bytes(encode(assembly_of(_doc(top))), "x.mira")
    arm = next(l for l in doc.root.links if l.name == "arm")
    arm.pose = PoseSpec(Pose.from_xyz_rpy(0, 2, 0) @ arm.pose.value, "", True)
    again = read_bytes(encode(assembly_of(doc)), "y.mira")
    g = FrameGraph(again)
    assert np.allclose(g.pose("sock").p, (1.0, 2.0, 0.0), atol=1e-6), g.pose("sock").p


# -- 7. numbers Synthesis reads differently after an unedited save ---------------------------

def test_an_old_file_keeps_its_revolute_axes_when_saved():
    """Notes 4.4: for Info.version < 5 Synthesis negates revolute x.  The writer bumps the
    version to 5 without un-flipping the stored axes: every wheel turns the other way."""
    a = _raw("Dozer_v2.mira")
    a.info.version = 4
    out = assembly_of(read_bytes(a.SerializeToString(), "old.mira"))

    def effective(asm):
        got = {}
        for k, ji in asm.data.joints.joint_instances.items():
            d = asm.data.joints.joint_definitions.get(ji.joint_reference)
            if d is not None and d.joint_motion_type == 1:
                ax = d.rotational.rotational_freedom.axis
                got[k] = (-ax.x if asm.info.version < 5 else ax.x, ax.y, ax.z)
        return got
    assert effective(out) == effective(a)


def test_an_unedited_file_without_names_is_saved_unchanged():
    """writer.py: 'A document saved without edits decodes to the message read'.  Empty
    Info.name fields are filled with the reader's fallback names (the key, 'joint',
    'mirabuf')."""
    a = _raw("HingeTestFission_v1.mira")
    a.info.name = ""
    for i in a.data.parts.part_instances.values():
        i.info.name = ""
    for i in a.data.joints.joint_instances.values():
        i.info.name = ""
    for d in a.data.joints.joint_definitions.values():
        d.info.name = ""
    assert assembly_of(read_bytes(a.SerializeToString(), "x.mira")) == a


def test_an_unedited_joint_with_an_offset_keeps_its_pivot():
    """The reader's pivot is origin + offset; patch_joint looks the offset up by
    ``joint_reference == definition.info.GUID`` instead of using the instance it has, so
    when the GUID is not the key it subtracts nothing and moves the origin by the offset."""
    a = _raw("HingeTestFission_v1.mira")
    for k, ji in a.data.joints.joint_instances.items():
        if k != "grounded":
            ji.offset.x, ji.offset.y, ji.offset.z = 1.0, 2.0, 3.0
            a.data.joints.joint_definitions[ji.joint_reference].info.GUID = "guid-" + k
    out = assembly_of(read_bytes(a.SerializeToString(), "x.mira"))
    for k in a.data.joints.joint_definitions:
        assert out.data.joints.joint_definitions[k].origin == a.data.joints.joint_definitions[k].origin


# -- 8. grouping: a nested model welded and jointed to the outside ---------------------------

def test_a_nested_model_with_one_link_welded_and_one_hinged_keeps_the_hinge():
    """sub::b is welded to base, sub::a hinged to base.  The hinge's ancestral break puts
    the container "sub" on the moving side, sub::b inherits it (round-up), and the weld's
    rigid group then merges the moving side into base: Synthesis drops the hinge (the
    warning blames 'no joint connects to the grounded part')."""
    top = Model(name="top")
    top.add(_box_link("base", (0, 0, 0)))
    sub = Model(name="sub")
    sub.add(_box_link("a", (1, 0, 0)))
    sub.add(_box_link("b", (0, 1, 0)))
    top.add(sub)
    top.add(Joint(name="hinge", type="revolute", parent_name="base", child_name="sub::a",
                  axes=[JointAxis(xyz=(0, 0, 1))]))
    top.add(Joint(name="weld", type="fixed", parent_name="base", child_name="sub::b"))
    back = read_bytes(encode(assembly_of(_doc(top))), "x.mira")
    assert [(j.name, j.type) for j in back.root.joints] == [("hinge", "revolute")]


# -- 9. crash on a document with an unresolvable pose ----------------------------------------

def test_saving_a_document_with_an_unresolvable_pose_does_not_raise(tmp_path):
    """The URDF writer leaves such links out with a warning and the patch path catches
    the error; the builder lets ``Unresolved`` escape (the editor's save catches only
    OSError/ValueError)."""
    src = tmp_path / "bad.sdf"
    box = "<visual name='v'><geometry><box><size>0.1 0.1 0.1</size></box></geometry></visual>"
    src.write_text(
        "<?xml version='1.0'?><sdf version='1.9'><model name='m'>"
        f"<link name='a'>{box}</link>"
        f"<link name='b'><pose relative_to='nope'>1 0 0 0 0 0</pose>{box}</link>"
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child>"
        "<axis><xyz>0 0 1</xyz></axis></joint></model></sdf>")
    from snapframe.core.loading import LoadContext, load
    doc = load(src, LoadContext(use_environment=False))
    doc.save(tmp_path / "bad.mira", "mirabuf")
    assert (tmp_path / "bad.mira").is_file()
