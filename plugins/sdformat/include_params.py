"""``//include/experimental:params``: element changes applied to an included model.

The SDFormat parameter-passing proposal (libsdformat's ``ParamPassing``) lets an include
change the model it brings in.  Each child of ``<experimental:params>`` names an element
of the included model by ``element_id`` (its scoped name below the model, ``""`` for the
model itself when adding) and an ``action``:

* ``add`` -- add the child (it needs a ``name``) below the named element;
* ``modify`` -- set the attributes and values the child gives (an empty value element
  goes back to its default);
* ``remove`` -- remove the element, or the listed children of it;
* ``replace`` -- put the child in the element's place;
* no action -- each direct child of the child carries its own action, applied below the
  named element (children are matched by tag and ``name``).

The changes are made on a copy of the included file's XML; the file and every other
include of it are untouched.  Problems are reported with libsdformat's codes and
messages and the change is skipped, as libsdformat does.
"""

from __future__ import annotations

import copy
from typing import Callable

from lxml import etree

from snapframe.core.diagnostics import Code

__all__ = ["apply_params", "PARAMS_TAG"]

#: The element's tag as lxml reads it (the ``experimental`` namespace is usually declared).
PARAMS_NAMESPACE = "http://sdformat.org/schemas/experimental"
PARAMS_TAG = "params"
_ACTIONS = ("add", "modify", "remove", "replace")
_CONTROL = ("element_id", "action")

Report = Callable[[Code, str, etree._Element], None]


def is_params_element(el: etree._Element) -> bool:
    """True for ``<experimental:params>`` (with or without a declared namespace)."""
    tag = el.tag
    if not isinstance(tag, str):
        return False
    return tag == f"{{{PARAMS_NAMESPACE}}}{PARAMS_TAG}" or tag == "experimental:params" or (
        tag.startswith("{") and tag.endswith("}" + PARAMS_TAG) and el.prefix == "experimental")


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname if el.tag.startswith("{") else el.tag


def _short(el: etree._Element) -> str:
    attrs = "".join(f" {k}='{v}'" for k, v in el.attrib.items() if k in ("element_id", "name"))
    return f"<{_local(el)}{attrs}>"


def _elements(el: etree._Element):
    return [c for c in el if isinstance(c.tag, str)]


def _find_by_id(model: etree._Element, tag: str | None, element_id: str) -> etree._Element | None:
    """The element ``element_id`` names below ``model`` (``a::b::c``); with ``tag`` the
    last step must have that tag.  Names may themselves contain ``::`` (flattened 1.7
    files), so every split is tried, longest name first."""
    def search(parent: etree._Element, rest: str) -> etree._Element | None:
        named = [c for c in _elements(parent) if c.get("name") is not None]
        for c in named:  # the whole rest names a child
            if c.get("name") == rest and (tag is None or c.tag == tag):
                return c
        for c in sorted(named, key=lambda c: -len(c.get("name"))):
            prefix = c.get("name") + "::"
            if rest.startswith(prefix):
                found = search(c, rest[len(prefix):])
                if found is not None:
                    return found
        return None
    return search(model, element_id) if element_id else None


def _by_name(parent: etree._Element, xml: etree._Element, for_modify: bool = False
             ) -> etree._Element | None:
    """The child of ``parent`` an action child stands for: same tag, and same ``name``
    when it gives one (a ``modify`` without a match on the name takes the first of the
    tag, which then gets the new name)."""
    same_tag = [c for c in _elements(parent) if c.tag == _local(xml)]
    if not same_tag:
        return None
    name = xml.get("name")
    if name is None:
        return same_tag[0]
    for c in same_tag:
        if c.get("name") == name:
            return c
    return same_tag[0] if for_modify else None


def _clean_copy(xml: etree._Element) -> etree._Element:
    new = copy.deepcopy(xml)
    for el in new.iter():
        if isinstance(el.tag, str):
            for key in _CONTROL:
                el.attrib.pop(key, None)
    new.tail = None
    return new


def _set_attributes(xml: etree._Element, target: etree._Element) -> None:
    for key, value in xml.attrib.items():
        if key not in _CONTROL:
            try:
                target.set(key, value)
            except ValueError:
                pass  # a custom attribute with an undeclared prefix: nothing reads it


def _has_text(el: etree._Element) -> bool:
    return bool((el.text or "").strip())


def _modify(xml: etree._Element, target: etree._Element, report: Report) -> None:
    _set_attributes(xml, target)
    if _has_text(xml):
        target.text = xml.text
        return
    for x in _elements(xml):
        child = _by_name(target, x, for_modify=True)
        if child is None:
            report(Code.ELEMENT_MISSING, f"Could not find element [{_local(x)}]. Skipping "
                   f"modification for: {_short(xml)}", x)
            continue
        if _has_text(x):
            child.text = x.text
            _set_attributes(x, child)
        elif not _elements(x):
            if not _elements(child):  # a value element: back to its default
                child.text = None
                _set_attributes(x, child)
        else:
            _modify(x, child, report)


