"""Regression tests for the bugs a review of the composition engine found.  Each test states
the spec's (or libsdformat's) behaviour; the comments say what used to happen."""
import math, textwrap
from pathlib import Path
import pytest
from snapframe.core.loading import LoadContext, load
from snapframe.core.frames import FrameGraph
from snapframe.core.model.edits import Rename, SetPose, SetField, RemoveNode
from snapframe.core.pose import Pose
from snapframe.plugins.sdformat import writer


@pytest.fixture
def L(tmp_path):
    def _load(main, **files):
        for n, t in {**files, "main.sdf": main}.items():
            (tmp_path / n).write_text(textwrap.dedent(t).strip() + "\n")
        return load(tmp_path / "main.sdf", LoadContext(use_environment=False))
    _load.dir = tmp_path
    return _load

def codes(doc): return [str(d.code) for d in doc.diagnostics.errors]
def P(doc): return {f.name: f.pose for f in doc.frames.frames()}
def fresh(doc): return {f.name: f.pose for f in FrameGraph(doc).frames()}
def close(X, x, y, z, r=0, p=0, w=0): return X.almost_equal(Pose.from_xyz_rpy(x, y, z, r, p, w), 1e-9)

V = """<sdf version="1.9"><model name="v"><link name="c"/></model></sdf>"""

# 1 ------------------------------------------------------------------------------------------
def test_merge_include_with_unknown_placement_frame_is_a_diagnostic(L):
    doc = L("""<sdf version="1.9"><model name="top">
      <include merge="true"><uri>v.sdf</uri><placement_frame>nope</placement_frame>
        <pose>0 0 1 0 0 0</pose></include></model></sdf>""", **{"v.sdf": V})   # raises Unresolved today
    assert "POSE_RELATIVE_TO_INVALID" in codes(doc)

def test_scope_frame_prefixed_reference_is_invalid_not_a_crash(L):
    doc = L("""<sdf version="1.9"><model name="m">
      <link name="l"><pose relative_to="__model__::x">0 0 1 0 0 0</pose></link></model></sdf>""")
    assert codes(doc) == ["POSE_RELATIVE_TO_INVALID"]
    doc.frames.frames()          # KeyError: '__model__' (same with '::a' -> KeyError: '')

# 2 ------------------------------------------------------------------------------------------
def test_nested_edit_after_outer_edit_matches_a_fresh_graph(L):
    doc = L("""<sdf version="1.9"><world name="w">
      <model name="M"><link name="L"/><frame name="F" attached_to="L"><pose>0 0 1 0 0 0</pose></frame></model>
      <frame name="W"><pose relative_to="M::F">1 0 0 0 0 0</pose></frame></world></sdf>""")
    P(doc)
    M = doc.root.models[0]
    doc.commands.push(SetPose(doc, M, Pose.from_xyz_rpy(0, 5, 0)))
    doc.commands.push(SetPose(doc, M.frames[0], Pose.from_xyz_rpy(0, 0, 3)))
    assert P(doc)["W"].almost_equal(fresh(doc)["W"])          # (1,5,1) vs (1,5,3)

def test_include_added_frame_edit_propagates(L):
    doc = L("""<sdf version="1.9"><world name="w">
      <include><uri>a.sdf</uri><name>r</name>
        <frame name="extra" attached_to="l"><pose>0 0 5 0 0 0</pose></frame></include>
      <frame name="g" attached_to="r::extra"/></world></sdf>""",
      **{"a.sdf": """<sdf version="1.9"><model name="a"><link name="l"/></model></sdf>"""})
    P(doc)
    doc.commands.push(SetPose(doc, doc.root.includes[0].entities[0], Pose.from_xyz_rpy(0, 0, 7)))
    assert P(doc)["g"].almost_equal(fresh(doc)["g"])          # (0,0,5) vs (0,0,7)

def test_changing_an_include_uri_reloads_it(L):
    doc = L("""<sdf version="1.9"><world name="w"><include><uri>a.sdf</uri><name>r</name></include></world></sdf>""",
      **{"a.sdf": """<sdf version="1.9"><model name="a"><link name="l"/></model></sdf>""",
         "b.sdf": """<sdf version="1.9"><model name="b"><link name="other"/></model></sdf>"""})
    doc.commands.push(SetField(doc, doc.root.includes[0], "uri", "b.sdf"))
    writer.write(doc, L.dir / "saved.sdf")
    assert set(P(doc)) == set(P(load(L.dir / "saved.sdf", LoadContext(use_environment=False))))

