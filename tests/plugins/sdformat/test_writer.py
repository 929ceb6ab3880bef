"""SDFormat writer: modular save keeps includes and unknown content; flatten keeps poses."""

from pathlib import Path

from lxml import etree

from snapframe.core.loading import LoadContext, load
from snapframe.core.model.edits import AddNode, SetPose
from snapframe.core.model import Frame, PoseSpec
from snapframe.core.pose import Pose
from snapframe.plugins.sdformat.writer import to_string, write

ARM = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="arm">
    <link name="body">
      <visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual>
    </link>
    <frame name="mount"><pose degrees="true">0 0 1 0 90 0</pose></frame>
  </model>
</sdf>
"""
TOP = """<?xml version="1.0"?>
<!-- assembly of an arm -->
<sdf version="1.9" xmlns:acme="http://acme.example/sdf">
  <world name="w">
    <acme:note level="2">keep me</acme:note>
    <physics name="fast" type="ode"><max_step_size>0.002</max_step_size></physics>
    <include>
      <uri>arm.sdf</uri>
      <name>a1</name>
      <pose>1 0 0 0 0 0</pose>
      <acme:tag>custom</acme:tag>
    </include>
    <include>
      <uri>arm.sdf</uri>
      <name>a2</name>
      <placement_frame>mount</placement_frame>
      <pose relative_to="a1::mount"/>
    </include>
  </world>
