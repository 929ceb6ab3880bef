"""Every typed value of an SDFormat file, checked against the spec's element descriptions.

libsdformat reads each element and attribute into a value of the type its description
gives (``double``, ``vector3``, ``pose``, ``bool`` ...) and refuses the file when a value
does not parse or lies below the description's ``min`` (above its ``max``).  This module
does the same check over the whole XML tree -- including the elements Snapframe's model
does not hold (physics, sensors, lights) -- with the table in :mod:`.spec_table`:

* an element value that is not of its type, or is out of range: ``ELEMENT_INVALID``
  ("Error reading element <linear>: ...", libsdformat's wording);
* an attribute value that is not of its type: ``ATTRIBUTE_INVALID`` ("Unable to read
  attribute[...]").  An attribute's ``min``/``max`` is not checked: libsdformat 12 reads
  ``<trajectory tension="2">`` (the spec says [0, 1]) without a word.

libsdformat then refuses the whole file; Snapframe reports each value and reads the rest,
so an editor can show everything that is wrong at once.  Elements the description does
not know (custom namespaced elements, plugin contents, newer elements) are not checked.
"""

from __future__ import annotations

from typing import Iterator

from lxml import etree

from snapframe.core.xmlsafe import xml_strip

from .spec_table import NODES, ROOTS
from .values import SCALAR_TYPES, scalar_value, value_problem

__all__ = ["spec_value_problems", "ValueProblem", "table_version"]

#: (element, is_attribute, attribute name or "", message)
ValueProblem = tuple[etree._Element, bool, str, str]
_CHECKED_TYPES = frozenset(SCALAR_TYPES + ("bool", "vector3", "vector2d", "vector2i",
                                           "quaternion", "color", "pose"))
_ANY = "*"


def table_version(version: str) -> str:
    """The description version used for a file of ``version`` (the nearest known)."""
    if version in ROOTS:
        return version
    try:
        major, minor = (int(p) for p in version.split(".")[:2])
    except ValueError:
        return max(ROOTS, key=_key)
    known = sorted(ROOTS, key=_key)
    older = [v for v in known if _key(v) <= (major, minor)]
    return older[-1] if older else known[0]


def _key(v: str) -> tuple[int, int]:
    major, minor = v.split(".")
    return int(major), int(minor)


def _out_of_range(value_type: str, text: str, low: str, high: str) -> str | None:
    if value_type not in SCALAR_TYPES or not (low or high):
        return None
    try:
        value = scalar_value(value_type, text)
    except ValueError:
        return None  # reported as a type problem
    if low and value < scalar_value(value_type, low):
        return f"the value [{xml_strip(text)}] is less than the minimum allowed value of [{low}]"
    if high and value > scalar_value(value_type, high):
        return (f"the value [{xml_strip(text)}] is greater than the maximum allowed value of "
                f"[{high}]")
    return None


def _problem(value_type: str, text: str, low: str, high: str, attributes) -> str | None:
    if value_type not in _CHECKED_TYPES:
        return None
    return value_problem(value_type, text, attributes) or _out_of_range(value_type, text, low, high)


def _checked_nodes() -> list[tuple]:
    """``NODES`` reduced to what is checked: the value type (None for text and
    containers), its limits, the children, and only the typed attributes."""
    out = []
    for value_type, low, high, children, attributes in NODES:
        typed = tuple((name, t, lo, hi) for name, (t, lo, hi) in attributes.items()
                      if t in _CHECKED_TYPES)
        kind = value_type if value_type in _CHECKED_TYPES or value_type == _ANY else None
        out.append((kind, low, high, children, typed))
    return out


_CHECKED: list[tuple] = []


def spec_value_problems(sdf: etree._Element, version: str) -> Iterator[ValueProblem]:
    """Every value below ``<sdf>`` that its description refuses, in document order."""
    if not _CHECKED:
        _CHECKED.extend(_checked_nodes())
    stack = [(sdf, ROOTS[table_version(version)])]
    while stack:
        el, index = stack.pop()
        value_type, low, high, children, attributes = _CHECKED[index]
        for name, attr_type, attr_low, attr_high in attributes:
            raw = el.get(name)
            if raw is not None:
                # The type only: libsdformat 12 does not range-check attributes.
                why = _problem(attr_type, raw, "", "", None)
                if why:
                    yield el, True, name, (f"Unable to read attribute[{name}] of <{el.tag}>: "
                                           f"{why} ({attr_type} required)")
        if value_type == _ANY:
            continue  # free-form content (a plugin's)
        if value_type is not None:
            why = _problem(value_type, el.text or "", low, high, el.attrib)
            if why:
                yield el, False, "", (f"Error reading element <{el.tag}>: {why} "
                                      f"({value_type} required for key [{el.tag}])")
        if children:
            kids = [(c, children[c.tag]) for c in el if c.tag in children]
            stack.extend(reversed(kids))