# 3 ------------------------------------------------------------------------------------------
NESTED_MERGE = {"v.sdf": """<sdf version="1.9"><model name="v"><link name="c"/>
      <include><uri>w.sdf</uri><name>wheel</name></include>
      <model name="nm"><pose relative_to="__model__">0 1 0 0 0 0</pose><link name="x"/></model>
    </model></sdf>""", "w.sdf": """<sdf version="1.9"><model name="w"><link name="hub"/></model></sdf>"""}

def test_merged_nested_models_and_includes_follow_the_proxy(L):
    doc = L("""<sdf version="1.9"><model name="top">
      <include merge="true"><uri>v.sdf</uri><pose>10 0 0 0 0 0</pose></include></model></sdf>""", **NESTED_MERGE)
    p = P(doc)
    assert close(p["top::wheel"], 10, 0, 0)       # actual (0,0,0)
    assert close(p["top::nm"], 10, 1, 0)          # actual (0,1,0)

def test_merge_proxy_attaches_to_the_nested_canonical_link(L):
    doc = L("""<sdf version="1.9"><model name="top"><include merge="true"><uri>n.sdf</uri></include></model></sdf>""",
      **{"n.sdf": """<sdf version="1.9"><model name="n"><model name="A"><link name="a"/></model></model></sdf>"""})
    assert doc.frames.root.vertices["_merged__n__model__"].node.attached_to == "A::a"   # actual ''

def test_flattened_merge_include_keeps_the_include_pose(L):
    doc = L("""<sdf version="1.9"><model name="top"><link name="base"/>
      <include merge="true"><uri>v.sdf</uri><pose>100 0 0 0 0 0</pose></include></model></sdf>""", **{"v.sdf": V})
    writer.write(doc, L.dir / "flat.sdf", flatten=True)
    again = load(L.dir / "flat.sdf", LoadContext(use_environment=False))
    assert close(P(again)["top::c"], 100, 0, 0)   # actual (0,0,0)

# 4 ------------------------------------------------------------------------------------------
def test_failed_include_is_one_root_cause(L):
    doc = L("""<sdf version="1.9"><model name="top"><link name="base"/>
      <include><uri>missing.sdf</uri><name>arm</name></include>
      <frame name="tool" attached_to="arm::link"/>
      <joint name="j" type="fixed"><parent>base</parent><child>arm::link</child></joint>
      <model name="m"><pose relative_to="arm"/><link name="l"/></model></model></sdf>""")
    assert codes(doc) == ["URI_LOOKUP"]     # + FRAME_ATTACHED_TO_INVALID, JOINT_CHILD_LINK_INVALID, POSE_RELATIVE_TO_INVALID

def test_element_error_in_included_file_keeps_the_model(L):
    doc = L("""<sdf version="1.9"><world name="w">
      <include><uri>a.sdf</uri><name>r</name></include>
      <frame name="f"><pose relative_to="r::l"/></frame></world></sdf>""",
      **{"a.sdf": """<sdf version="1.9"><model name="a"><link name="l"><collision name="c">
         <geometry><box><size>1 1</size></box></geometry></collision></link></model></sdf>"""})
    assert codes(doc) == ["ELEMENT_INVALID"] and "r::l" in P(doc)

# 5 ------------------------------------------------------------------------------------------
def test_included_top_model_pose_cannot_refer_outside_its_file(L):
    doc = L("""<sdf version="1.9"><model name="top"><link name="base"/>
      <frame name="F"><pose>5 0 0 0 0 0</pose></frame><include><uri>w.sdf</uri></include></model></sdf>""",
      **{"w.sdf": """<sdf version="1.9"><model name="w"><pose relative_to="F">0 0 1 0 0 0</pose><link name="hub"/></model></sdf>"""})
    assert codes(doc)                     # loads cleanly today, w placed relative to top::F

# 6 ------------------------------------------------------------------------------------------
def test_rename_updates_references_from_enclosing_scopes(L):
    doc = L("""<sdf version="1.9"><model name="top"><link name="base"/>
      <model name="arm"><link name="tip"/></model>
      <frame name="tool" attached_to="arm::tip"/>
      <joint name="j" type="fixed"><parent>base</parent><child>arm::tip</child></joint></model></sdf>""")
    doc.commands.push(Rename(doc, doc.root.models[0].links[0], "end"))
    assert doc.root.frames[0].attached_to == "arm::end" and doc.root.joints[0].child_name == "arm::end"

