"""The one XML reader policy (snapframe.core.xmlsafe): as tolerant as TinyXML2 where real
files need it, and never expanding, fetching or accepting a DTD entity, in any encoding."""

from __future__ import annotations

import os
import time

import pytest

from snapframe.core.fileio import NotARegularFile
from snapframe.core.xmlsafe import XmlError, parse_number, parse_xml_bytes, parse_xml_file


def parse(text: str | bytes):
    warnings: list = []
    data = text.encode() if isinstance(text, str) else text
    return parse_xml_bytes(data, None, warnings), warnings


# -- what TinyXML2 reads, so must we (with one warning) ---------------------------------
def test_a_comment_with_double_hyphens_is_read_and_kept():
    tree, warnings = parse("<sdf>\n<!-- gz service -s /world/x --reqtype a --req b -->\n"
                           "<!-- ends with three --->\n<model name='m'/></sdf>")
    assert tree.getroot().find("model").get("name") == "m"
    assert tree.getroot().find("model").sourceline == 4  # lines are unchanged
    assert len(warnings) == 1 and warnings[0][1] == 2 and "(and 1 more)" in warnings[0][0]
    comments = [c.text for c in tree.getroot() if not isinstance(c.tag, str)]
    assert comments[0] == " gz service -s /world/x - -reqtype a - -req b "


def test_a_comment_marker_inside_cdata_or_an_instruction_is_not_a_comment():
    tree, warnings = parse("<sdf><!-- a -- b --><x><![CDATA[<!-- -- -->]]></x>"
                           "<?pi <!-- -- ?></sdf>")
    assert tree.getroot().find("x").text == "<!-- -- -->"
    assert len(warnings) == 1


def test_whitespace_before_the_declaration_is_read_and_lines_are_kept():
    data = b"\n\n   <?xml version='1.0' encoding='ISO-8859-1'?>\n<sdf a='\xe9'>\n<b/></sdf>"
    tree, warnings = parse(data)
    assert tree.getroot().get("a") == "\u00e9"  # the declared encoding is still honoured
    assert tree.getroot().sourceline == 4 and tree.getroot()[0].sourceline == 5
    assert len(warnings) == 1 and warnings[0][1] == 3 and "declaration" in warnings[0][0]
    assert tree.docinfo.standalone is not None  # still read as a file with a declaration


def test_markup_after_the_root_is_ignored_as_libsdformat_ignores_it():
    tree, warnings = parse("<sdf><a/></sdf>\n</sdf>\n")
    assert [c.tag for c in tree.getroot()] == ["a"]
    assert warnings == [("Content after the root element is ignored (as libsdformat ignores it)",
                         2)]


def test_anything_else_malformed_is_an_error_with_its_line():
    with pytest.raises(XmlError) as err:
        parse("<sdf>\n<model name='m'>\n<link name='l'>\n</model></sdf>")
    assert err.value.line == 4
    with pytest.raises(XmlError):
        parse("<sdf><!-- never closed <a/></sdf>")
    with pytest.raises(XmlError):
        parse("")


# -- entities: refused, in every encoding -------------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-16-le", "utf-32"])
def test_an_internal_entity_is_refused_in_any_encoding(encoding):
    text = (f'<?xml version="1.0" encoding="{encoding.upper()}"?>\n'
            '<!DOCTYPE sdf [<!ENTITY name "expanded">]>\n<sdf><model name="&name;"/></sdf>')
    data = text.encode(encoding)
    if encoding == "utf-16-le":
        data = text.replace("UTF-16-LE", "UTF-16").encode("utf-16-le")  # no byte-order mark
    with pytest.raises(XmlError) as err:
        parse(data)
    assert "<!ENTITY>" in str(err.value) and err.value.line == 2


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_external_and_parameter_entities_are_refused_not_dropped(encoding):
    for decl in ('<!ENTITY secret SYSTEM "file:///etc/passwd">',
                 '<!ENTITY % remote SYSTEM "http://192.0.2.1/x.dtd">'):
        text = f'<?xml version="1.0"?>\n<!DOCTYPE sdf [\n{decl}\n]>\n<sdf>x</sdf>'
        with pytest.raises(XmlError) as err:
            parse(text.encode(encoding))
        assert "<!ENTITY>" in str(err.value) and err.value.line == 3


def test_an_entity_bomb_ends_at_once_and_says_why():
    levels = '<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "{("&l%d;" % (i - 1)) * 10}">' for i in range(1, 10))
    start = time.perf_counter()
    with pytest.raises(XmlError) as err:
        parse(f'<?xml version="1.0"?>\n<!DOCTYPE sdf [{levels}]>\n<sdf a="&l9;">&l9;</sdf>')
    assert time.perf_counter() - start < 2.0
    assert "<!ENTITY>" in str(err.value)


def test_an_entity_mentioned_in_a_comment_or_an_external_dtd_is_no_reason():
    tree, _ = parse('<?xml version="1.0"?>\n<!-- <!DOCTYPE x [<!ENTITY a "b">]> -->\n<sdf/>')
    assert tree.getroot().tag == "sdf"
    start = time.perf_counter()  # nothing is fetched: the address is never contacted
    tree, _ = parse('<!DOCTYPE sdf SYSTEM "http://192.0.2.1/sdf.dtd"><sdf/>')
    assert tree.getroot().tag == "sdf" and time.perf_counter() - start < 2.0


# -- files ---------------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "world.sdf"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile) as err:
        parse_xml_file(fifo)
    assert str(fifo) in str(err.value)


def test_a_file_is_parsed_under_the_same_policy(tmp_path):
    path = tmp_path / "w.sdf"
    path.write_text("<sdf><!-- a -- b --><world name='w'/></sdf>")
    warnings: list = []
    assert parse_xml_file(path, warnings).getroot().find("world") is not None
    assert len(warnings) == 1


# -- numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text,value", [
    ("1", 1.0), ("-2.5e3", -2500.0), (".5", 0.5), ("5.", 5.0), ("+.5E-3", 0.0005),
    ("inf", float("inf")), ("-INF", float("-inf")), ("Infinity", float("inf")),
])
def test_xml_schema_numbers_and_the_special_values_libsdformat_reads(text, value):
    assert parse_number(text) == value


def test_nan_is_read():
    assert parse_number("NaN") != parse_number("nan")  # NaN is not equal to itself


@pytest.mark.parametrize("text", ["1_0", "\u0661\u0660", "\uff11", "0x10", "1e", "", " 1",
                                  "1.2.3", "e5", "--1", "\u00bd"])
def test_what_python_float_accepts_but_a_model_file_must_not_contain(text):
    with pytest.raises(ValueError):
        parse_number(text)
