"""The one XML reader policy every model file goes through.

* **Safe.** No entity is expanded, no DTD is loaded, nothing is fetched from the network,
  and a document that *declares* an entity (``<!ENTITY>``, internal or external, general
  or parameter) is refused.  The refusal is decided on the parsed DTD, so it holds in
  every encoding (UTF-16 included), and a ``<!ENTITY`` inside a comment is no reason.
* **As tolerant as libsdformat's parser (TinyXML2) where real files need it.**  Three
  things libxml2 rejects but TinyXML2 reads are read, each with one warning:

  - a comment that contains ``--`` (or ends in ``--->``): gz-sim's stock worlds have them;
    the comment is kept with each ``--`` written as ``- -`` (XML cannot hold it);
  - whitespace before ``<?xml ...?>``: the declaration is read as if it came first
    (line numbers are unchanged);
  - markup after the root element (a stray end tag, a second root): it is ignored, as
    libsdformat ignores everything but the first ``<sdf>``.

  An undeclared namespace prefix (``<gz:voxel_size>`` without ``xmlns:gz``) is also read
  as written, with a warning.  Anything else malformed raises :class:`XmlError`.
* **Depth.**  Elements nest at most :data:`~snapframe.core.limits.MAX_XML_DEPTH` (256,
  libxml2's limit) deep.  A file nested deeper than libsdformat's TinyXML2 reads
  (:data:`~snapframe.core.limits.LIBSDFORMAT_MAX_XML_DEPTH`) is read with a warning.
* **Files** are opened through :func:`snapframe.core.fileio.read_xml_file` (no FIFOs,
  devices or files over :data:`~snapframe.core.fileio.MAX_XML_BYTES`).
* **Numbers** in model files follow the XML Schema ``double`` lexical form
  (:func:`parse_number`): ASCII digits only, no ``_`` separators, no hexadecimal; the
  special values ``inf``, ``-inf`` and ``nan`` are accepted in any letter case, as
  libsdformat accepts them (joint limits use ``inf``).  Lists of numbers are separated
  by XML whitespace -- space, tab, CR and LF -- only (:func:`xml_split`): a no-break or
  em space is not a separator (Python's ``str.split`` and ``str.strip`` would take it
  for one).  Every XML format reads its numbers through these functions.
"""

from __future__ import annotations

import codecs
import math
import re
import unicodedata
from pathlib import Path

from lxml import etree

from .fileio import read_xml_file
from .limits import LIBSDFORMAT_MAX_XML_DEPTH

__all__ = ["XmlError", "XmlWarning", "parse_xml_bytes", "parse_xml_file", "make_parser",
           "parse_number", "parse_numbers", "XML_WHITESPACE", "xml_strip", "xml_split",
           "unusual_characters"]

#: ``(message, line)`` pairs: what was tolerated while reading.
XmlWarning = tuple[str, int]