def test_rename_leaves_include_added_frames_in_their_own_scope(L):
    doc = L("""<sdf version="1.9"><model name="top"><link name="base"/>
      <include><uri>a.sdf</uri><name>r</name><frame name="extra" attached_to="base"/></include></model></sdf>""",
      **{"a.sdf": """<sdf version="1.9"><model name="a"><link name="base"/></model></sdf>"""})
    doc.commands.push(Rename(doc, doc.root.links[0], "root"))
    assert doc.root.includes[0].entities[0].attached_to == "base"   # actual 'root'

# 7 ------------------------------------------------------------------------------------------
def test_writer_keeps_renamed_collision_relative_to_and_axis_expressed_in(L):
    doc = L("""<sdf version="1.9"><model name="top">
      <link name="base"><collision name="c"><pose relative_to="F"/><geometry><box><size>1 1 1</size></box></geometry></collision></link>
      <link name="l2"/><frame name="F"/>
      <joint name="j" type="revolute"><parent>base</parent><child>l2</child><axis><xyz expressed_in="F">1 0 0</xyz></axis></joint>
    </model></sdf>""")
    doc.commands.push(Rename(doc, doc.root.frames[0], "G"))
    writer.write(doc, L.dir / "saved.sdf")
    again = load(L.dir / "saved.sdf", LoadContext(use_environment=False))
    assert codes(again) == []             # JOINT_AXIS_EXPRESSED_IN_INVALID
    assert again.root.links[0].collisions[0].pose.relative_to == "G"   # still 'F'

def test_writer_removes_a_removed_include_added_frame(L):
    doc = L("""<sdf version="1.9"><world name="w"><include><uri>a.sdf</uri><name>r</name>
      <frame name="extra" attached_to="l"/></include></world></sdf>""",
      **{"a.sdf": """<sdf version="1.9"><model name="a"><link name="l"/></model></sdf>"""})
    doc.commands.push(RemoveNode(doc, doc.root.includes[0].entities[0]))
    writer.write(doc, L.dir / "saved.sdf")
    assert "r::extra" not in P(load(L.dir / "saved.sdf", LoadContext(use_environment=False)))

def test_writer_keeps_entity_order_after_undo(L):
    doc = L("""<sdf version="1.9"><model name="m"><link name="A"/><link name="B"/>
      <joint name="j" type="revolute"><parent>__model__</parent><child>B</child></joint></model></sdf>""")
    A = doc.root.links[0]
    doc.commands.push(RemoveNode(doc, A)); writer.write(doc, L.dir / "s.sdf")
    doc.commands.undo(); writer.write(doc, L.dir / "s.sdf")
    assert codes(load(L.dir / "s.sdf", LoadContext(use_environment=False))) == []   # JOINT_PARENT_SAME_AS_CHILD

# 8 ------------------------------------------------------------------------------------------
def test_pre_1_7_world_frame_is_the_one_renamed(L):
    doc = L("""<sdf version="1.6"><world name="w"><frame name="ground"/>
      <model name="ground"><link name="l"/></model></world></sdf>""")
    assert {"ground", "ground_frame"} <= set(P(doc))     # actual: ground (frame), ground_model

def test_pre_1_7_world_include_frame_collision_is_renamed_not_an_error(L):
    doc = L("""<sdf version="1.6"><world name="w"><include><uri>a.sdf</uri><name>ground</name></include>
      <frame name="ground"/></world></sdf>""", **{"a.sdf": """<sdf version="1.6"><model name="a"><link name="l"/></model></sdf>"""})
    assert codes(doc) == []                               # DUPLICATE_NAME today

def test_collision_pose_relative_to_is_checked(L):
    doc = L("""<sdf version="1.9"><model name="m"><link name="l"><collision name="c">
      <pose relative_to="no_such_frame"/><geometry><box><size>1 1 1</size></box></geometry></collision></link></model></sdf>""")
    assert "POSE_RELATIVE_TO_INVALID" in codes(doc)

def test_trailing_separator_reference_is_invalid(L):
    doc = L("""<sdf version="1.9"><model name="top"><link name="base"/>
      <model name="M"><link name="l"/></model><frame name="f" attached_to="M::"/></model></sdf>""")
    assert "FRAME_ATTACHED_TO_INVALID" in codes(doc)       # accepted as 'M' today

def test_unchanged_save_keeps_unparsable_pose_text(L):
    doc = L("""<sdf version="1.9"><model name="m"><link name="l"><pose>1 2 3 0 0 O</pose></link></model></sdf>""")
    writer.write(doc, L.dir / "saved.sdf")
    assert "1 2 3 0 0 O" in (L.dir / "saved.sdf").read_text()   # replaced by '0 0 0 0 0 0'
