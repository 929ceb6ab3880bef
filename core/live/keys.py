"""Instance keys: the stable public name of every element of every include instance.

Nodes inside an ``//include`` belong to the included file's model, a template shared by
every include of that file, so a node (and its ``id``) does not say *which* instance a
view shows.  A key does: it is the element's scoped name from the document's top model
or world, exactly as ``snapframe frames`` prints it without the top model's name
(``robot_1::arm::forearm``).  Elements that are not frames get a suffix on their link's
key: ``robot_1::arm::forearm#visual:shell``, ``...#collision:shell``.  Mates are named in
their model's scope like frames (``clock::hand_hinge``).  The root (top model or world)
is the empty key ``""``.

Keys are strings, so they survive undo/redo and reloads: after a reload of the same file,
an element with the same scoped name has the same key and a view keeps its actor.
"""

from __future__ import annotations

from typing import Iterator

from ..model import (Collision, Frame, Include, Joint, Link, Mate, Model, Node, Plugin,
                     Visual, World)
from ..model.names import SEP

__all__ = ["ROOT", "PART_MARK", "part_key", "split_part", "join_key", "key_of", "find",
           "subtree_keys", "is_inside_include"]

ROOT = ""
#: Separates a link's key from one of its visuals or collisions.
PART_MARK = "#"

_PARTS = {"visual": "visuals", "collision": "collisions"}


def join_key(scope: str, name: str) -> str:
    return f"{scope}{SEP}{name}" if scope else name


def part_key(link_key: str, kind: str, name: str) -> str:
    """Key of a visual or collision (``kind``) named ``name`` of the link ``link_key``."""
    return f"{link_key}{PART_MARK}{kind}:{name}"


def split_part(key: str) -> tuple[str, str, str]:
    """``"a::l#visual:v"`` -> ``("a::l", "visual", "v")``; a frame key -> ``(key, "", "")``."""
    head, mark, rest = key.partition(PART_MARK)
    if not mark:
        return key, "", ""
    kind, _, name = rest.partition(":")
    return head, kind, name


def _entity_name(node: Node) -> str:
    return node.effective_name if isinstance(node, Include) else node.name


def _children_in_scope(container: Node) -> Iterator[Node]:
    """Entities whose names live in ``container``'s scope (an include's model and the
    frames/joints the include adds share one scope)."""
    if isinstance(container, Include):
        if container.model is not None:
            yield from container.model.entities
        yield from container.entities
    elif isinstance(container, (Model, World)):
        for e in container.entities:
            if isinstance(e, Include) and e.merge:
                # Merged children join this scope under their own names.
                if e.model is not None:
                    yield from e.model.entities
                yield from e.entities
            else:
                yield e


def key_of(node: Node, root: Node) -> str:
    """Key of a node of the document itself (not one inside an include: see
    :func:`subtree_keys` for those).  Visuals and collisions get their part key."""
    if node is root:
        return ROOT
    if isinstance(node, (Visual, Collision)):
        link = node.parent
        link_key = key_of(link, root) if link is not None else ""
        return part_key(link_key, node.kind, node.name)
    names: list[str] = []
    current: Node | None = node
    while current is not None and current is not root:
        parent = current.parent
        if isinstance(parent, Include) and parent.merge:
            parent = parent.parent  # merged entities live in the including scope
        names.append(_entity_name(current))
        current = parent
    return SEP.join(reversed(names))


def find(root: Node | None, key: str) -> Node | None:
    """The node a key names (for elements inside includes: the shared template node), or
    None.  ``key`` may also be a scoped name with the top model's name in front."""
    if root is None:
        return None
    head, kind, part_name = split_part(key)
    node = _find_scoped(root, head)
    if node is None and isinstance(root, Model):
        first, _, rest = head.partition(SEP)
        if first == root.name:
            node = root if not rest else _find_scoped(root, rest)
    if node is None or not kind:
        return node
    if not isinstance(node, Link) or kind not in _PARTS:
        return None
    return next((p for p in getattr(node, _PARTS[kind]) if p.name == part_name), None)


def _find_scoped(root: Node, name: str) -> Node | None:
    if name == ROOT:
        return root
    container: Node = root
    parts = name.split(SEP)
    for i, part in enumerate(parts):
        found = None
        for e in _children_in_scope(container):
            if _entity_name(e) == part and not isinstance(e, Plugin):
                found = e
                if not e.extras.get("derived_from_mate"):
                    break  # a mate and the joint derived from it share a name: the mate
        if found is None:
            return None
        if i == len(parts) - 1:
            return found
        if not isinstance(found, (Model, Include)):
            return None
        container = found
    return None


def subtree_keys(node: Node, key: str) -> Iterator[tuple[str, Node]]:
    """``(key, node)`` of ``node`` (whose key is ``key``) and of everything below it,
    through includes (each instance gets its own keys)."""
    stack: list[tuple[str, Node]] = [(key, node)]
    while stack:
        k, n = stack.pop()
        yield k, n
        if isinstance(n, Link):
            for part in (*n.visuals, *n.collisions):
                yield part_key(k, part.kind, part.name), part
        if isinstance(n, (Model, World, Include)):
            kids = [(join_key(k, _entity_name(e)), e) for e in _children_in_scope(n)
                    if isinstance(e, (Link, Joint, Frame, Model, Include, Mate))]
            stack.extend(reversed(kids))


def is_inside_include(node: Node, root: Node) -> bool:
    """True for nodes the document does not own: template nodes of an included file (a
    template model has no parent, so its nodes never reach the document's root)."""
    return node is not root and not any(a is root for a in node.ancestors())
