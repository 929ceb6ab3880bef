"""Values libsdformat 12.3 reads and Snapframe refused, or refuses with another code
(review 8, item 14).  Every expectation here is the oracle's (tests/oracle/sdf_oracle).

* ``<mass>inf</mass>`` and an ``ixx`` of ``inf`` are read: gz-math's
  ``MassMatrix3::IsValid`` passes them (IEEE arithmetic); ``nan`` is
  ``LINK_INERTIA_INVALID`` ("A link named l has invalid inertia.").
* Attributes are not range-checked (``<trajectory tension="2">``, the spec says [0, 1]).
* An integer is read with ``std::stoi``: ``<width>10.5</width>`` is 10.
"""

from __future__ import annotations

import math

import pytest

from snapframe.core.model_checks import gz_mass_matrix_valid

INERTIAL = ('<sdf version="1.9"><model name="m"><link name="l"><inertial><mass>{}</mass>'
            "<inertia><ixx>{}</ixx><iyy>{}</iyy><izz>{}</izz><ixy>{}</ixy><ixz>0</ixz>"
            "<iyz>0</iyz></inertia></inertial></link></model></sdf>")

# (mass, ixx, iyy, izz, ixy) -> libsdformat 12.3 reports LINK_INERTIA_INVALID
ORACLE = [
    (("inf", 1, 1, 1, 0), False), (("-inf", 1, 1, 1, 0), True), (("inf", 1, 1, 3, 0), True),
    ((1, "inf", 1, 1, 0), False), ((1, 1, "inf", 1, 0), True), ((1, 1, 1, "inf", 0), True),
    ((1, "inf", "inf", "inf", 0), True), ((1, 1, 1, 1, "inf"), True),
    ((1, "-inf", 1, 1, 0), True), ((1, "inf", 1, 3, 0), False),
    (("inf", "inf", "inf", "inf", 0), True), ((1, "nan", 1, 1, 0), True),
    (("nan", 1, 1, 1, 0), True), (("inf", 1, 1, 1, 0.9), True), ((1, "inf", 1, 1, 0.5), False),
    ((1, "inf", 1, 1, -0.5), False), ((1, 1, 1, 1, "-inf"), True),
    (("-0", "inf", 2, 2, 0.1), False), ((1, "inf", "inf", 1, 0), True),
    ((1, 1, "inf", "inf", 0), True), ((0, 1, 1, 1, 0), False),
]


@pytest.mark.parametrize("values,invalid", ORACLE)
def test_inertia_with_values_that_are_not_finite(load_text, values, invalid):
    doc = load_text(INERTIAL.format(*values))
    assert [str(d.code) for d in doc.diagnostics.errors] == \
        (["LINK_INERTIA_INVALID"] if invalid else [])
    mass, ixx, iyy, izz, ixy = (float(v) for v in values)
    assert gz_mass_matrix_valid(mass, ixx, iyy, izz, ixy, 0.0, 0.0) == (not invalid)


def test_an_infinite_mass_is_read_and_printed(tmp_path, capsys):
    from snapframe.editor.cli import main
    path = tmp_path / "inf.sdf"
    path.write_text('<sdf version="1.9"><model name="m"><link name="l"><inertial>'
                    "<mass>inf</mass></inertial></link></model></sdf>")
    assert main(["check", str(path)]) == 0
    capsys.readouterr()
    assert main(["inertia", "--json", str(path)]) == 0
    import json
    out = json.loads(capsys.readouterr().out)   # valid JSON: no bare Infinity
    assert out["errors"] == [] and out["links"]["m::l"]["mass"] == "inf"


def test_nan_mass_is_an_invalid_inertia_not_an_invalid_element(load_text):
    doc = load_text(INERTIAL.format("nan", 1, 1, 1, 0))
    [error] = doc.diagnostics.errors
    assert str(error.code) == "LINK_INERTIA_INVALID" and "mass nan" in error.message
    assert math.isnan(doc.root.links[0].inertial.mass)


def test_attributes_are_not_range_checked(load_text):
    doc = load_text('<sdf version="1.9"><world name="w"><actor name="a"><skin><filename>x.dae'
                    '</filename></skin><script><trajectory id="0" type="walk" tension="2">'
                    "<waypoint><time>0</time><pose>0 0 0 0 0 0</pose></waypoint></trajectory>"
                    "</script></actor></world></sdf>")
    assert doc.diagnostics.errors == []
    # ... but still type-checked
    doc = load_text('<sdf version="1.9"><world name="w"><actor name="a"><skin><filename>x.dae'
                    '</filename></skin><script><trajectory id="0" type="walk" tension="x">'
                    "</trajectory></script></actor></world></sdf>")
    assert [str(d.code) for d in doc.diagnostics.errors] == ["ATTRIBUTE_INVALID"]


CAMERA = ('<sdf version="1.9"><model name="m"><link name="l"><sensor name="c" type="camera">'
          "<camera><image><width>{}</width><height>20</height></image></camera></sensor>"
          '<sensor name="r" type="ray"><ray><scan><horizontal><samples>{}</samples>'
          "</horizontal></scan></ray></sensor></link></model></sdf>")


@pytest.mark.parametrize("text,refused", [
    # libsdformat 12.3 reads these (std::stoi / std::stoul read the leading digits)
    ("10.5", False), ("1e3", False), ("+7", False), ("7.", False), ("0x10", False),
    # ... and refuses these
    (".5", True), ("2147483648", True)])
def test_integers_are_read_as_libsdformat_reads_them(load_text, text, refused):
    doc = load_text(CAMERA.format(text, 640))
    assert bool(doc.diagnostics.errors) == refused


def test_a_negative_unsigned_integer_is_refused_as_the_spec_says(load_text):
    # libsdformat 12.3 wraps <samples>-5</samples> around to 4294967291 without a word;
    # the spec's type is unsigned, and Snapframe keeps to it.
    doc = load_text(CAMERA.format(320, -5))
    [error] = doc.diagnostics.errors
    assert str(error.code) == "ELEMENT_INVALID" and "samples" in error.message
