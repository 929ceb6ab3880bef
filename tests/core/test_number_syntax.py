"""One number syntax for every XML format (review 8, item 9).

Numbers follow the XML Schema ``double`` lexical form (:func:`parse_number`), and lists
of them are separated by XML whitespace only -- space, tab, CR, LF.  Python's ``float``,
``str.split`` and ``str.strip`` accept more: ``1_0``, Arabic-Indic and full-width
digits, and no-break or em spaces as separators.  SDFormat and URDF both refuse them.
"""

from __future__ import annotations

import pytest

from snapframe.core.xmlsafe import parse_number, parse_numbers, xml_split, xml_strip

NBSP, EM_SPACE, IDEOGRAPHIC = "\u00a0", "\u2003", "\u3000"
ARABIC_ONE, FULLWIDTH_ONE = "\u0661", "\uff11"


@pytest.mark.parametrize("token", ["1_0", ARABIC_ONE, FULLWIDTH_ONE, "0x10", "1" + NBSP,
                                   "", " 1"])
def test_tokens_python_would_read_are_not_numbers(token):
    with pytest.raises(ValueError):
        parse_number(token)


@pytest.mark.parametrize("sep", [NBSP, EM_SPACE, IDEOGRAPHIC, "\u2028", "\x85"])
def test_only_xml_whitespace_separates_numbers(sep):
    with pytest.raises(ValueError):
        parse_numbers(f"1{sep}2 3")
    with pytest.raises(ValueError):
        parse_numbers(f"{sep}1 2 3")
    assert xml_split(f"a{sep}b") == [f"a{sep}b"]
    assert xml_strip(f"{sep}x ") == f"{sep}x"


def test_xml_whitespace_does_separate_numbers():
    assert parse_numbers(" 1\t2\r\n3 ") == [1.0, 2.0, 3.0]
    assert parse_numbers("") == [] and parse_numbers(" \n") == []
    assert xml_split("1 \u00e9") == ["1", "\u00e9"]


URDF = """<robot name="r"><link name="a"/><link name="b"/>
<joint name="j" type="fixed"><origin xyz="{}"/><parent link="a"/><child link="b"/></joint>
</robot>"""


@pytest.mark.parametrize("xyz", ["1_0 0 0", f"{ARABIC_ONE} 0 0", f"1{NBSP}0 0",
                                 f"{FULLWIDTH_ONE} 0 0", f"{EM_SPACE}1 0 0"])
def test_urdf_numbers_follow_the_xml_schema_syntax(tmp_path, xyz):
    from snapframe.core.loading import LoadContext, load
    path = tmp_path / "r.urdf"
    path.write_text(URDF.format(xyz), encoding="utf-8")
    doc = load(path, LoadContext(use_environment=False))
    [error] = doc.diagnostics.errors
    assert str(error.code) == "ATTRIBUTE_INVALID" and error.line == 2
    if not xyz.isascii():   # the invisible character is named
        assert "(it holds U+" in error.message


def test_urdf_numbers_that_are_fine(tmp_path):
    from snapframe.core.loading import LoadContext, load
    path = tmp_path / "r.urdf"
    path.write_text(URDF.format(" 1e0\t.5  -2. "), encoding="utf-8")
    doc = load(path, LoadContext(use_environment=False))
    assert doc.diagnostics.errors == []
    assert doc.frames.pose("r::b").p == (1.0, 0.5, -2.0)


@pytest.mark.parametrize("text", [f"1{NBSP}0 0 0 0 0", f"{NBSP}1 0 0 0 0 0",
                                  f"1 0 0 0 0 0{EM_SPACE}"])
def test_sdformat_poses_and_vectors_follow_it_too(load_text, text):
    doc = load_text(f'<sdf version="1.9"><model name="m"><link name="a"><pose>{text}</pose>'
                    "</link></model></sdf>")
    [error] = doc.diagnostics.errors
    assert str(error.code) == "ELEMENT_INVALID"
    doc = load_text('<sdf version="1.9"><model name="m"><link name="a"><inertial><mass>'
                    f"{NBSP}1</mass></inertial></link></model></sdf>")
    assert [str(d.code) for d in doc.diagnostics.errors] == ["ELEMENT_INVALID"]


def test_a_boolean_is_not_padded_with_a_no_break_space(load_text):
    doc = load_text(f'<sdf version="1.9"><model name="m"><static>true{NBSP}</static>'
                    '<link name="a"/></model></sdf>')
    assert [str(d.code) for d in doc.diagnostics.errors] == ["ELEMENT_INVALID"]
