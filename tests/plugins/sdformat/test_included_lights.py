"""A world's ``//include`` of a light or an actor file is read and checked like any
included file (review 8, item 8): the XML policy (no entity declarations), every value
against the spec, and the light's type, before the include is kept as written.

libsdformat 12.3 fails the world on ``type="bogus"`` (ATTRIBUTE_INVALID "Invalid light
type with a value of [bogus].") and on ``<diffuse>1 1 1 banana</diffuse>``; it reads
``1_0`` as 1 (Snapframe follows the XML Schema syntax) and an entity declaration
(Snapframe refuses every one).
"""

from __future__ import annotations

from pathlib import Path

from snapframe.core.diagnostics import Code

LAMP = '<sdf version="1.9"><light name="lamp" type="point"><diffuse>1 1 1 1</diffuse></light></sdf>'


def _world(*uris: str) -> str:
    return ('<sdf version="1.9"><world name="w">'
            + "".join(f"<include><uri>{u}</uri></include>" for u in uris) + "</world></sdf>")


def test_a_good_light_is_kept_as_written(load_text):
    doc = load_text(_world("lamp.sdf"), files={"lamp.sdf": LAMP})
    assert doc.diagnostics.errors == []
    [inc] = doc.root.includes
    assert inc.extras["included_element"] == "light" and inc.model is None
    assert Path(inc.resolved_path).name == "lamp.sdf" and inc.format == "sdformat"


def test_an_entity_declaration_in_an_included_light_is_refused(load_text):
    lamp = '<?xml version="1.0"?>\n<!DOCTYPE sdf [<!ENTITY e "x">]>\n' + LAMP
    doc = load_text(_world("lamp.sdf"), files={"lamp.sdf": lamp})
    [error] = doc.diagnostics.errors
    assert error.code == Code.FILE_READ and "entity declarations" in error.message
    assert Path(error.file).name == "lamp.sdf" and error.line == 2


def test_bad_values_in_an_included_light_are_reported_in_its_file(load_text):
    lamp = ('<sdf version="1.9">\n<light name="lamp2" type="bogus"><diffuse>1 1 1 banana'
            '</diffuse><pose>1_0 0 0 0 0 0</pose></light></sdf>')
    doc = load_text(_world("lamp2.sdf"), files={"lamp2.sdf": lamp})
    found = sorted((str(d.code), Path(d.file).name, d.line) for d in doc.diagnostics.errors)
    assert found == [("ATTRIBUTE_INVALID", "lamp2.sdf", 2), ("ELEMENT_INVALID", "lamp2.sdf", 2),
                     ("ELEMENT_INVALID", "lamp2.sdf", 2)]
    messages = " ".join(d.message for d in doc.diagnostics.errors)
    assert "Invalid light type with a value of [bogus]." in messages
    assert "banana" in messages and "1_0" in messages


def test_light_types_are_checked_everywhere_as_libsdformat_checks_them(load_text):
    doc = load_text('<sdf version="1.9"><world name="w"><light name="x" type="Point"/>'
                    '<model name="m"><link name="l"><light name="y" type="spot"/>'
                    '<light name="z" type="laser"/></link></model></world></sdf>')
    assert sorted(d.message for d in doc.diagnostics.errors) == [
        "Invalid light type with a value of [Point].",   # the letter case counts
        "Invalid light type with a value of [laser]."]


def test_a_merge_include_of_a_light_is_refused(load_text):
    doc = load_text('<sdf version="1.9"><world name="w"><include merge="true"><uri>lamp.sdf'
                    "</uri></include></world></sdf>", files={"lamp.sdf": LAMP})
    assert [str(d.code) for d in doc.diagnostics.errors] == ["MERGE_INCLUDE_UNSUPPORTED"]
