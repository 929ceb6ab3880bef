"""Joints and mates between elements named by their keys, put in the right scope.

An editor or a script names the two ends of a joint, or the two connectors of a mate, by
their instance keys (``arm::forearm``, ``gripper::body``, ``face.center``).  SDFormat
resolves a joint's ``parent`` and ``child`` in the model that holds the joint, and never
upwards; OpenPLX resolves a mate's connectors the same way.  So the new element goes into
the innermost model of *this* document that encloses both ends, and each end is written as
that model names it (``arm::forearm`` from the top, ``forearm`` from inside ``arm``).  The
models of included files belong to those files: a joint between two links of an included
arm goes into the model that includes it (``arm::upper_arm`` to ``arm::forearm``).

:func:`AddJointBetween` and :func:`AddMateBetween` build the usual
:func:`~snapframe.core.model.edits.AddJoint` / :func:`~snapframe.core.model.edits.AddMate`
commands (one undo step each) after checking that the ends exist and are what a joint or a
mate can join; :func:`enclosing_model` and :func:`free_name` are their helpers.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..live.keys import ROOT, is_inside_include, split_part
from ..pose import Pose
from .document import Document
from .edits import AddJoint, AddMate, AddNode, EditRefused, _finite, scope_names
from .names import SEP, WORLD
from .nodes import Frame, Include, Joint, Link, MateConnector, Model, Node, World

__all__ = ["enclosing_model", "name_in", "free_name", "AddJointBetween", "AddMateBetween"]

#: Elements a joint can connect: links, and (SDFormat 1.8+) frames, joints and models.
_JOINT_ENDS = (Link, Frame, Joint, Model, Include)
#: Joint types whose position has no limits (no axis, or an endless turn).
_UNLIMITED = ("fixed", "ball", "continuous")
#: The initial values each mate type takes (SNAP ignores the others, a save drops them).
_MATE_VALUES = {"lock": (), "ball": (), "hinge": ("initial_angle",),
                "prismatic": ("initial_position",),
                "cylindrical": ("initial_angle", "initial_position"),
                "distance": ("initial_distance",)}


def _scope_parts(key: str) -> list[str]:
    """The scope an element's key lives in, as parts (``a::b::c`` -> ``[a, b]``)."""
    head = split_part(key)[0]
    return head.split(SEP)[:-1] if head else []


def enclosing_model(document: Document, keys: Iterable[str]) -> tuple[Model | World, str]:
    """The innermost model (or world) of ``document`` itself that encloses every element
    of ``keys``, and its key (``""``: the root).  Models inside included files are
    skipped: they are edited in their own file."""
    root = document.root
    if root is None:
        raise EditRefused("the document has no model")
    common: list[str] | None = None
    for key in keys:
        parts = _scope_parts(key)
        if common is None:
            common = parts
        else:
            n = 0
            while n < min(len(common), len(parts)) and common[n] == parts[n]:
                n += 1
            common = common[:n]
    for i in range(len(common or []), 0, -1):
        key = SEP.join((common or [])[:i])
        node = document.element(key)
        if isinstance(node, Model) and not is_inside_include(node, root):
            return node, key
    if not isinstance(root, (Model, World)):
        raise EditRefused("the document has no model")
    return root, ROOT


def name_in(scope_key: str, key: str) -> str:
    """How the model whose key is ``scope_key`` names the element ``key``."""
    if not scope_key:
        return key
    prefix = scope_key + SEP
    if not key.startswith(prefix):
        raise EditRefused(f"[{key}] is not inside [{scope_key}]")
    return key[len(prefix):]


def free_name(container: Node, base: str) -> str:
    """``base``, or ``base_2``, ``base_3``... whichever is not taken in ``container``'s
    scope."""
    taken = scope_names(container)
    base = base or "element"
    if base not in taken:
        return base
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def _element(document: Document, key: str, what: str) -> Node:
    node = document.element(key) if isinstance(key, str) and key else None
    if node is None:
        raise EditRefused(f"there is no element [{key}] for the {what}")
    return node


