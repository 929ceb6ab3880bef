"""An SDFormat save keeps what the document does not model (world plugins, lights, a
<link> where the reader models none), writes every world of a file, writes the SDFormat a
URDF's <gazebo> extensions stand for, and refuses (or warns about) files too deep for
their readers.  Expected values come from the SDFormat spec, libsdformat 12.3 (the oracle,
tests/oracle/; its URDF conversion in tests/data/sdformat_real/golden/urdf_conversion.json)
and the real files of tests/data/sdformat_real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Plugin
from snapframe.plugins.nesting import NestingTooDeep
from snapframe.plugins.sdformat.writer import (LIBSDFORMAT_MAX_XML_DEPTH,
                                               SNAPFRAME_MAX_XML_DEPTH, write)
from tests.plugins.composite_assemblies import oracle_binary, run_oracle

REAL = Path(__file__).resolve().parents[2] / "data" / "sdformat_real"
SHAPES_BITMASK = REAL / "gz-sim" / "examples" / "worlds" / "shapes_bitmask.sdf"
INTEGRATION = REAL / "sdformat" / "test" / "integration"
CONVERSION = json.loads((REAL / "golden" / "urdf_conversion.json").read_text())["files"]
WORLD_PLUGINS = ["gz::sim::systems::Physics", "gz::sim::systems::UserCommands",
                 "gz::sim::systems::SceneBroadcaster"]


def _load(path: Path):
    doc = load(path, LoadContext(search_paths=[path.parent], use_environment=False))
    assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics.errors]
    return doc


def _oracle():
    binary, why = oracle_binary()
    if binary is None:
        pytest.skip(why)
    return binary


def _children(path: Path, xpath: str) -> list[str]:
    return [f"{c.tag}:{c.get('name', '')}" for c in etree.parse(str(path)).getroot().find(xpath)
            if isinstance(c.tag, str)]


# -- bug 1: world plugins, and any world child the reader does not model ------------------
@pytest.mark.parametrize("flatten", [False, True])
def test_world_plugins_survive_every_sdformat_save(tmp_path, flatten):
    doc = _load(SHAPES_BITMASK)
    assert [n.name for n in doc.root.entities if isinstance(n, Plugin)] == WORLD_PLUGINS
    warnings = doc.save(tmp_path / "out.sdf", flatten=flatten)
    assert warnings == []
    # Every child of the world; a modular save keeps their order too (the scene and the
    # light between the plugins and the models stay where they were).
    written, original = _children(tmp_path / "out.sdf", "world"), _children(SHAPES_BITMASK, "world")
    assert (written if not flatten else sorted(written)) == \
        (original if not flatten else sorted(original))
    back = _load(tmp_path / "out.sdf")
    assert [n.name for n in back.root.entities if isinstance(n, Plugin)] == WORLD_PLUGINS
    if not flatten:   # a faithful save: the file is the document again, nothing unsaved
        assert doc.path == str(tmp_path / "out.sdf") and doc.commands.is_clean


def test_world_children_the_reader_does_not_model_round_trip(tmp_path):
    src = tmp_path / "w.sdf"
    src.write_text("""<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w">
    <plugin filename="gz-sim-physics-system" name="gz::sim::systems::Physics"><x>1</x></plugin>
    <light name="sun" type="directional"><direction>0 0 -1</direction></light>
    <link name="stray"/>
    <model name="m"><link name="l"/></model>
    <include><uri>part.sdf</uri><name>p</name><link name="odd"/></include>
  </world>
