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

libsdformat applies the changes to the included model with its own includes expanded,
so an ``element_id`` may go through a nested ``<include>`` (``inner::link`` where
``inner`` is an include of the included file).  Here nested includes stay includes: such
a change is handed back re-targeted below that include (:func:`apply_params` returns
them), for the reader to apply to the nested include's model the same way.
"""

from __future__ import annotations

import copy
from typing import Callable

from lxml import etree

from snapframe.core.diagnostics import Code

__all__ = ["apply_params", "PARAMS_TAG", "Deferred"]

#: The element's tag as lxml reads it (the ``experimental`` namespace is usually declared).
PARAMS_NAMESPACE = "http://sdformat.org/schemas/experimental"
PARAMS_TAG = "params"
_ACTIONS = ("add", "modify", "remove", "replace")
_CONTROL = ("element_id", "action")

Report = Callable[[Code, str, etree._Element], None]
#: The name an ``<include>`` element gives its model (None: unknown).
IncludeName = Callable[[etree._Element], "str | None"]
#: (the ``<include>`` element, a change re-targeted below it): see apply_params.
Deferred = tuple[etree._Element, etree._Element]


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
    attrs = "".join(f" {k}='{_shown_id(el) if k == 'element_id' else v}'"
                    for k, v in el.attrib.items() if k in ("element_id", "name"))
    return f"<{_local(el)}{attrs}>"


def _shown_id(el: etree._Element) -> str:
    """The ``element_id`` as written (a change re-targeted below a nested include keeps
    the id it was written with, for messages)."""
    return el.get(_WRITTEN_ID, el.get("element_id", ""))


def _elements(el: etree._Element):
    return [c for c in el if isinstance(c.tag, str)]


def _find_by_id(model: etree._Element, tag: str | None, element_id: str,
                include_name: IncludeName | None = None
                ) -> "etree._Element | tuple[etree._Element, str] | None":
    """The element ``element_id`` names below ``model`` (``a::b::c``); with ``tag`` the
    last step must have that tag.  Names may themselves contain ``::`` (flattened 1.7
    files), so every split is tried, longest name first.  A step through a nested
    ``<include>`` (named by ``include_name``) ends the search there: the result is
    ``(include element, the rest of the id)`` (the rest is empty when the id names the
    included model itself, as a ``model``).  Walked with an explicit stack, depth-first."""
    if not element_id:
        return None
    stack: list[tuple[etree._Element, str]] = [(model, element_id)]
    while stack:
        parent, rest = stack.pop()
        named = []
        for c in _elements(parent):
            name = c.get("name")
            if c.tag == "include" and include_name is not None:
                name = include_name(c)
            if name is not None:
                named.append((c, name))
        for c, name in named:  # the whole rest names a child
            if name == rest:
                if c.tag == "include" and include_name is not None:
                    if tag in (None, "model", "include"):
                        return c, ""
                elif tag is None or c.tag == tag:
                    return c
        deeper: list[tuple[etree._Element, str]] = []
        for c, name in sorted(named, key=lambda cn: -len(cn[1])):
            prefix = name + "::"
            if rest.startswith(prefix):
                if c.tag == "include" and include_name is not None:
                    return c, rest[len(prefix):]
                deeper.append((c, rest[len(prefix):]))
        stack.extend(reversed(deeper))  # longest name tried first
    return None


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
            for key in (*_CONTROL, _PUSHED, _WRITTEN_ID):
                el.attrib.pop(key, None)
    new.tail = None
    return new


def _set_attributes(xml: etree._Element, target: etree._Element) -> None:
    for key, value in xml.attrib.items():
        if key not in _CONTROL and key not in (_PUSHED, _WRITTEN_ID):
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


def apply_params(params: etree._Element, model: etree._Element, report: Report,
                 include_name: IncludeName | None = None,
                 deferred: list[Deferred] | None = None) -> int:
    """Apply ``<experimental:params>`` to ``model`` (the included model's element, a
    copy); returns how many changes were applied.  ``report(code, message, element)``
    receives what is skipped.  Changes whose ``element_id`` goes through a nested include
    (see ``include_name``) are not applied here: they go to ``deferred``, each as a copy
    whose ``element_id`` is relative to that include's model, for the caller to apply
    there (without ``deferred`` they are dropped)."""
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
        if element_id == "" and action != "add" and xml.get(_PUSHED) is not None:
            # Re-targeted at a nested include's model itself (see below).
            target: etree._Element | None = model
        else:
            found = _find_by_id(model, None if action == "add" else tag, element_id,
                                include_name)
            if isinstance(found, tuple):
                include, rest = found
                if rest or action not in ("remove", "replace"):
                    if deferred is not None:
                        deferred.append((include, _retarget(xml, rest)))
                    continue
                target = include  # the nested include as a whole goes or is replaced
            elif action == "add":
                target = _add_target(xml, model, tag, element_id, found, include_name, report)
                if target is None:
                    continue
            else:
                target = found
        if target is None:
            report(Code.ELEMENT_MISSING, f"Could not find element <{tag} element_id="
                   f"'{_shown_id(xml)}'>. Skipping element modification: {_short(xml)}", xml)
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


#: Marks a change re-targeted at a nested include's model (element_id "" is the model).
_PUSHED = "{http://snapframe.dev/include-params}retargeted"
#: The element_id a re-targeted change was written with.
_WRITTEN_ID = "{http://snapframe.dev/include-params}element_id"


def _retarget(xml: etree._Element, rest: str) -> etree._Element:
    """A copy of the change ``xml`` naming ``rest`` below a nested include's model."""
    new = copy.deepcopy(xml)  # keeps the source lines of the change as written
    new.set(_WRITTEN_ID, _shown_id(xml))
    new.set("element_id", rest)
    if not rest:
        new.set(_PUSHED, "")
    return new


def _add_target(xml: etree._Element, model: etree._Element, tag: str, element_id: str,
                found: "etree._Element | None", include_name: IncludeName | None,
                report: Report) -> etree._Element | None:
    """Where an ``add`` goes (None, reported, when it cannot be added)."""
    name = xml.get("name")
    if name is None or not name:
        report(Code.ATTRIBUTE_MISSING if name is None else Code.ATTRIBUTE_INVALID,
               "Element to be added is missing a 'name' attribute. Skipping element "
               f"addition: {_short(xml)}" if name is None else "The 'name' attribute "
               f"can not be empty. Skipping element addition: {_short(xml)}", xml)
        return None
    full = f"{element_id}::{name}" if element_id else name
    existing = _find_by_id(model, tag, full, include_name)
    if existing is not None and tag != "plugin":
        report(Code.DUPLICATE_NAME, f"Could not add element <{tag} element_id="
               f"'{_shown_id(xml)}'> because element already exists in included model. "
               f"Skipping element addition: {_short(xml)}", xml)
        return None
    if not element_id:
        return model
    if found is None:
        report(Code.ELEMENT_MISSING, f"Could not find element <{tag} element_id="
               f"'{_shown_id(xml)}'>. Skipping element modification: {_short(xml)}", xml)
    return found
