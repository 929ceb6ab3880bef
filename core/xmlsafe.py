"""Safe XML parsing: no entity expansion, no DTD loading, no network access."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

__all__ = ["XmlError", "parse_xml_bytes", "parse_xml_file", "make_parser"]


class XmlError(ValueError):
    """Malformed XML; ``line`` and ``column`` are 1-based (0 when unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def make_parser(recover: bool = False) -> etree.XMLParser:
    # resolve_entities=False: a "billion laughs" file is read as text, not expanded.
    # no_network/load_dtd=False: nothing is fetched; huge_tree=False keeps libxml2's limits.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           dtd_validation=False, huge_tree=False, remove_comments=False,
                           remove_pis=False, strip_cdata=False, recover=recover)


def _refuse_entity_declarations(data: bytes) -> None:
    # libxml2 substitutes internal entities in attribute values even with
    # resolve_entities=False, so documents that declare entities are refused outright
    # (robot description files have no use for them).
    at = data.find(b"<!ENTITY")
    if at >= 0:
        line = data.count(b"\n", 0, at) + 1
        raise XmlError("entity declarations (<!ENTITY>) are not allowed in model files", line,
                       at - data.rfind(b"\n", 0, at))


def parse_xml_bytes(data: bytes, url: str | None = None,
                    warnings: list[tuple[str, int]] | None = None) -> etree._ElementTree:
    """Parse ``data``.  An undeclared namespace prefix (``<gz:voxel_size>`` without
    ``xmlns:gz``, which libsdformat accepts) is not fatal: the element is kept as written and
    ``(message, line)`` goes to ``warnings``.  Any other error raises :class:`XmlError`."""
    _refuse_entity_declarations(data)
    parser = make_parser()
    try:
        root = etree.fromstring(data, parser, base_url=url)
    except etree.XMLSyntaxError as exc:
        # The parser's own log: the exception's log is per thread and keeps older entries.
        entries = [e for e in parser.error_log if e.level_name in ("ERROR", "FATAL")]
        if entries and all(e.domain_name == "NAMESPACE" for e in entries):
            lenient = make_parser(recover=True)
            root = etree.fromstring(data, lenient, base_url=url)
            if warnings is not None:
                warnings.extend((e.message.strip(), e.line) for e in entries)
        else:
            line, column = (exc.position if exc.position else (0, 0))
            msg = exc.msg or str(exc)
            raise XmlError(msg, line, column) from None
    if root is None:
        raise XmlError("empty document")
    return root.getroottree()


def parse_xml_file(path: str | Path) -> etree._ElementTree:
    """Parse a file; raises :class:`XmlError` (bad XML) or ``OSError`` (unreadable)."""
    data = Path(path).read_bytes()
    return parse_xml_bytes(data, str(path))