</sdf>
""")
    (tmp_path / "part.sdf").write_text('<?xml version="1.0"?>\n<sdf version="1.9">'
                                        '<model name="part"><link name="b"/></model></sdf>\n')
    doc = load(src, LoadContext(search_paths=[tmp_path], use_environment=False))
    doc.save(tmp_path / "out.sdf", flatten=False)
    out = etree.parse(str(tmp_path / "out.sdf")).getroot()
    assert [c.tag for c in out.find("world") if isinstance(c.tag, str)] == \
        ["plugin", "light", "link", "model", "include"]
    assert out.find("world/plugin/x").text == "1"
    assert out.find("world/include/link").get("name") == "odd"


def test_a_deleted_world_plugin_is_not_written(tmp_path):
    # The plugins are nodes now: the writer makes the world's plugins be the document's.
    doc = _load(SHAPES_BITMASK)
    doc.root.entities = [e for e in doc.root.entities
                         if not (isinstance(e, Plugin) and e.name.endswith("UserCommands"))]
    write(doc, tmp_path / "out.sdf")
    names = [p.get("name") for p in etree.parse(str(tmp_path / "out.sdf")).iter("plugin")]
    assert names == [WORLD_PLUGINS[0], WORLD_PLUGINS[2]]


# -- bug 5a: every world of a multi-world file ----------------------------------------------
def test_flattening_writes_every_world_of_the_file(tmp_path):
    src = REAL / "handmade" / "two_worlds.sdf"
    doc = _load(src)
    assert doc.save(tmp_path / "flat.sdf", flatten=True) == []
    back = _load(tmp_path / "flat.sdf")
    [second] = back.extras["other_worlds"]
    assert (back.root.name, second.root.name) == ("first", "second")
    # The second world's frames as the original file gives them (see test_real_files).
    original = {f.name: f.pose for f in doc.extras["other_worlds"][0].frames.frames()}
    written = {f.name: f.pose for f in second.frames.frames()}
    assert set(written) == set(original) == {"box", "box::link", "F"}
    for name, X in original.items():
        assert written[name].almost_equal(X, 1e-12), name


# -- bug 5c: URDF <gazebo reference="joint"> extensions become SDFormat ---------------------
EXTENSION_PATHS = ("physics/provide_feedback", "physics/ode/provide_feedback",
                   "physics/ode/implicit_spring_damper", "physics/ode/cfm_damping",
                   "physics/ode/fudge_factor", "physics/ode/limit/cfm", "physics/ode/limit/erp",
                   "axis/dynamics/spring_reference", "axis/dynamics/spring_stiffness")
#: SDFormat 1.9's defaults of these (sdformat12's joint.sdf): libsdformat writes them when
#: it writes any value of the element; an absent element means the same.
SPEC_DEFAULTS = {"physics/ode/limit/cfm": 0.0, "physics/ode/limit/erp": 0.2,
                 "axis/dynamics/spring_reference": 0.0, "axis/dynamics/spring_stiffness": 0.0}


def _value(text: str):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    return float(text)


@pytest.mark.parametrize("rel", sorted(CONVERSION))
def test_urdf_joint_extensions_are_written_as_libsdformat_converts_them(tmp_path, rel):
    doc = _load(REAL / rel)
    assert doc.save(tmp_path / "out.sdf", flatten=False) == []
    joints = {j.get("name"): j for j in etree.parse(str(tmp_path / "out.sdf")).iter("joint")}
    checked = 0
    for name, facts in CONVERSION[rel].items():
        for path in EXTENSION_PATHS:
            el = joints[name].find(path)
            theirs = facts.get(path)
            if theirs is None:
                assert el is None, (name, path)
                continue
            ours = _value(el.text) if el is not None else SPEC_DEFAULTS[path]
            assert ours == pytest.approx(_value(theirs), abs=1e-12), (name, path)
            checked += 1
    assert checked >= 2


def test_urdf_joint_extensions_written_as_sdformat_load_in_libsdformat(tmp_path):
    oracle = _oracle()
    src = INTEGRATION / "cfm_damping_implicit_spring_damper.urdf"
    doc = _load(src)
    doc.save(tmp_path / "out.sdf", flatten=False)
    joints = {j.get("name"): j for j in etree.parse(str(tmp_path / "out.sdf")).iter("joint")}
    for name in ("joint01", "joint13"):   # cfmDamping / implicitSpringDamper true
        assert joints[name].find("physics/ode/implicit_spring_damper").text == "true"
        assert joints[name].find("physics/ode/cfm_damping").text == "true"
    assert joints["joint12"].find("physics") is None
    assert run_oracle(oracle, tmp_path / "out.sdf")["errors"] == []


def test_urdf_link_and_robot_extensions_are_written_as_libsdformat_converts_them(tmp_path):
    # Expected: libsdformat 12.3's sdf::readFile of this file (unnamed visual and
    # collision, which its parser matches by name): surface values on the collision,
    # the Gazebo material script and the <visual> blob on the visual, gravity, sensors and
    # blobs on the link, <static> and plugins on the model; joint <dynamics> damping and
    # friction in //axis/dynamics.
    src = tmp_path / "r.urdf"
    src.write_text("""<robot name="r">
  <gazebo><static>true</static><plugin name="p" filename="libp.so"><x>1</x></plugin></gazebo>
  <link name="a">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <visual><geometry><box size="1 1 1"/></geometry></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
  </link>
  <link name="b">
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
  </link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/><dynamics damping="0.5" friction="0.25"/>
  </joint>
  <gazebo reference="a">
    <material>Gazebo/Red</material>
    <mu1>0.3</mu1><kp>1000</kp><maxContacts>5</maxContacts><laserRetro>2</laserRetro>
    <fdir1>1 0 0</fdir1><gravity>0</gravity><dampingFactor>0.1</dampingFactor>
    <visual><transparency>0.5</transparency></visual>
    <collision><surface><bounce><restitution_coefficient>0.5</restitution_coefficient></bounce></surface></collision>
    <sensor name="cam" type="camera"><camera><horizontal_fov>1</horizontal_fov></camera></sensor>
    <enable_wind>true</enable_wind>
  </gazebo>
  <gazebo reference="b"><turnGravityOff>true</turnGravityOff></gazebo>
