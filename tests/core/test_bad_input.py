"""Bad input gives diagnostics with file and line, never a crash or a hang."""

from tests.conftest import codes


def test_malformed_xml(load_text):
    doc = load_text("<sdf version='1.8'><model name='m'><link name='l'></model></sdf>")
    assert codes(doc) == ["FILE_READ"]
    assert doc.diagnostics.errors[0].line == 1


def test_entities_are_not_expanded(load_text):
    bomb = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
<!ENTITY ext SYSTEM "file:///etc/passwd">]>
<sdf version="1.8"><model name="m"><link name="l"/><frame name="&lol3;"/><frame name="x&ext;"/></model></sdf>"""
    doc = load_text(bomb)
    assert codes(doc) == ["FILE_READ"] and doc.root is None
    assert doc.diagnostics.errors[0].line == 2 and "<!ENTITY>" in doc.diagnostics.errors[0].message
    # An internal entity used only in an attribute value is refused too (libxml2 would
    # substitute it even with entity resolution off).
    doc = load_text("""<?xml version="1.0"?><!DOCTYPE s [<!ENTITY n "expanded">]>
<sdf version="1.8"><model name="&n;"><link name="l"/></model></sdf>""")
    assert codes(doc) == ["FILE_READ"] and doc.root is None


def test_missing_include_and_cycle(load_text):
    doc = load_text("""
        <sdf version="1.8"><model name="m"><link name="l"/>
          <include><uri>missing_model</uri></include></model></sdf>""")
    assert codes(doc) == ["URI_LOOKUP"]
    assert doc.diagnostics.errors[0].line == 2
    doc = load_text("""<sdf version="1.8"><model name="a"><link name="l"/>
          <include><uri>b.sdf</uri></include></model></sdf>""", name="a.sdf",
                    files={"b.sdf": """<sdf version="1.8"><model name="b"><link name="l"/>
          <include><uri>a.sdf</uri></include></model></sdf>"""})
    assert "INCLUDE_CYCLE" in codes(doc)


def test_model_directory_without_config(load_text):
    doc = load_text("""<sdf version="1.8"><world name="w">
          <include><uri>box</uri></include></world></sdf>""",
                    files={"box/model.sdf": "<sdf version='1.8'><model name='box'><link name='l'/></model></sdf>"})
    assert codes(doc) == ["FILE_READ", "URI_LOOKUP"]


def test_model_directory_picks_newest_supported_sdf(load_text):
    doc = load_text("""<sdf version="1.8"><world name="w">
          <include><uri>model://box</uri></include></world></sdf>""",
                    files={"box/model.config": """<model><name>box</name>
                            <sdf version="1.6">old.sdf</sdf><sdf version="1.8">new.sdf</sdf>
                            <sdf version="9.0">future.sdf</sdf></model>""",
                           "box/new.sdf": "<sdf version='1.8'><model name='newbox'><link name='l'/></model></sdf>",
                           "box/old.sdf": "<sdf version='1.6'><model name='oldbox'><link name='l'/></model></sdf>"})
    assert codes(doc) == [] and doc.includes()[0].effective_name == "newbox"


def test_names_reserved_duplicate_and_delimiter(load_text):
    doc = load_text("""<sdf version="1.8"><model name="m">
          <link name="__bad__"/><link name="world"/><link name="a::b"/>
          <link name="l"/><link name="l"/><frame name="l"/></model></sdf>""")
    assert codes(doc) == ["RESERVED_NAME"] * 3 + ["DUPLICATE_NAME"] * 2


def test_cycles_are_reported_once(load_text):
    doc = load_text("""<sdf version="1.8"><model name="M"><link name="L"/>
          <frame name="F1" attached_to="F2"/><frame name="F2" attached_to="F1"/>
          <frame name="P1"><pose relative_to="P2"/></frame>
          <frame name="P2"><pose relative_to="P1"/></frame>
          <frame name="self" attached_to="self"/></model></sdf>""")
    # One report per cycle: F1<->F2 (attached_to; the relative_to cycle it implies is not a
    # second root cause), P1<->P2 (relative_to), self (attached_to itself).
    assert codes(doc) == ["FRAME_ATTACHED_TO_CYCLE", "FRAME_ATTACHED_TO_CYCLE",
                          "POSE_RELATIVE_TO_CYCLE"]
    assert sorted(d.line for d in doc.diagnostics.errors) == [2, 3, 5]


