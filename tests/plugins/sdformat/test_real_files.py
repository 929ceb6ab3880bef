"""Files nobody on this project wrote (libsdformat's and gz-sim's), read as libsdformat 12.3
reads them.  Expected answers are libsdformat's own (tests/data/sdformat_real/golden/,
recorded with the oracle) or hand derivations; see tests/data/sdformat_real/README.md."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code
from snapframe.core.loading import LoadContext, load
from snapframe.core.pose import Pose, quat_distance

REAL = Path(__file__).resolve().parents[2] / "data" / "sdformat_real"
MODELS = REAL / "sdformat" / "test" / "integration" / "model"
MANIFEST = json.loads((REAL / "golden" / "MANIFEST.json").read_text())["files"]
#: Where Snapframe answers differently on purpose (README.md, last table).
DELIBERATE = {"handmade/underscore_in_number.sdf": ["ELEMENT_INVALID"]}


def load_real(rel: str):
    """Load with the search path the oracle used (and, like it, the file's own folder)."""
    path = REAL / rel
    return load(path, LoadContext(search_paths=[MODELS, path.parent], use_environment=False))


def errors(doc) -> list[str]:
    return list(dict.fromkeys(str(d.code) for d in doc.diagnostics.errors))


def warnings(doc) -> list:
    return [d for d in doc.diagnostics.warnings]


# -- every file: accepted or refused as libsdformat 12.3 does, with its codes -----------
@pytest.mark.parametrize("rel", sorted(MANIFEST))
def test_accepted_or_refused_with_libsdformats_codes(rel):
    expected = DELIBERATE.get(rel, MANIFEST[rel]["root_error_codes"])
    assert errors(load_real(rel)) == expected


@pytest.mark.parametrize("rel", sorted(r for r, e in MANIFEST.items() if e["accepted"]))
def test_frames_of_accepted_files_agree_with_libsdformat(rel):
    golden = json.loads((REAL / "golden" / MANIFEST[rel]["golden"]).read_text())["frames"]
    doc = load_real(rel)
    ours = {f.name: f for f in doc.frames.frames()} if doc.root is not None else {}
    for name, g in golden.items():
        assert name in ours, name
        assert ours[name].kind == g["kind"], name
        mine = ours[name].pose
        assert max(abs(a - b) for a, b in zip(mine.p, g["pose"][:3])) < 1e-6, name
        assert quat_distance(mine.quat(), g["pose"][3:]) < 1e-6, name
    extra = set(ours) - set(golden)
    if rel.endswith(".urdf"):
        # libsdformat lumps the child link of a fixed joint into its parent; Snapframe keeps
        # every link (and its fixed joint), so only those may be extra.
        fixed = {f"{doc.root.name}::{j.name}" for j in doc.root.joints if j.type == "fixed"}
        fixed |= {f"{doc.root.name}::{j.child_name}" for j in doc.root.joints if j.type == "fixed"}
        extra -= fixed
    assert extra == set()


# -- XML that TinyXML2 reads ------------------------------------------------------------------
@pytest.mark.parametrize("world", ["default.sdf", "empty.sdf"])
def test_gz_sim_stock_worlds_with_double_hyphen_comments_load_without_errors(world):
    doc = load_real(f"gz-sim/examples/worlds/{world}")
    assert doc.diagnostics.errors == []
    [note] = warnings(doc)
    assert note.code == Code.WARNING and "'--'" in note.message
    assert doc.root.name == "default" if world == "default.sdf" else doc.root.name == "empty"


def test_whitespace_before_the_declaration():
    doc = load_real("handmade/whitespace_before_declaration.sdf")
    assert doc.diagnostics.errors == [] and [w.line for w in warnings(doc)] == [2]
    assert doc.root.links[0].source.line == 6  # line numbers are those of the file


@pytest.mark.parametrize("rel", ["sdformat/test/sdf/invalid_xml_syntax.sdf",
                                 "sdformat/test/sdf/empty_invalid.sdf"])
def test_unreadable_files_are_file_read_errors_naming_the_file(rel):
    [error] = load_real(rel).diagnostics.errors
    assert error.code == Code.FILE_READ and str(REAL / rel) in error.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_a_file_read_error_naming_the_file(tmp_path):
    from snapframe.plugins.sdformat.reader import read
    fifo = tmp_path / "world.sdf"
    os.mkfifo(fifo)
    [error] = read(fifo, LoadContext(use_environment=False)).diagnostics.errors
    assert error.code == Code.FILE_READ and str(fifo) in error.message
    assert "FIFO" in error.message and error.file == str(fifo)


# -- what Root::Load reports outside frame semantics -----------------------------------------
def test_material_scripts_without_uri_or_name():
    doc = load_real("sdformat/test/sdf/material_script_no_uri.sdf")
    found = [(d.code, d.message.split(",")[0]) for d in doc.diagnostics.errors]
    assert found == [
        (Code.ELEMENT_INVALID, "A <script> element is missing a child <uri> element"),
        (Code.ELEMENT_MISSING, "A <script> element is missing a child <name> element"),
        (Code.ELEMENT_INVALID, "The value[invalid] for a <shader><type> element is not supported")]


def test_values_below_the_minimum_of_their_description():
    doc = load_real("handmade/value_below_minimum.sdf")
    messages = [d.message for d in doc.diagnostics.errors]
    assert len(messages) == 2
    assert messages[0].startswith("Error reading element <mu>: the value [-0.5] is less than "
                                  "the minimum allowed value of [0.0]")
    assert "<horizontal_fov>" in messages[1] and "[0.1]" in messages[1]


def test_a_sensor_type_newer_than_the_files_version():
    doc = load_real("gz-sim/examples/worlds/sensors.sdf")  # SDFormat 1.6, air_speed is 1.10
    [error] = doc.diagnostics.errors
    assert error.code == Code.ATTRIBUTE_INVALID and "air_speed" in error.message
    assert "1.10" in error.message and "1.6" in error.message
    assert error.line == 156


@pytest.mark.parametrize("rel,message", [
    ("model_actor_light/model.sdf", "Skipping this light."),
    ("multiple_actors/model.sdf", "Root object can only contain one actor."),
    ("multiple_lights/model.sdf", "Root object can only contain one light."),
    ("multiple_models/model.sdf", "Root object can only contain one model."),
])
def test_more_than_one_model_light_or_actor_at_the_root(rel, message):
    doc = load_real(f"sdformat/test/integration/model/{rel}")
    assert {d.code for d in doc.diagnostics.errors} == {Code.ELEMENT_INCORRECT_TYPE}
    assert any(message in d.message for d in doc.diagnostics.errors)


def test_two_root_models_with_one_name():
    doc = load_real("sdformat/test/sdf/root_duplicate_models.sdf")
    [error] = doc.diagnostics.errors
    assert error.code == Code.DUPLICATE_NAME and error.message == \
        "model with name[robot1] already exists."


@pytest.mark.parametrize("rel,tag", [("sdformat/test/sdf/bad_syntax_double.sdf", "linear"),
                                     ("sdformat/test/sdf/bad_syntax_vector.sdf", "gravity"),
                                     ("handmade/arabic_indic_digits.sdf", "mass"),
                                     ("handmade/underscore_in_number.sdf", "mass")])
def test_text_where_a_number_is_required(rel, tag):
    doc = load_real(rel)
    [error] = doc.diagnostics.errors  # reported once, by the spec check
    assert error.code == Code.ELEMENT_INVALID
    assert error.message.startswith(f"Error reading element <{tag}>")


def test_two_worlds_with_one_name():
    doc = load_real("sdformat/test/sdf/world_duplicate.sdf")
    [error] = doc.diagnostics.errors
    assert error.code == Code.DUPLICATE_NAME and error.message.startswith(
        "World with name[default] already exists. Each world must have a unique name.")
    assert len(doc.extras["other_worlds"]) == 1  # the second world is read all the same


# -- wrongly refused or incomplete before -----------------------------------------------------
@pytest.mark.parametrize("rel", ["sdformat/test/sdf/includes.sdf",
                                 "sdformat/test/sdf/includes_1.5.sdf",
                                 "sdformat/test/sdf/whitespace.sdf"])
def test_world_includes_of_a_light_and_an_actor(rel):
    doc = load_real(rel)
    assert doc.diagnostics.errors == []
    kinds = sorted(i.extras.get("included_element", "model") for i in doc.includes())
    assert "light" in kinds and "actor" in kinds
    for inc in doc.includes():
        if inc.extras.get("included_element"):
            assert inc.model is None and inc.resolved_path.endswith("model.sdf")


@pytest.mark.parametrize("rel", ["sdformat/test/integration/partially_flattened.sdf",
                                 "sdformat/test/sdf/flattened_test_nested_model_with_frames.sdf"])
def test_sdformat_1_7_flattened_names_become_nested_models(rel):
    doc = load_real(rel)
    assert doc.diagnostics.errors == []
    assert any("flattened names" in w.message for w in warnings(doc))
    names = {f.name for f in doc.frames.frames()}
    model = "ParentModel" if "partially" in rel else "test_nested_model_with_frames"
    nested = "M1" if "partially" in rel else "test_model_with_frames"
    assert f"{model}::{nested}" in names and f"{model}::{nested}::L1" in names


def test_infinite_joint_limits():
    doc = load_real("sdformat/test/sdf/joint_axis_infinite_limits.sdf")
    assert doc.diagnostics.errors == []
    limits = [(a.lower, a.upper) for j in doc.root.joints for a in j.axes]
    assert (-math.inf, math.inf) in limits


def test_an_empty_sdf_root_is_valid():
    doc = load_real("sdformat/test/integration/model/model_without_top_level/model.sdf")
    assert doc.diagnostics.errors == [] and doc.root is None


def test_every_world_of_a_file_is_read_and_resolved():
    doc = load_real("handmade/two_worlds.sdf")
    assert doc.diagnostics.errors == [] and doc.root.name == "first"
    [second] = doc.extras["other_worlds"]
    assert second.root.name == "second"
    frames = {f.name: f for f in second.frames.frames()}
    assert set(frames) == {"box", "box::link", "F"}
    # Hand derivation: box at (0, 2, 0) turned 90 degrees about z; its link 3 m above it.
    X_WB = Pose.from_xyz_rpy(0, 2, 0, 0, 0, math.pi / 2)
    assert frames["box"].pose.almost_equal(X_WB, 1e-12)
    assert frames["box::link"].pose.almost_equal(X_WB @ Pose.from_xyz_rpy(0, 0, 3, 0, 0, 0), 1e-12)
    assert frames["F"].pose.almost_equal(Pose.from_xyz_rpy(0, 0, 1, 0, 0, 0), 1e-12)
    # The first world is what an editor edits, unchanged.
    assert {f.name for f in doc.frames.frames()} == {"box", "box::link"}


def test_experimental_params_change_the_included_model_and_only_that_include():
    doc = load_real("sdformat/test/integration/include_custom_model.sdf")
    assert doc.diagnostics.errors == []
    frames = {f.name: f for f in doc.frames.frames()}
    golden = json.loads((REAL / "golden" /
                         "sdformat__test__integration__include_custom_model.sdf.json").read_text())
    # nested_models is moved to 1 1 1 relative to the caster, itself moved onto right_wheel
    g = golden["frames"]["robot::vehicle::nested_models"]["pose"]
    mine = frames["robot::vehicle::nested_models"].pose.p
    assert max(abs(a - b) for a, b in zip(mine, g[:3])) < 1e-9
    assert "robot::vehicle::new_link" in frames and "robot::vehicle::link_custom1" in frames
    [inc] = doc.includes()
    assert inc.model.extras["include_params"] is True
    # The file itself, read on its own, is unchanged.
    plain = load_real("sdformat/test/integration/model/robot/model.sdf")
    assert "vehicle::new_link" not in {f.name for f in plain.frames.frames()}


@pytest.mark.parametrize("rel", ["sdformat/test/sdf/material.sdf",
                                 "sdformat/test/sdf/link_duplicate_cousin_visuals.sdf"])
def test_a_visual_without_geometry_is_a_warning(rel):
    doc = load_real(rel)
    assert doc.diagnostics.errors == []
    assert warnings(doc) and all(w.code == Code.ELEMENT_MISSING for w in warnings(doc))
    assert all("no <geometry>" in w.message for w in warnings(doc))


def test_hexadecimal_bit_masks_are_integers():
    assert load_real("gz-sim/examples/worlds/shapes_bitmask.sdf").diagnostics.errors == []


def test_an_include_directly_in_sdf_is_checked():
    doc = load_real("sdformat/test/integration/model/nested_multiple_models_error/model.sdf")
    [error] = doc.diagnostics.errors
    assert error.message == "Found more than one model for <include>."