class XmlError(ValueError):
    """Malformed or refused XML; ``line`` and ``column`` are 1-based (0 when unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def make_parser(recover: bool = False) -> etree.XMLParser:
    """An lxml parser that expands nothing and fetches nothing."""
    # resolve_entities=False: an entity reference stays a reference ("billion laughs" are
    # never expanded); load_dtd=False and no_network=True: nothing is read from elsewhere;
    # huge_tree=False keeps libxml2's size limits.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           dtd_validation=False, huge_tree=False, remove_comments=False,
                           remove_pis=False, strip_cdata=False, recover=recover)


# -- parsing ----------------------------------------------------------------------------
# libxml2 error types that TinyXML2 does not treat as errors: the text is repaired (or the
# extra content dropped) and parsed again.
_COMMENT_ERRORS = {"ERR_HYPHEN_IN_COMMENT", "ERR_COMMENT_NOT_FINISHED"}
_DECLARATION_ERRORS = {"ERR_RESERVED_XML_NAME"}
_TRAILING_ERRORS = {"ERR_DOCUMENT_END"}


def parse_xml_bytes(data: bytes, url: str | None = None,
                    warnings: list[XmlWarning] | None = None) -> etree._ElementTree:
    """Parse ``data`` under the policy above.

    What was tolerated goes to ``warnings`` as ``(message, line)``; anything else that is
    wrong raises :class:`XmlError` (with the line of the problem).
    """
    notes: list[XmlWarning] = []
    parser = make_parser()
    try:
        root = etree.fromstring(data, parser, base_url=url)  # the fast path: valid XML
    except etree.XMLSyntaxError as exc:
        try:
            root = _parse_tolerantly(data, url, _errors(parser), exc, notes)
        except XmlError as error:
            # A file that declares entities is refused for that, whatever else is wrong
            # with it (an entity bomb fails on libxml2's amplification limit first).
            declared = _entity_declaration_line(data)
            if declared is not None:
                raise XmlError(_ENTITY_MESSAGE, declared) from None
            raise error
    if root is None:
        raise XmlError("empty document")
    tree = root.getroottree()
    _refuse_entity_declarations(tree, data)
    if warnings is not None:
        warnings.extend(notes)
        too_deep = _tinyxml2_too_deep(tree)
        if too_deep is not None:
            warnings.append((f"Elements nest deeper than libsdformat 12 reads (TinyXML2 refuses "
                             f"an element with content at depth {LIBSDFORMAT_MAX_XML_DEPTH}, "
                             "XML_ELEMENT_DEPTH_EXCEEDED); Snapframe reads it",
                             too_deep.sourceline or 0))
    return tree


_AT_LIBSDFORMAT_DEPTH = "/*" * LIBSDFORMAT_MAX_XML_DEPTH


def _tinyxml2_too_deep(tree: etree._ElementTree) -> etree._Element | None:
    """The first element TinyXML2 would refuse as nested too deep: one at depth 99 with
    content (text, a comment, a child), which TinyXML2 holds open, or any deeper one.
    (``<a></a>`` is refused too, but reads exactly like ``<a/>`` here.)"""
    if not tree.xpath(f"boolean({_AT_LIBSDFORMAT_DEPTH})"):  # one pass, in C
        return None
    found = tree.xpath(f"({_AT_LIBSDFORMAT_DEPTH}[node()] | {_AT_LIBSDFORMAT_DEPTH}/*)[1]")
    return found[0] if found else None


def parse_xml_file(path: str | Path,
                   warnings: list[XmlWarning] | None = None) -> etree._ElementTree:
    """Read (through :func:`~snapframe.core.fileio.read_xml_file`) and parse a file.

    Raises :class:`XmlError` (bad XML) or ``OSError`` (unreadable, not a regular file,
    too large); both carry a message fit for a diagnostic.
    """
    data = read_xml_file(path)
    return parse_xml_bytes(data, str(path), warnings)


def _errors(parser: etree.XMLParser) -> list:
    # The parser's own log: the exception's log is per thread and keeps older entries.
    return [e for e in parser.error_log if e.level_name in ("ERROR", "FATAL")]


def _raise_first(errors: list, exc: etree.XMLSyntaxError | None = None) -> None:
    if errors:
        e = errors[0]
        raise XmlError(e.message.strip(), e.line, e.column) from None
    line, column = exc.position if exc is not None and exc.position else (0, 0)
    raise XmlError((exc.msg if exc is not None else "") or "malformed XML", line, column) from None


_PREFIX = re.compile(r"Namespace prefix (\S+)")


def _namespace_notes(errors: list) -> list[XmlWarning]:
    """One note per undeclared prefix (a xacro file has hundreds of such elements)."""
    first: dict[str, tuple[str, int]] = {}
    count: dict[str, int] = {}
    for e in errors:
        if e.domain_name != "NAMESPACE":
            continue
        m = _PREFIX.match(e.message)
        key = m.group(1) if m else e.message
        first.setdefault(key, (e.message.strip(), e.line))
        count[key] = count.get(key, 0) + 1
    notes = []
    for key, (message, line) in first.items():
        more = f" (and {count[key] - 1} more uses of the prefix)" if count[key] > 1 else ""
        notes.append((f"{message}{more}; kept as written (declare the prefix with xmlns to "
                      "be portable)", line))
    return notes


def _parse_tolerantly(data: bytes, url: str | None, errors: list,
                      exc: etree.XMLSyntaxError, notes: list[XmlWarning]):
    """The slow path: repair what TinyXML2 accepts, then parse again."""
    if errors and all(e.domain_name == "NAMESPACE" for e in errors):
        notes.extend(_namespace_notes(errors))
        return etree.fromstring(data, make_parser(recover=True), base_url=url)
    types = {e.type_name for e in errors}
    if not types & (_COMMENT_ERRORS | _DECLARATION_ERRORS | _TRAILING_ERRORS):
        _raise_first(errors, exc)
    text = _decode(data)
    text = _repair_comments(text, notes)
    text = _move_leading_whitespace(text, notes)
    return _parse_repaired(_utf8_with_declaration(text), url, notes)


def _parse_repaired(data: bytes, url: str | None, notes: list[XmlWarning]):
    parser = make_parser()
    try:
        return etree.fromstring(data, parser, base_url=url)
    except etree.XMLSyntaxError as exc:
        errors = _errors(parser)
        failure = exc
    fatal = [e for e in errors if e.domain_name != "NAMESPACE"]
    if not errors or any(e.type_name not in _TRAILING_ERRORS for e in fatal):
        _raise_first(fatal, failure)
    # Left: undeclared prefixes and/or markup after the root element.  TinyXML2 reads
    # the first root and libsdformat ignores the rest; so do we.
    root = etree.fromstring(data, make_parser(recover=True), base_url=url)
    if fatal:
        notes.append(("Content after the root element is ignored (as libsdformat ignores "
                      "it)", fatal[0].line))
    notes.extend(_namespace_notes(errors))
    return root


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
_NO_BOM = ((b"\x00\x00\x00<", "utf-32-be"), (b"<\x00\x00\x00", "utf-32-le"),
           (b"\x00<\x00?", "utf-16-be"), (b"<\x00?\x00", "utf-16-le"))
_DECLARED_ENCODING = re.compile(rb"\s*<\?xml\b[^>]*?\bencoding\s*=\s*[\"']([A-Za-z][\w.:-]*)[\"']")


def _decode(data: bytes) -> str:
    """The document as text: byte-order mark, then the declared encoding, then UTF-8."""
    encoding = None
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding = name
            break
    else:
        for start, name in _NO_BOM:
            if data.startswith(start):
                encoding = name
                break
    if encoding is None:
        m = _DECLARED_ENCODING.match(data)
        encoding = m.group(1).decode("ascii") if m else "utf-8"
    try:
        return data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as exc:
        raise XmlError(f"cannot decode the document as {encoding}: {exc}") from None


_DECLARATION = re.compile(r"<\?xml\b[^>]*\?>")
_ENCODING_ATTRIBUTE = re.compile(r"\bencoding\s*=\s*([\"'])[^\"']*\1")


def _utf8_with_declaration(text: str) -> bytes:
    # The text is re-encoded as UTF-8, so a declaration must now say so.
    m = _DECLARATION.match(text)
    if m:
        decl = _ENCODING_ATTRIBUTE.sub('encoding="UTF-8"', m.group(0))
        text = decl + text[m.end():]
    return text.encode("utf-8")


# A comment ends at the first "-->" (TinyXML2's rule); CDATA sections and processing
# instructions are matched too so that a "<!--" inside them is not taken for a comment.
_MARKUP = re.compile(r"<!--(.*?)-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>", re.S)


def _repair_comments(text: str, notes: list[XmlWarning]) -> str:
    lines: list[int] = []

    def fix(m: re.Match) -> str:
        body = m.group(1)
        if body is None or ("--" not in body and not body.endswith("-")):
            return m.group(0)
        while "--" in body:
            body = body.replace("--", "- -")
        if body.endswith("-"):
            body += " "
        lines.append(text.count("\n", 0, m.start()) + 1)
        return f"<!--{body}-->"

    out = _MARKUP.sub(fix, text)
    if lines:
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        notes.append((f"A comment contains '--', which XML does not allow{more}; read as "
                      "libsdformat (TinyXML2) reads it, with '--' kept as '- -'", lines[0]))
    return out


_LEADING_DECLARATION = re.compile(r"([ \t\r\n]+)(<\?xml\b[^>]*\?>)")


def _move_leading_whitespace(text: str, notes: list[XmlWarning]) -> str:
    m = _LEADING_DECLARATION.match(text)
    if not m:
        return text
    notes.append(("Whitespace before the XML declaration <?xml ...?> is not allowed in XML; "
                  "read as libsdformat (TinyXML2) reads it", m.group(1).count("\n") + 1))
    # Moving the whitespace after the declaration keeps every later line number.
    return m.group(2) + m.group(1) + text[m.end():]


_ENTITY_MESSAGE = "entity declarations (<!ENTITY>) are not allowed in model files"
# An entity declaration inside a DOCTYPE's internal subset (only used to name the reason
# when the document does not parse at all).
_DOCTYPE_ENTITY = re.compile(r"<!DOCTYPE[^\[>]*\[[^\]]*?<!ENTITY", re.S)


def _refuse_entity_declarations(tree: etree._ElementTree, data: bytes) -> None:
    dtd = tree.docinfo.internalDTD
    if dtd is None:
        return
    names = [e.name for e in dtd.iterentities()]
    if names:
        listed = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
        raise XmlError(f"{_ENTITY_MESSAGE} (declared: {listed})",
                       _entity_declaration_line(data) or 0)


#: How much of a document is searched for an entity declaration: the DOCTYPE comes before
#: the root element, at the start of the file.  Decoding the whole of a file that failed
#: to parse (tens of megabytes of NUL bytes, say) would cost four times its size in memory.
_PROLOG_BYTES = 1 << 20


def _entity_declaration_line(data: bytes) -> int | None:
    """The line of the first entity declaration in the DOCTYPE (searched for in the first
    megabyte), None if there is none."""
    head = data[:_PROLOG_BYTES]
    try:
        text = _decode(head)
    except XmlError:
        # The cut may split a character: decode what is whole.
        try:
            text = _decode(head[:-3]) if len(head) == _PROLOG_BYTES else ""
        except XmlError:
            return None
    m = _DOCTYPE_ENTITY.search(text)
    return text.count("\n", 0, m.end()) + 1 if m else None


# -- numbers ----------------------------------------------------------------------------
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPECIAL = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf,
            "+infinity": math.inf, "-infinity": -math.inf, "nan": math.nan, "+nan": math.nan,
            "-nan": math.nan}


def parse_number(token: str) -> float:
    """One number in the XML Schema ``double`` lexical form (``1``, ``-2.5e3``, ``.5``),
    or ``inf``/``-inf``/``nan`` in any letter case.

    Raises ``ValueError`` for anything else, including what Python's ``float`` would
    accept but a model file must not contain: ``1_0``, non-ASCII digits, ``0x10``.
    """
    if _DECIMAL.fullmatch(token):
        return float(token)
    special = _SPECIAL.get(token.lower())
    if special is None:
        raise ValueError(f"'{token}' is not a number{unusual_characters(token)}")
    return special


def unusual_characters(text: str) -> str:
    """A note naming the first character of ``text`` outside ASCII (a no-break space or
    an Arabic-Indic digit looks like what it is not), or "" when there is none."""
    for c in text:
        if not c.isascii():
            name = unicodedata.name(c, "unnamed character")
            what = "not an XML space" if c.isspace() else "not an ASCII digit" \
                if c.isdigit() or unicodedata.category(c) == "Nd" else "not ASCII"
            return f" (it holds U+{ord(c):04X} {name}, {what})"
    return ""


def parse_numbers(text: str) -> list[float]:
    """Numbers separated by XML whitespace (see :func:`parse_number` and
    :func:`xml_split`)."""
    return [parse_number(t) for t in xml_split(text)]


#: The characters XML counts as whitespace (XML 1.0, production S).
XML_WHITESPACE = " \t\r\n"
_XML_SPACE_RUN = re.compile("[ \t\r\n]+")


def xml_strip(text: str) -> str:
    """``text`` without leading and trailing XML whitespace (and only that)."""
    return text.strip(XML_WHITESPACE)


def xml_split(text: str) -> list[str]:
    """The tokens of ``text`` separated by XML whitespace (and only that)."""
    if text.isascii():
        # The only other ASCII characters str.split takes for whitespace are control
        # characters (VT, FF, FS...) no XML document may hold; this is the fast path.
        return text.split()
    stripped = text.strip(XML_WHITESPACE)
    return _XML_SPACE_RUN.split(stripped) if stripped else []