def _remove(xml: etree._Element, target: etree._Element, report: Report) -> None:
    if not _elements(xml):
        parent = target.getparent()
        if parent is not None:
            parent.remove(target)
        return
    for x in _elements(xml):
        child = _by_name(target, x)
        if child is None:
            report(Code.ELEMENT_MISSING, "Could not find element. Skipping child element "
                   f"removal from {_short(xml)}: {_short(x)}", x)
            continue
        target.remove(child)


def _replace(new: etree._Element, target: etree._Element) -> None:
    parent = target.getparent()
    if parent is not None:
        new.tail = target.tail
        parent.replace(target, new)


def _child_actions(xml: etree._Element, target: etree._Element, report: Report) -> None:
    for x in _elements(xml):
        action = x.get("action")
        if action is None:
            report(Code.ATTRIBUTE_MISSING, "Missing an action attribute. Skipping child element "
                   f"modification with parent {_short(xml)}: {_short(x)}", x)
            continue
        if action not in _ACTIONS:
            report(Code.ATTRIBUTE_INVALID, f"Action [{action}] is not a valid action. Skipping "
                   f"child element modification with parent {_short(xml)}: {_short(x)}", x)
            continue
        if action == "add":
            target.append(_clean_copy(x))
            continue
        child = _by_name(target, x, for_modify=action == "modify")
        if child is None:
            report(Code.ELEMENT_MISSING, f"Could not find element. Skipping child element "
                   f"{action} with parent {_short(xml)}: {_short(x)}", x)
        elif action == "modify":
            _modify(x, child, report)
        elif action == "remove":
            _remove(x, child, report)
        elif child.get("name") is not None and x.get("name") is None:
            report(Code.ATTRIBUTE_MISSING, "Replacement element is missing a 'name' attribute. "
                   f"Skipping element replacement {_short(xml)}: {_short(x)}", x)
        else:
            _replace(_clean_copy(x), child)


def apply_params(params: etree._Element, model: etree._Element, report: Report) -> int:
    """Apply ``<experimental:params>`` to ``model`` (the included model's element, a
    copy); returns how many changes were applied.  ``report(code, message, element)``
    receives what is skipped."""
    applied = 0
    for xml in _elements(params):
        element_id = xml.get("element_id")
        if element_id is None:
            report(Code.ATTRIBUTE_MISSING, "Element identifier requires an element_id attribute, "
                   f"but the element_id is not set. Skipping element alteration: {_short(xml)}",
                   xml)
            continue
        if element_id.endswith("::"):
            report(Code.ATTRIBUTE_INVALID, "Missing name after double colons in element "
                   f"identifier. Skipping element alteration: {_short(xml)}", xml)
            continue
        action = xml.get("action", "")
        if action and action not in _ACTIONS:
            report(Code.ATTRIBUTE_INVALID, f"Action [{action}] is not a valid action. Skipping "
                   f"element alteration: {_short(xml)}", xml)
            continue
        tag = _local(xml)
        if action == "add":
            name = xml.get("name")
            if name is None or not name:
                report(Code.ATTRIBUTE_MISSING if name is None else Code.ATTRIBUTE_INVALID,
                       "Element to be added is missing a 'name' attribute. Skipping element "
                       f"addition: {_short(xml)}" if name is None else "The 'name' attribute "
                       f"can not be empty. Skipping element addition: {_short(xml)}", xml)
                continue
            full = f"{element_id}::{name}" if element_id else name
            existing = _find_by_id(model, tag, full)
            if existing is not None and tag != "plugin":
                report(Code.DUPLICATE_NAME, f"Could not add element <{tag} element_id="
                       f"'{element_id}'> because element already exists in included model. "
                       f"Skipping element addition: {_short(xml)}", xml)
                continue
            target = model if not element_id else _find_by_id(model, None, element_id)
        else:
            target = _find_by_id(model, tag, element_id)
        if target is None:
            report(Code.ELEMENT_MISSING, f"Could not find element <{tag} element_id="
                   f"'{element_id}'>. Skipping element modification: {_short(xml)}", xml)
            continue
        if not action:
            _child_actions(xml, target, report)
        elif action == "add":
            target.append(_clean_copy(xml))
        elif action == "modify":
            _modify(xml, target, report)
        elif action == "remove":
            _remove(xml, target, report)
        else:
            _replace(_clean_copy(xml), target)
        applied += 1
    return applied