</sdf>
"""


def _frames(path: Path) -> dict:
    doc = load(path, LoadContext(use_environment=False))
    assert not doc.diagnostics.errors, doc.diagnostics.errors
    return {f.name: f.pose for f in doc.frames.frames()}


def _setup(tmp_path: Path) -> Path:
    (tmp_path / "arm.sdf").write_text(ARM)
    (tmp_path / "top.sdf").write_text(TOP)
    return tmp_path / "top.sdf"


def test_unchanged_save_keeps_includes_comments_and_custom_elements(tmp_path):
    top = _setup(tmp_path)
    doc = load(top, LoadContext(use_environment=False))
    out = tmp_path / "out.sdf"
    write(doc, out)
    text = out.read_text()
    assert "<!-- assembly of an arm -->" in text
    assert '<acme:note level="2">keep me</acme:note>' in text
    assert "<acme:tag>custom</acme:tag>" in text and "<max_step_size>0.002</max_step_size>" in text
    assert text.count("<include>") == 2 and "<uri>arm.sdf</uri>" in text
    assert _frames(out) == _frames(top)


def test_edit_then_save_writes_only_what_changed(tmp_path):
    top = _setup(tmp_path)
    doc = load(top, LoadContext(use_environment=False))
    a1 = doc.includes()[0]
    doc.commands.push(SetPose(doc, a1, Pose.from_xyz_rpy(3, 0, 0)))
    frame = Frame(name="marker", attached_to="a2", pose=PoseSpec(Pose.from_xyz_rpy(0, 0, 2), "a2", True))
    doc.commands.push(AddNode(doc, doc.root, frame))
    out = tmp_path / "out.sdf"
    write(doc, out)
    poses = _frames(out)
    assert poses["a1"].p == (3.0, 0.0, 0.0)
    assert poses["marker"].almost_equal(poses["a2"] @ Pose.from_xyz_rpy(0, 0, 2), 1e-12)
    # The included file was not touched and its degrees-pose text is intact.
    assert 'degrees="true">0 0 1 0 90 0' in (tmp_path / "arm.sdf").read_text()


def test_flattened_save_is_self_contained_with_identical_frames(tmp_path):
    top = _setup(tmp_path)
    doc = load(top, LoadContext(use_environment=False))
    flat = tmp_path / "flat" / "flat.sdf"
    write(doc, flat, flatten=True)
    text = flat.read_text()
    assert "<include" not in text and text.count('<model name="a') == 2
    got, want = _frames(flat), _frames(top)
    assert got.keys() == want.keys()
    assert all(got[k].almost_equal(want[k], 1e-9) for k in want)
    # Flattening did not change the open document.
    assert "<include>" in to_string(doc)


def test_save_is_atomic(tmp_path, monkeypatch):
    top = _setup(tmp_path)
    doc = load(top, LoadContext(use_environment=False))
    out = tmp_path / "out.sdf"
    out.write_text("previous content")

    def fail(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr("os.replace", fail)
    try:
        write(doc, out)
    except OSError:
        pass
    assert out.read_text() == "previous content"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.sdf")] == []


def test_model_document_round_trip(tmp_path):
    (tmp_path / "arm.sdf").write_text(ARM)
    doc = load(tmp_path / "arm.sdf", LoadContext(use_environment=False))
    out = tmp_path / "arm2.sdf"
    write(doc, out)
    assert etree.tostring(etree.parse(str(out))) == etree.tostring(etree.parse(str(tmp_path / "arm.sdf")))


def test_flatten_rebases_relative_mesh_uris(tmp_path):
    (tmp_path / "parts" / "meshes").mkdir(parents=True)
    (tmp_path / "parts" / "wheel.sdf").write_text("""<sdf version="1.9"><model name="wheel">
      <link name="l"><visual name="v"><geometry><mesh><uri>meshes/wheel.stl</uri></mesh>
      </geometry></visual></link></model></sdf>""")
    (tmp_path / "car.sdf").write_text("""<sdf version="1.9"><model name="car"><link name="b"/>
      <include><uri>parts/wheel.sdf</uri></include></model></sdf>""")
    doc = load(tmp_path / "car.sdf", LoadContext(use_environment=False))
    out = tmp_path / "out" / "flat.sdf"
    write(doc, out, flatten=True)
    assert "<uri>../parts/meshes/wheel.stl</uri>" in out.read_text()


def test_save_keeps_the_files_choice_of_xml_declaration(tmp_path):
    for declared in (True, False):
        text = ('<?xml version="1.0"?>\n' if declared else "") + \
            '<sdf version="1.9"><model name="m"><link name="l"/></model></sdf>\n'
        (tmp_path / "m.sdf").write_text(text)
        doc = load(tmp_path / "m.sdf", LoadContext(use_environment=False))
        write(doc, tmp_path / "out.sdf")
        assert (tmp_path / "out.sdf").read_text().startswith("<?xml") == declared


def _deep_document(depth: int, *, through_includes: bool):
    """A model nesting ``depth`` levels: nested models, or a chain of includes each
    naming the next file's model (built in memory: readers bound the depth they read)."""
    from snapframe.core.model import Document, Include, Link, Model
    top = Model(name="m0")
    model = top
    for i in range(1, depth):
        model.add(Link(name=f"l{i}"))
        sub = Model(name=f"m{i}", pose=PoseSpec(Pose.from_xyz_rpy(0, 0, 1, 0, 0, 0.01), "", True))
        if through_includes:
            model.add(Include(uri=f"m{i}.sdf", model=sub, resolved_path=f"/parts/m{i}.sdf"))
        else:
            model.add(sub)
        model = sub
    model.add(Link(name="leaf"))
    return Document(root=top, format="sdformat")


def _model_depth(text: str) -> int:
    root = etree.fromstring(text.encode(), etree.XMLParser(huge_tree=True))
    depth, el = 0, root.find("model")
    while el is not None:
        depth, el = depth + 1, el.find("model")
    return depth


def test_a_thousand_nested_models_are_written_without_recursion(tmp_path):
    doc = _deep_document(1000, through_includes=False)
    for flatten in (False, True):
        text = to_string(doc, flatten=flatten)
        assert _model_depth(text) == 1000 and text.count('<link name="leaf"') == 1


def test_a_thousand_includes_deep_are_flattened_without_recursion(tmp_path):
    doc = _deep_document(1000, through_includes=True)
    assert _model_depth(to_string(doc, flatten=True)) == 1000
    modular = to_string(doc, flatten=False)
    assert modular.count("<include>") == 1 and _model_depth(modular) == 1
    # A document read from a file is flattened from copies of its elements.
    doc.extras["xml"] = etree.ElementTree(etree.Element("sdf", version="1.9"))
    assert _model_depth(to_string(doc, flatten=True)) == 1000
