"""SDFormat 1.7 "flattened" names read as the nested models they stand for.

libsdformat 10 and older wrote an included model into its parent by prefixing names:
``<link name="M1::L1">``, with the included model frame as ``<frame name="M1::__model__">``.
libsdformat's conversion to SDFormat 1.8 (``Converter::Unflatten``, applied to
``//world/model`` of files older than 1.8) turns such names back into a nested model
``M1``; names in ``::`` are an error only from 1.8 on.  This module does the same on the
XML before the reader builds the model:

* elements ``frame``, ``joint``, ``link``, ``model`` and ``gripper`` named ``P::rest`` move
  into a new ``<model name="P">`` (appended to the parent) and are renamed ``rest``;
* the ``P::`` prefix is removed from what refers to them: ``//pose/@relative_to`` (also of
  a link's visuals, collisions and sensors), ``//frame/@attached_to``, ``//joint/parent``,
  ``//joint/child``, ``//axis/xyz/@expressed_in``, a gripper's links;
* ``<frame name="P::__model__" attached_to="P::L">`` gives the new model its pose and
  ``canonical_link="L"``;
* the new model is unflattened in turn (``P::Q::L`` becomes ``P`` holding ``Q``).
"""

from __future__ import annotations

from lxml import etree

from snapframe.core.model.names import SEP

__all__ = ["unflatten_world_models", "unflatten_model"]

_FLATTENED = ("frame", "joint", "link", "model", "gripper")


def unflatten_world_models(sdf: etree._Element) -> list[etree._Element]:
    """Unflatten every ``//world/model`` below ``<sdf>``; the models created."""
    created: list[etree._Element] = []
    for world in sdf.iterchildren("world"):
        for model in list(world.iterchildren("model")):
            created.extend(unflatten_model(model))
    return created


def _strip(value: str | None, prefix: str) -> str | None:
    return value[len(prefix):] if value is not None and value.startswith(prefix) else value


def _strip_pose(el: etree._Element, prefix: str) -> etree._Element | None:
    pose = el.find("pose")
    if pose is not None and pose.get("relative_to") is not None:
        pose.set("relative_to", _strip(pose.get("relative_to"), prefix))
    return pose


def _strip_text(el: etree._Element | None, prefix: str) -> None:
    if el is not None and el.text:
        text = el.text.strip()
        if text.startswith(prefix):
            el.text = text[len(prefix):]


def _move(el: etree._Element, prefix: str, new_model: etree._Element) -> None:
    """Move one prefixed element into the new model, rewriting its references."""
    name = el.get("name") or ""
    local = name[len(prefix):] if name.startswith(prefix) else name
    el.set("name", local)
    pose = _strip_pose(el, prefix)
    if el.tag == "frame":
        attached = el.get("attached_to")
        if attached is not None:
            el.set("attached_to", _strip(attached, prefix))
        if local == "__model__":
            # The included model frame: its pose is the model's, attached_to its canonical link.
            if attached is not None:
                new_model.set("canonical_link", el.get("attached_to"))
            if pose is not None:
                new_model.insert(0, pose)
            el.getparent().remove(el)
            return
    elif el.tag == "link":
        for part in el:
            if isinstance(part.tag, str):
                _strip_pose(part, prefix)
    elif el.tag == "joint":
        _strip_text(el.find("parent"), prefix)
        _strip_text(el.find("child"), prefix)
        for axis in ("axis", "axis2"):
            xyz = el.find(f"{axis}/xyz")
            if xyz is not None and xyz.get("expressed_in") is not None:
                xyz.set("expressed_in", _strip(xyz.get("expressed_in"), prefix))
        for sensor in el.iterchildren("sensor"):
            _strip_pose(sensor, prefix)
    elif el.tag == "gripper":
        for link in el.iterchildren("gripper_link"):
            _strip_text(link, prefix)
        _strip_text(el.find("palm_link"), prefix)
    new_model.append(el)


def unflatten_model(model: etree._Element) -> list[etree._Element]:
    """Unflatten ``model`` in place; the models created (outermost first)."""
    created: list[etree._Element] = []
    while True:
        first = next((c for c in model if c.tag in _FLATTENED and SEP in (c.get("name") or "")),
                     None)
        if first is None:
            break
        head = first.get("name").split(SEP, 1)[0]
        prefix = head + SEP
        new_model = etree.Element("model", name=head)
        for el in [c for c in model if c.tag in _FLATTENED]:
            if el.tag == "gripper":
                links = [g.text.strip() for g in el.iterchildren("gripper_link") if g.text]
                if links and all(t.startswith(prefix) for t in links):
                    _move(el, prefix, new_model)
            elif (el.get("name") or "").startswith(prefix):
                _move(el, prefix, new_model)
        new_model.text, new_model.tail = model.text, None
        model.append(new_model)
        created.append(new_model)
        created.extend(unflatten_model(new_model))
    for nested in model.iterchildren("model"):
        if nested not in created:
            created.extend(unflatten_model(nested))
    return created