</robot>
""")
    doc = load(src, LoadContext(use_environment=False))
    doc.save(tmp_path / "out.sdf", flatten=False)
    model = etree.parse(str(tmp_path / "out.sdf")).getroot().find("model")
    text = lambda path: " ".join(model.find(path).text.split())   # noqa: E731
    assert text("link[@name='a']/collision/surface/friction/ode/mu") == "0.3"
    assert text("link[@name='a']/collision/surface/friction/ode/fdir1") == "1 0 0"
    assert text("link[@name='a']/collision/surface/contact/ode/kp") == "1000"
    assert text("link[@name='a']/collision/surface/bounce/restitution_coefficient") == "0.5"
    assert text("link[@name='a']/collision/max_contacts") == "5"
    assert text("link[@name='a']/collision/laser_retro") == "2"
    assert text("link[@name='a']/visual/material/script/name") == "Gazebo/Red"
    assert text("link[@name='a']/visual/material/script/uri") == \
        "file://media/materials/scripts/gazebo.material"
    assert text("link[@name='a']/visual/transparency") == "0.5"
    assert text("link[@name='a']/gravity") == "false"
    assert text("link[@name='a']/enable_wind") == "true"
    assert text("link[@name='a']/velocity_decay/linear") == "0.1"
    assert text("link[@name='a']/velocity_decay/angular") == "0.1"
    assert model.find("link[@name='a']/sensor").get("name") == "cam"
    assert text("link[@name='b']/gravity") == "false"
    assert text("joint[@name='j']/axis/dynamics/damping") == "0.5"
    assert text("joint[@name='j']/axis/dynamics/friction") == "0.25"
    assert text("static") == "true"
    assert model.find("plugin").get("name") == "p" and text("plugin/x") == "1"


def test_urdf_content_sdformat_cannot_hold_is_reported(tmp_path):
    src = tmp_path / "r.urdf"
    src.write_text("""<robot name="r"><link name="a"/><link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/><mimic joint="j" multiplier="2"/></joint>
  <transmission name="t"><type>x</type></transmission></robot>""")
    doc = load(src, LoadContext(use_environment=False))
    warnings = [w.message for w in doc.save(tmp_path / "out.sdf", flatten=False)]
    assert any("<transmission name=\"t\">" in w and "SDFormat" in w for w in warnings)
    assert any("<mimic> of joint [j]" in w for w in warnings)


# -- bug 4: files too deep for their readers ------------------------------------------------
def _chain(folder: Path, files: int, per_file: int) -> Path:
    """``files`` files, each ``per_file`` nested models deep, each including the next
    (tests/review: the modular files load in libsdformat, the flattened one cannot)."""
    for f in range(files):
        body = "".join(f'<model name="m{i}"><link name="l{i}"/>' for i in range(per_file))
        if f < files - 1:
            body += f"<include><uri>f{f + 1}.sdf</uri><name>inc</name></include>"
        body += "</model>" * per_file
        (folder / f"f{f}.sdf").write_text(f'<?xml version="1.0"?>\n<sdf version="1.9">{body}'
                                          "</sdf>\n")
    return folder / "f0.sdf"


def test_a_flattened_file_snapframe_could_not_open_is_refused(tmp_path):
    doc = _load(_chain(tmp_path, 60, 5))          # 300 nested models
    out = tmp_path / "out" / "flat.sdf"
    out.parent.mkdir()
    with pytest.raises(NestingTooDeep, match="save it modular"):
        doc.save(out, flatten=True)
    assert not out.exists()
    assert doc.save(tmp_path / "out" / "f0.sdf", flatten=False) == []   # modular: fine


def test_a_flattened_file_libsdformat_refuses_is_written_with_a_warning(tmp_path):
    doc = _load(_chain(tmp_path, 20, 5))          # 100 nested models: 102 levels of XML
    warnings = doc.save(tmp_path / "flat.sdf", flatten=True)
    assert [w.code for w in warnings] == [Code.CONVERSION_ERROR]
    assert "libsdformat 12" in warnings[0].message and "modular" in warnings[0].message
    back = _load(tmp_path / "flat.sdf")            # Snapframe opens it
    assert len([f for f in back.frames.frames() if f.kind == "link"]) == 100


@pytest.mark.parametrize("models, loads", [(97, True), (98, False)])
def test_the_libsdformat_depth_limit_is_the_one_measured(tmp_path, models, loads):
    # 97 nested models holding an empty link: <sdf> + 97 + <link> = 99 levels.
    assert 1 + models + 1 == LIBSDFORMAT_MAX_XML_DEPTH + (0 if loads else 1)
    oracle = _oracle()
    path = tmp_path / "deep.sdf"
    body = "".join(f'<model name="m{i}"><link name="l{i}"/>' for i in range(models))
    path.write_text(f'<?xml version="1.0"?>\n<sdf version="1.9">{body}{"</model>" * models}'
                    "</sdf>\n")
    result = run_oracle(oracle, path)
    assert (result["errors"] == []) is loads
    # Snapframe's own limit (libxml2) is far above it.
    assert _load(path) and SNAPFRAME_MAX_XML_DEPTH == 256


def test_the_snapframe_depth_limit_is_the_one_its_reader_has(tmp_path):
    for models, opens in ((254, True), (255, False)):   # <sdf> + models + <link>
        path = tmp_path / f"deep{models}.sdf"
        body = "".join(f'<model name="m{i}"><link name="l{i}"/>' for i in range(models))
        path.write_text(f'<?xml version="1.0"?>\n<sdf version="1.9">{body}'
                        f'{"</model>" * models}</sdf>\n')
        doc = load(path, LoadContext(use_environment=False))
        assert (not doc.diagnostics.has_errors()) is opens
        assert (2 + models <= SNAPFRAME_MAX_XML_DEPTH) is opens