def AddJointBetween(document: Document, name: str, joint_type: str, parent: str, child: str,
                    *, axis: Iterable[float] | None = None, lower: float | None = None,
                    upper: float | None = None, pose: Pose | None = None) -> AddNode:
    """A joint ``name`` of ``joint_type`` from the element ``parent`` to the element
    ``child`` (keys; ``parent`` may be ``"world"``), in the innermost model of the
    document enclosing both (module docstring).  ``axis`` is in the joint frame, which is
    the child frame moved by ``pose``; ``lower``/``upper`` in radians or metres.

    Refused when an end names nothing, is not a frame (a visual, a mate...), or both ends
    are the same element; the other checks are :func:`AddJoint`'s."""
    ends = {"parent": parent, "child": child}
    for what, key in ends.items():
        if what == "parent" and key == WORLD:
            continue
        node = _element(document, key, f"joint {what}")
        if split_part(key)[1] or not isinstance(node, _JOINT_ENDS):
            raise EditRefused(f"the joint {what} [{key}] is a {node.kind}: a joint connects "
                              "links or frames")
    if parent == child:
        raise EditRefused("a joint's parent and child must be different elements")
    limits = [None if v is None else _finite(v, f"the {what} limit")
              for v, what in ((lower, "lower"), (upper, "upper"))]
    if joint_type in _UNLIMITED and any(v is not None for v in limits):
        raise EditRefused(f"a {joint_type} joint has no limits")
    scoped = [k for k in (parent, child) if k != WORLD]
    model, scope_key = enclosing_model(document, scoped)
    parent_name = parent if parent == WORLD else name_in(scope_key, parent)
    child_name = name_in(scope_key, child)
    _check_version(document, model, [document.element(k) for k in scoped])
    return AddJoint(document, model, name, joint_type, parent_name, child_name,
                    axis=axis, lower=limits[0], upper=limits[1], pose=pose)


def _check_version(document: Document, model: Model | World, ends: list) -> None:
    """Refuse a joint the document's SDFormat version cannot express (as
    :class:`~snapframe.core.model.placing.PlaceInclude` does): joints in a world are
    SDFormat 1.10, frames, joints and models as ends 1.8."""
    from .placing import _version
    version = _version(document)
    if document.format not in ("", "sdformat") or version is None:
        return
    if isinstance(model, World) and version < (1, 10):
        raise EditRefused(f"joints in a world need SDFormat 1.10 (//world/joint); this file is "
                          f"{document.version}: put the parts in a model")
    if version < (1, 8) and any(not isinstance(n, Link) for n in ends):
        raise EditRefused(f"frames, joints and models as a joint's ends need SDFormat 1.8 "
                          f"or later (a link is joined in any version); this file is "
                          f"{document.version}")


def AddMateBetween(document: Document, name: str, mate_type: str, connector_a: str,
                   connector_b: str, **values: Any) -> AddNode:
    """An OpenPLX mate ``name`` of ``mate_type`` (lock, hinge, prismatic, cylindrical,
    ball, distance) between two mate connectors named by their keys, in the innermost
    system enclosing both; ``values`` are :class:`~snapframe.core.model.Mate` fields
    (``initial_angle`` in radians, ``initial_position``, ``initial_distance`` in metres,
    ``enable_snap``).  SNAP runs again as part of the same undo step.  One end may be
    ``world`` (OpenPLX's connector at the top system's origin): the mate then goes in the
    top model."""
    if connector_a == connector_b:
        raise EditRefused("a mate joins two different connectors")
    for what, key in (("first", connector_a), ("second", connector_b)):
        if key == WORLD:
            continue
        node = _element(document, key, f"{what} connector")
        if not isinstance(node, MateConnector):
            raise EditRefused(f"[{key}] is a {node.kind}, not a mate connector: a mate joins "
                              "two mate connectors")
        if is_inside_include(node, document.root):
            raise EditRefused(f"[{key}] belongs to an included file: an included part's "
                              "connectors are mated in its own file")
    kind = str(mate_type).lower().rpartition(".")[2]
    unused = [k for k, v in values.items() if k.startswith("initial_")
              and k not in _MATE_VALUES.get(kind, (k,)) and v is not None and v != 0]
    if unused:
        raise EditRefused(f"a {kind} mate has no {unused[0]} (it takes "
                          f"{', '.join(_MATE_VALUES[kind]) or 'no initial value'})")
    if WORLD in (connector_a, connector_b):
        if not isinstance(document.root, Model):
            raise EditRefused("mates belong to models (OpenPLX systems), not to a world")
        # the world connector is named from the top model, where the mate goes
        return AddMate(document, document.root, name, mate_type, (connector_a, connector_b),
                       **values)
    model, scope_key = enclosing_model(document, (connector_a, connector_b))
    if not isinstance(model, Model):
        raise EditRefused("mates belong to models (OpenPLX systems), not to a world")
    return AddMate(document, model, name, mate_type,
                   (name_in(scope_key, connector_a), name_in(scope_key, connector_b)), **values)