def test_joint_errors(load_text):
    doc = load_text("""<sdf version="1.8"><model name="M"><link name="A"/><link name="B"/>
          <frame name="FA" attached_to="A"/>
          <joint name="j1" type="fixed"><parent>A</parent><child>world</child></joint>
          <joint name="j2" type="fixed"><parent>FA</parent><child>A</child></joint>
          <joint name="j3" type="fixed"><parent>A</parent><child>nope</child></joint>
          <joint name="j4" type="fixed"><parent>B</parent><child>B</child></joint></model></sdf>""")
    assert codes(doc) == ["JOINT_CHILD_LINK_INVALID", "JOINT_PARENT_SAME_AS_CHILD",
                          "JOINT_CHILD_LINK_INVALID", "JOINT_PARENT_SAME_AS_CHILD"]


def test_canonical_link_and_model_without_link(load_text):
    doc = load_text("""<sdf version="1.8"><model name="M" canonical_link="nope"><link name="L"/>
          <model name="empty"><frame name="f"/></model></model></sdf>""")
    assert codes(doc) == ["MODEL_CANONICAL_LINK_INVALID", "MODEL_WITHOUT_LINK"]


def test_placement_frame_errors(load_text):
    child = "<sdf version='1.8'><model name='c'><link name='l'/></model></sdf>"
    doc = load_text("""<sdf version="1.8"><model name="M"><link name="L"/>
          <include><uri>c.sdf</uri><placement_frame>l</placement_frame></include>
          <include><uri>c.sdf</uri><name>c2</name><placement_frame>zz</placement_frame><pose/></include>
          </model></sdf>""", files={"c.sdf": child})
    assert codes(doc) == ["MODEL_PLACEMENT_FRAME_INVALID", "POSE_RELATIVE_TO_INVALID"]


def test_empty_sdf_is_accepted_as_libsdformat_does(load_text):
    doc = load_text('<sdf version="1.8"></sdf>')
    assert codes(doc) == []


def _frames(n: int, fmt: str) -> str:
    return ('<sdf version="1.8"><model name="m"><link name="l"/>'
            + "".join(fmt.format(i=i, j=(i + 1) % n, k=i - 1) for i in range(n)) + "</model></sdf>")


def test_long_chains_and_cycles_neither_overflow_nor_cascade(load_text):
    # 4000 frames, each attached to and posed relative to the previous one.
    chain = _frames(4000, '<frame name="f{i}" attached_to="{prev}"><pose relative_to="{prev}">'
                          '0 0 0.001 0 0 0</pose></frame>'.replace("{prev}", "f{k}"))
    chain = chain.replace('attached_to="f-1"', 'attached_to="l"').replace('relative_to="f-1"',
                                                                          'relative_to="l"')
    doc = load_text(chain)
    assert codes(doc) == []
    assert abs(doc.frames.pose("m::f3999").p[2] - 4.0) < 1e-9
    # One 4000-frame attached_to cycle, one 4000-frame relative_to cycle: one report each.
    doc = load_text(_frames(4000, '<frame name="f{i}" attached_to="f{j}"/>'))
    assert codes(doc) == ["FRAME_ATTACHED_TO_CYCLE"]
    assert "(4000 frames in all)" in doc.diagnostics.errors[0].message
    doc = load_text(_frames(4000, '<frame name="f{i}"><pose relative_to="f{j}"/></frame>'))
    assert codes(doc) == ["POSE_RELATIVE_TO_CYCLE"]


def test_include_chain_deeper_than_the_limit(load_text):
    from snapframe.core.loading import MAX_INCLUDE_DEPTH
    n = MAX_INCLUDE_DEPTH + 20
    files = {f"i{i}.sdf": f'<sdf version="1.8"><model name="m{i}"><link name="l"/>'
             + (f"<include><uri>i{i + 1}.sdf</uri></include>" if i < n else "")
             + "</model></sdf>" for i in range(1, n + 1)}
    doc = load_text('<sdf version="1.8"><model name="m0"><link name="l"/>'
                    '<include><uri>i1.sdf</uri></include></model></sdf>', files=files)
    assert codes(doc) == ["FILE_READ"] and "more than 100 levels" in doc.diagnostics.errors[0].message


def test_undeclared_namespace_prefix_is_a_warning_and_kept(load_text, tmp_path):
    doc = load_text("""<sdf version="1.11"><model name="m"><link name="l">
        <inertial auto="true"><auto_inertia_params><gz:voxel_size>0.01</gz:voxel_size>
        </auto_inertia_params></inertial>
        <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
        </link></model></sdf>""")
    assert codes(doc) == [] and [str(d.code) for d in doc.diagnostics.warnings] == ["WARNING"]
    from snapframe.plugins.sdformat.writer import to_string
    assert "<gz:voxel_size>0.01</gz:voxel_size>" in to_string(doc)
