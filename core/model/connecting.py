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

SDFormat cannot store mates, and an included file is shared by all its includes: in an
SDFormat document a mate between the connectors of two included (OpenPLX) parts is made as
SDFormat can say it, by :class:`MateIncludedParts` (which :func:`AddMateBetween` uses
there): the second connector's include is placed on the first connector
(``placement_frame`` + ``<pose relative_to>``) and a joint joins the two links.
"""

from __future__ import annotations

from typing import Any, Iterable

from dataclasses import replace

from ..commands import Macro
from ..live.keys import ROOT, is_inside_include, split_part
from ..pose import Pose
from .document import Document
from .edits import (AddJoint, AddMate, AddNode, EditRefused, SetField, SetPose, _finite,
                    scope_names)
from .names import SEP, WORLD
from .nodes import (MATE_TYPES, Frame, Include, Joint, Link, MateConnector, Model, Node,
                    PoseSpec, World)

__all__ = ["enclosing_model", "name_in", "free_name", "AddJointBetween", "AddMateBetween",
           "MateIncludedParts", "MATE_JOINTS"]

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
                   connector_b: str, **values: Any) -> AddNode | "MateIncludedParts":
    """An OpenPLX mate ``name`` of ``mate_type`` (lock, hinge, prismatic, cylindrical,
    ball, distance) between two mate connectors named by their keys, in the innermost
    system enclosing both; ``values`` are :class:`~snapframe.core.model.Mate` fields
    (``initial_angle`` in radians, ``initial_position``, ``initial_distance`` in metres,
    ``enable_snap``).  SNAP runs again as part of the same undo step.  One end may be
    ``world`` (OpenPLX's connector at the top system's origin): the mate then goes in the
    top model.

    In an SDFormat document (which cannot store mates), or when the connectors belong to
    two different included parts, the mate is made as SDFormat can say it: connector b's
    include is placed on connector a and joined to it (:class:`MateIncludedParts`, one
    undo step; ``name`` is then the joint's)."""
    if connector_a == connector_b:
        raise EditRefused("a mate joins two different connectors")
    included = False
    for what, key in (("first", connector_a), ("second", connector_b)):
        if key == WORLD:
            continue
        node = _element(document, key, f"{what} connector")
        if not isinstance(node, MateConnector):
            raise EditRefused(f"[{key}] is a {node.kind}, not a mate connector: a mate joins "
                              "two mate connectors")
        included = included or is_inside_include(node, document.root)
    kind = _mate_kind(mate_type)
    unused = [k for k, v in values.items() if k.startswith("initial_")
              and k not in _MATE_VALUES.get(kind, (k,)) and v is not None and v != 0]
    if unused:
        raise EditRefused(f"a {kind} mate has no {unused[0]} (it takes "
                          f"{', '.join(_MATE_VALUES[kind]) or 'no initial value'})")
    if included or not _keeps_mates(document):
        extra = sorted(k for k, v in values.items() if k not in _MATE_VALUES.get(kind, ())
                       and v is not None and v != 0 and k != "enable_snap")
        if extra:
            raise EditRefused(f"{extra[0]} is a field of an OpenPLX mate; SDFormat keeps a "
                              "mate as a placement and a joint, which do not have it")
        return MateIncludedParts(document, connector_a, connector_b, kind,
                                 initial_angle=values.get("initial_angle") or 0.0,
                                 initial_position=values.get("initial_position") or 0.0,
                                 name=name or None)
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


# -- mates in SDFormat: a placement and a joint -------------------------------------------

#: The SDFormat joint each mate type becomes (None: SDFormat has no such joint).
MATE_JOINTS: dict[str, str | None] = {"lock": "fixed", "hinge": "revolute",
                                      "prismatic": "prismatic", "ball": "ball",
                                      "cylindrical": None, "distance": None}
_NO_JOINT = {
    "cylindrical": "a cylindrical mate (a turn about and a slide along one axis) has no "
                   "SDFormat joint: use a hinge or a prismatic mate, or mate the parts in an "
                   "OpenPLX file",
    "distance": "a distance mate (two points kept apart) has no SDFormat joint: mate the "
                "parts in an OpenPLX file"}


def _mate_kind(mate_type: str) -> str:
    """``Physics3D.Interactions.Hinge`` -> ``hinge``."""
    return str(mate_type).lower().rpartition(".")[2]


def _keeps_mates(document: Document) -> bool:
    """True for documents that store mates as mates (OpenPLX systems)."""
    return document.format == "openplx"


def _canonical_key(document: Document, key: str) -> str:
    """``key`` as an instance key: a scoped name with the top model's name in front loses
    it (both name the same element)."""
    root = document.root
    if isinstance(root, Model) and key.startswith(root.name + SEP):
        rest = key[len(root.name) + len(SEP):]
        node = document.element(rest)
        if node is not None and node is document.element(key):
            return rest
    return key


def _holding_include(document: Document, key: str) -> tuple[Include, str] | None:
    """The nearest include on ``key``'s path (its node and key), or None."""
    parts = split_part(key)[0].split(SEP)
    for i in range(len(parts) - 1, 0, -1):
        prefix = SEP.join(parts[:i])
        node = document.element(prefix)
        if isinstance(node, Include):
            return node, prefix
    return None


def mate_offset(kind: str, initial_angle: float = 0.0, initial_position: float = 0.0) -> Pose:
    """X_AB, connector b's frame in connector a's, as SNAP puts a mate's second connector:
    turned by ``initial_angle`` about a's main axis (z) and moved by ``initial_position``
    along it."""
    angle = initial_angle if kind in ("hinge", "cylindrical") else 0.0
    shift = initial_position if kind in ("prismatic", "cylindrical") else 0.0
    return Pose.from_xyz_rpy(0.0, 0.0, shift, 0.0, 0.0, angle)


class MateIncludedParts(Macro):
    """Mate connector ``connector_b`` of an included part to ``connector_a`` as SDFormat
    can store it (it has no mates): one undo step of

    * the include holding b (the nearest on b's key; the document's own, and not holding
      a) gets ``placement_frame`` = b as that include names it and ``<pose
      relative_to=a>`` = the mate's offset (:func:`mate_offset`): libsdformat puts the
      placement frame there, so b lands on a turned by ``initial_angle`` about a's main
      axis (z) or moved ``initial_position`` along it, as SNAP would;
    * a joint ``name`` (default: the mate type, made unique) from the link holding a
      (parent) to the link holding b (child): hinge -> revolute and prismatic ->
      prismatic about / along z expressed in b's frame, lock -> fixed, ball -> ball.

    ``connector_a`` may be ``world`` in a world (the world frame, z up: OpenPLX's world
    connector).  Refused (:class:`EditRefused`) for cylindrical and distance mates (no
    SDFormat joint), OpenPLX documents (they keep mates: :func:`AddMateBetween`), a b that
    is in no include or in an include of an included file, both connectors in one include,
    an a outside the include's model (SDFormat never refers upwards), an a placed relative
    to b's part (a cycle), and files whose SDFormat version cannot say it (placement
    frames are 1.8, joints in a world 1.10)."""

    def __init__(self, document: Document, connector_a: str, connector_b: str,
                 mate_type: str, initial_angle: float = 0.0, initial_position: float = 0.0,
                 name: str | None = None) -> None:
        from ..frames.scope import Unresolved
        from .placing import _parent_scope, _target_name
        kind = _mate_kind(mate_type)
        if kind not in MATE_TYPES:
            raise EditRefused(f"unknown mate type [{mate_type}]; one of {', '.join(MATE_TYPES)}")
        if kind in _NO_JOINT:
            raise EditRefused(_NO_JOINT[kind])
        if _keeps_mates(document):
            raise EditRefused("an OpenPLX document keeps mates as mates (AddMateBetween); "
                              "placements and joints are how an SDFormat document mates parts")
        angle = _finite(initial_angle or 0.0, "initial_angle")
        position = _finite(initial_position or 0.0, "initial_position")
        if angle and kind != "hinge":
            raise EditRefused(f"a {kind} mate has no initial_angle")
        if position and kind != "prismatic":
            raise EditRefused(f"a {kind} mate has no initial_position")
        if connector_b == WORLD:
            raise EditRefused("the second connector is the one placed, and the world does "
                              "not move: swap the connectors")
        if connector_a == connector_b:
            raise EditRefused("a mate joins two different connectors")
        for what, key in (("first", connector_a), ("second", connector_b)):
            if key == WORLD:
                continue
            node = _element(document, key, f"{what} connector")
            if not isinstance(node, MateConnector):
                raise EditRefused(f"[{key}] is a {node.kind}, not a mate connector: a mate "
                                  "joins two mate connectors")
        a_key = connector_a if connector_a == WORLD else _canonical_key(document, connector_a)
        b_key = _canonical_key(document, connector_b)
        held = _holding_include(document, b_key)
        if held is None:
            raise EditRefused(f"[{b_key}] is in no included part: SDFormat places included "
                              "parts, so the second connector must belong to one")
        include, inc_key = held
        if is_inside_include(include, document.root):
            raise EditRefused(f"[{b_key}] belongs to [{inc_key}], which is included by "
                              f"another included file: place [{inc_key}] in that file")
        if a_key.startswith(inc_key + SEP):
            raise EditRefused(f"both connectors belong to the included part [{inc_key}]: an "
                              "included part's connectors are mated in its own file")
        part = include.effective_name
        b_name = b_key[len(inc_key) + len(SEP):]
        parent = include.parent
        parent_key = document.key(parent) if parent is not None else ROOT
        scope = _parent_scope(document, parent) if parent is not None else None
        if scope is None:
            raise EditRefused(f"the frames around [{inc_key}] cannot be resolved")
        version = _version_of(document)
        if version is not None and version < (1, 8):
            raise EditRefused(f"placement frames need SDFormat 1.8 or later; this file is "
                              f"{document.version}")
        if a_key == WORLD:
            if not isinstance(parent, World):
                raise EditRefused(f"[{inc_key}] is in a model, which cannot refer to the world "
                                  "frame: mate it to a connector in that model")
            a_name = WORLD
        else:
            try:
                a_name = _target_name(document, scope, parent_key, a_key)
            except EditRefused as exc:
                if "outside" in str(exc):
                    raise EditRefused(f"[{a_key}] is outside [{parent_key or 'the top'}], "
                                      f"which holds [{inc_key}]: an include is placed only "
                                      "relative to frames of its own model") from None
                raise
            # a placed (directly or not) relative to b's part: placing the part on a
            # would close a cycle
            head, seen = a_name.partition(SEP)[0], set()
            while head and head not in seen and head != scope.frame_name:
                if head == part:
                    raise EditRefused(f"[{a_key}] is placed relative to [{inc_key}]: placing "
                                      f"[{inc_key}] on it would make a cycle")
                seen.add(head)
                vertex = scope.vertices.get(head)
                if vertex is None:
                    break
                head = scope.base_of(vertex).partition(SEP)[0]
        nested = scope.vertices.get(part).nested if part in scope.vertices else None
        if nested is None or not nested.has(b_name):
            raise EditRefused(f"[{b_name}] is not a frame of the part [{inc_key}]")
        # the links that carry the two connectors
        graph = document.frames.root
        try:
            child_link = _body_of_connector(document, graph, b_key)
            parent_link = WORLD if a_key == WORLD else _body_of_connector(document, graph,
                                                                          a_key)
        except Unresolved as exc:
            raise EditRefused(f"a connector is attached to no link: {exc.reason}") from None
        for link in (parent_link, child_link):
            if link != WORLD and not isinstance(document.element(link), Link):
                raise EditRefused(f"[{link}] is not a link a joint can connect (a static "
                                  "part?)")
        if parent_link == child_link:
            raise EditRefused("both connectors are on the same link")
        joint_type = MATE_JOINTS[kind]
        scoped = [k for k in (parent_link, child_link) if k != WORLD]
        model, scope_key = enclosing_model(document, scoped)
        joint_name = name or free_name(model, kind)
        axis = None if joint_type in ("fixed", "ball") else (0.0, 0.0, 1.0)
        joint = AddJointBetween(document, joint_name, joint_type, parent_link, child_link,
                                axis=axis)
        # the joint frame is on connector b (which lands on a): a hinge turns about the
        # line through the connectors and a ball about their point, not about the child
        # link's origin (a joint's default frame); the axis is b's main axis (z)
        joint.node.pose = PoseSpec(Pose(), name_in(scope_key, b_key), True)
        if joint.node.axes:
            joint.node.axes[0] = replace(joint.node.axes[0],
                                         expressed_in=name_in(scope_key, b_key))
        offset = mate_offset(kind, angle, position)
        commands = [SetField(document, include, "placement_frame", b_name),
                    SetPose(document, include, offset, a_name), joint]
        super().__init__(f"Mate {b_key} to {a_key} ({kind}: placed and joined)", commands)
        self.document, self.include, self.kind = document, include, kind
        self.node: Joint = joint.node
        self.offset = offset


def _body_of_connector(document: Document, graph, key: str) -> str:
    """The link a mate on connector ``key`` acts on: its frame's body, or for a redirected
    connector (OpenPLX ``RedirectedMateConnector``) its ``redirected_parent``, named from
    the connector's system (else from the top system of the part, as SNAP looks it up)."""
    node = document.element(key)
    redirected = getattr(node, "redirected_parent", "")
    if not redirected:
        return graph.body_of(key)
    scoped = redirected.replace(".", SEP)
    parts = split_part(key)[0].split(SEP)[:-1]
    held = _holding_include(document, key)
    tops = [SEP.join(parts)] + ([held[1]] if held is not None else [])
    for top in tops:
        candidate = f"{top}{SEP}{scoped}" if top else scoped
        if isinstance(document.element(candidate), Link):
            return candidate
    raise EditRefused(f"the redirected connector [{key}] names no body [{redirected}]")


def _version_of(document: Document) -> tuple[int, int] | None:
    from .placing import _version
    if document.format not in ("", "sdformat"):
        return None
    return _version(document)
