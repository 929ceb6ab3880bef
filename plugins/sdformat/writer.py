"""Document -> SDFormat.

Two modes:

* **modular** (default): ``//include`` elements are written as includes, so the composite
  stays modular.  The writer starts from the elements the reader kept and changes only
  what the model owns (names, poses, references, include fields), so comments, unknown
  elements and custom namespaced elements survive unchanged.
* **flattened**: every include is replaced by the model it names (and so on inside it),
  giving one self-contained file.

Nodes created by edits (no source element) get fresh elements.  Saves are atomic.  The
tree is walked with an explicit stack, so any nesting depth is written (a thousand
nested models or includes is tested).

Every element the reader does not turn into a node is kept as written, in its place:
world plugins are nodes (the writer makes a container's entity elements be its entities),
``<scene>``, lights and any other child stay.  Nodes another format's reader built (a
URDF's) get the SDFormat that reader set aside for them (``extras["sdformat_elements"]``:
its ``<gazebo>`` extensions).  Every world of a multi-world file is written.  A file
deeper than Snapframe's XML parser opens (256 levels) is refused, one deeper than
libsdformat 12 opens (99) is written with a warning (:func:`_check_depth`).

OpenPLX content: a :class:`MateConnector` is written as the ``<frame>`` it is; a
:class:`Mate` is not an element, the joints derived from it are
(:mod:`snapframe.core.snap.joints`).  A mate with no joint (a distance mate) is reported
when saving: SDFormat cannot keep it.
"""

from __future__ import annotations

import copy
import math
import os
import re
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from lxml import etree

from snapframe.core.diagnostics import Code, Diagnostic, Severity
from snapframe.core.fileio import atomic_write
from snapframe.core.model import (Collision, Document, Frame, Geometry, Include, Inertial, Joint,
                                  Link, Mate, MateConnector, Model, Node, Plugin, PoseSpec, Visual,
                                  World)
from snapframe.core.model.nodes import MeshData
from snapframe.core.pose import IDENTITY, Pose

from .reader import parse_pose_text

__all__ = ["write", "to_string", "to_element", "stl_bytes", "MeshExport", "plan_mesh_exports",
           "write_mesh_exports"]

#: The children the reader turns into nodes, per container: the writer makes those be the
#: container's entities (an entity removed by an edit loses its element) and leaves every
#: other child as written -- a tag the reader does not model in that place (a <link> in a
#: <world>, say) is content the document does not know, and a save never drops it.
_ENTITY_TAGS: dict[str, frozenset[str]] = {
    "model": frozenset({"link", "joint", "frame", "model", "include", "plugin"}),
    "world": frozenset({"model", "include", "frame", "joint", "plugin"}),
    "include": frozenset({"frame", "joint", "plugin"}),
}


def _is_entity_element(container: etree._Element, child: etree._Element) -> bool:
    tags = _ENTITY_TAGS.get(container.tag if isinstance(container.tag, str) else "")
    return tags is not None and isinstance(child.tag, str) and child.tag in tags


DEFAULT_VERSION = "1.11"


def _num(v: float) -> str:
    if v == 0.0:
        return "0"
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text


def pose_text(X: Pose) -> str:
    return " ".join(_num(v) for v in X.xyz_rpy())


def _child(el: etree._Element, tag: str) -> etree._Element | None:
    for c in el:
        if c.tag == tag:
            return c
    return None


def _set_text_child(el: etree._Element, tag: str, text: str | None, index: int | None = None) -> None:
    c = _child(el, tag)
    if text is None:
        if c is not None:
            el.remove(c)
        return
    if c is None:
        c = etree.Element(tag)
        if index is None:
            el.append(c)
        else:
            el.insert(index, c)
    c.text = text


def _sync_pose(el: etree._Element, spec: PoseSpec | None, insert_at: int = 0) -> None:
    existing = _child(el, "pose")
    if spec is None or (not spec.written and spec.value.is_identity() and not spec.relative_to):
        if existing is not None and (spec is None or not spec.written):
            el.remove(existing)
        return
    if existing is not None:
        try:
            old = parse_pose_text(existing.text or "", existing.get("degrees"),
                                  existing.get("rotation_format"))
        except ValueError:
            old = None
        if old is None:
            # The reader could not parse it (and said so); it read it as the identity.
            # Unless the pose was edited since, keep the author's text to fix by hand.
            old = IDENTITY
        if old.almost_equal(spec.value, 1e-12) \
                and (existing.get("relative_to") or "") == spec.relative_to:
            return  # unchanged: keep the author's text (degrees, quaternions, spacing)
    else:
        existing = etree.Element("pose")
        existing.tail = el.text if el.text and not el.text.strip() else None
        el.insert(insert_at, existing)
    existing.text = pose_text(spec.value)
    for attr in ("degrees", "rotation_format", "frame"):
        existing.attrib.pop(attr, None)
    if spec.relative_to:
        existing.set("relative_to", spec.relative_to)
    else:
        existing.attrib.pop("relative_to", None)


def _sync_axes(el: etree._Element, joint: Joint) -> None:
    """Write axes back: direction, ``expressed_in`` and limits (an edit or a rename may
    change them; an axis added in the editor gets its element).  Values that did not
    change keep their text."""
    for tag, axis in zip(("axis", "axis2"), joint.axes):
        a = _child(el, tag)
        if a is None:
            a = etree.SubElement(el, tag)
        xyz = _child(a, "xyz")
        if xyz is None:
            xyz = etree.SubElement(a, "xyz")
        try:
            old = [float(v) for v in (xyz.text or "").split()]
        except ValueError:
            old = []
        n = math.sqrt(sum(v * v for v in old)) if len(old) == 3 else 0.0
        if n == 0.0 or any(abs(o / n - v) > 1e-12 for o, v in zip(old, axis.xyz)):
            xyz.text = " ".join(_num(v) for v in axis.xyz)
        if axis.expressed_in:
            xyz.set("expressed_in", axis.expressed_in)
        else:
            xyz.attrib.pop("expressed_in", None)
        limit = _child(a, "limit")
        values = {k: getattr(axis, k) for k in ("lower", "upper", "effort", "velocity")}
        if limit is None and any(v is not None for v in values.values()):
            limit = etree.SubElement(a, "limit")
        if limit is not None:
            for key, value in values.items():
                if value is None or not math.isfinite(value):
                    # an infinite limit is written as libsdformat writes "no limit"
                    if value is not None:
                        _sync_number(limit, key, 1e16 if value > 0 else -1e16)
                    elif _child(limit, key) is not None and key in ("lower", "upper"):
                        limit.remove(_child(limit, key))
                    continue
                _sync_number(limit, key, value)


class _Writer:
    """Builds the ``<world>``/``<model>`` element of a document.

    The tree is walked with an explicit stack (no recursion: nesting depth is not limited
    by Python's stack).  A node is written either *live* (the element the reader kept is
    updated in place, unknown content and order kept) or as a *copy* (flattening: a copy
    of a template's element, so the included file's nodes are never altered).
    """

    def __init__(self, flatten: bool, out_dir: Path | None = None) -> None:
        self.flatten = flatten
        self.out_dir = out_dir

    def rebase_mesh_uris(self, el: etree._Element, source_file: str) -> None:
        """Flattening moves an included model's content into another file: relative mesh
        URIs must then be relative to the output file, not to the included one."""
        if not source_file or self.out_dir is None:
            return
        base = Path(source_file).resolve().parent
        for uri in el.iter("uri"):
            parent = uri.getparent()
            text = (uri.text or "").strip()
            if parent is None or parent.tag != "mesh" or not text or "://" in text \
                    or Path(text).is_absolute():
                continue
            uri.text = os.path.relpath(base / text, self.out_dir)

    # -- the walk -----------------------------------------------------------------------
    def build(self, root: Node, as_copy: bool) -> etree._Element:
        """The element of ``root`` with everything below it."""
        result: list[etree._Element] = []
        # (node, written as a copy, the list its element joins)
        stack: list[tuple[Node, bool, list]] = [(root, as_copy, result)]
        # Containers whose children are known only once the walk is done:
        live: list[tuple[Node, etree._Element, list]] = []
        copies: list[tuple[etree._Element, list, list]] = []   # (element, children, tail)
        while stack:
            node, copy_mode, out = stack.pop()
            if isinstance(node, Include) and self.flatten and node.model is not None:
                if node.merge:
                    # A merged model is written as what it became: the proxy frame and the
                    # merged children, references rewritten to it, in the including scope.
                    from snapframe.core.frames.merge import merged_entities
                    scope_frame = "world" if isinstance(node.parent, World) else "__model__"
                    merged = merged_entities(node, node.model, scope_frame)
                    stack.extend((n, True, out) for n in reversed(merged))
                    continue
                el = self.flattened_include(node)
                kids: list = []
                # Frames and joints the <include> adds follow the model's own children.
                tail = [copy.deepcopy(self.element(extra)) for extra in node.entities]
                copies.append((el, kids, tail))
                out.append(el)
                stack.extend((e, True, kids) for e in reversed(_written(node.model.entities)))
                continue
            if isinstance(node, Include) and copy_mode:
                copy_mode = False   # an include that failed: kept as written (then copied)
            el = self.element_copy(node) if copy_mode else self.element(node)
            out.append(el)
            if isinstance(node, (Model, World)) or (isinstance(node, Include) and not copy_mode):
                children = [e for e in _written(node.entities)
                            if not e.extras.get("merged_from")]
                kids = []
                if copy_mode:
                    copies.append((el, kids, []))
                else:
                    live.append((node, el, kids))
                stack.extend((e, copy_mode, kids) for e in reversed(children))
        for node, el, kids in live:
            self.arrange(el, kids)
            if node.xml is None and isinstance(node, Model):
                merge_sdformat_extras(el, node)   # after arrange: it may hold <plugin>s
        # After the live elements are complete: a copy takes a live element as it now is.
        for el, kids, tail in copies:
            for child in [*kids, *tail]:
                el.append(copy.deepcopy(child) if child.getparent() is not None else child)
        return result[0]

    # -- one node's own element (its children are placed by build) -------------------------
    def element(self, node: Node) -> etree._Element:
        """The node's own element, updated in place (live)."""
        if isinstance(node, Include):
            return self.include(node)
        tag = "frame" if isinstance(node, MateConnector) else node.kind
        el = node.xml if node.xml is not None else etree.Element(tag)
        if node.name:
            el.set("name", node.name)
        if isinstance(node, Model):
            self.model(node, el)
        elif isinstance(node, Link):
            _sync_pose(el, node.pose)
            if node.xml is None:
                if node.inertial is not None:
                    el.append(inertial_element(node.inertial))
                for part in (*node.visuals, *node.collisions):
                    el.append(part_element(part))
            else:
                _sync_parts(el, node)
                if node.inertial is not None and node.inertial.dirty:
                    sync_inertial(el, node.inertial)
                elif node.inertial is not None and _child(el, "inertial") is not None:
                    inertial_el = _child(el, "inertial")
                    _sync_number(inertial_el, "mass", node.inertial.mass)
                    _sync_number(inertial_el, "density", node.inertial.density)
        elif isinstance(node, Joint):
            el.set("type", node.type or "fixed")
            _set_text_child(el, "parent", node.parent_name)
            _set_text_child(el, "child", node.child_name)
            _sync_pose(el, node.pose)
            if node.xml is not None:
                _sync_axes(el, node)
            else:
                for i, axis in enumerate(node.axes):
                    a = etree.SubElement(el, "axis" if i == 0 else "axis2")
                    xyz = etree.SubElement(a, "xyz")
                    xyz.text = " ".join(_num(v) for v in axis.xyz)
                    if axis.expressed_in:
                        xyz.set("expressed_in", axis.expressed_in)
                    values = [(key, getattr(axis, key)) for key in
                              ("lower", "upper", "effort", "velocity")]
                    if any(v is not None and math.isfinite(v) for _, v in values):
                        # (a continuous joint's effort and velocity limits too)
                        lim = etree.SubElement(a, "limit")
                        for key, val in values:
                            if val is not None and math.isfinite(val):
                                etree.SubElement(lim, key).text = _num(val)
        elif isinstance(node, Frame):
            if node.attached_to:
                el.set("attached_to", node.attached_to)
            else:
                el.attrib.pop("attached_to", None)
            _sync_pose(el, node.pose)
        elif isinstance(node, Plugin):
            if node.filename:
                el.set("filename", node.filename)
        if node.xml is None and isinstance(node, (Link, Joint)):
            merge_sdformat_extras(el, node)
        return el

    def model(self, model: Model, el: etree._Element) -> None:
        for attr in ("canonical_link", "placement_frame"):
            value = getattr(model, attr)
            if value:
                el.set(attr, value)
            else:
                el.attrib.pop(attr, None)
        static = _child(el, "static")
        if model.static or static is not None:
            _set_text_child(el, "static", "true" if model.static else "false")
        _sync_pose(el, model.pose)

    def arrange(self, el: etree._Element, wanted: list[etree._Element]) -> None:
        """Make ``el``'s entity children be ``wanted``, in document order (the first link
        is the canonical one, so order matters); leave other children alone.

        An entity already in ``el`` and in order stays where it is, so the other children
        between entities (``<scene>``, ``<light>``, comments) keep their places; only
        entities out of order, or new, are moved next to the entity before them."""
        wanted_ids = {id(w) for w in wanted}
        for c in list(el):
            if _is_entity_element(el, c) and id(c) not in wanted_ids:
                _remove_keeping_layout(c)
        position = {id(c): i for i, c in enumerate(el)}
        last = -1
        previous: etree._Element | None = None
        layout: tuple[str, str, str] | None = None
        for w in wanted:
            at = position.get(id(w)) if w.getparent() is el else None
            if at is not None and at > last:
                last, previous = at, w   # in order: stays in place
                continue
            if w.getparent() is el:
                _remove_keeping_layout(w)
            if layout is None:
                layout = _child_layout(el)   # (before anything moves: the file's own)
            # Placed on a line of its own, indented like its siblings, its own content
            # indented below it when it has none (an element made in the editor).
            own, child, unit = layout
            if previous is not None:
                w.tail, previous.tail = _line_break(previous.tail, own), "\n" + child
                previous.addnext(w)
            else:
                first = next((c for c in el if id(c) in wanted_ids and c is not w), None)
                if first is None and len(el):
                    before = el[-1]
                    w.tail, before.tail = _line_break(before.tail, own), "\n" + child
                    el.append(w)
                elif first is None:
                    el.text, w.tail = "\n" + child, "\n" + own
                    el.append(w)
                else:
                    first.addprevious(w)
                    w.tail = "\n" + child
            if _unformatted(w) and len(child) % len(unit) == 0 and child == unit * (
                    len(child) // len(unit)):
                etree.indent(w, space=unit, level=len(child) // len(unit))
            previous = w

    def include(self, inc: Include) -> etree._Element:
        """An ``<include>`` element as written (its added frames and joints are placed by
        :meth:`build`)."""
        el = inc.xml if inc.xml is not None else etree.Element("include")
        if inc.merge:
            el.set("merge", "true")
        else:
            el.attrib.pop("merge", None)
        _set_text_child(el, "uri", inc.uri, 0)
        _set_text_child(el, "name", inc.name or None)
        _set_text_child(el, "placement_frame", inc.placement_frame or None)
        if inc.static is not None:
            _set_text_child(el, "static", "true" if inc.static else "false")
        else:
            _set_text_child(el, "static", None)
        _sync_pose(el, inc.pose, len(el))
        return el

    def flattened_include(self, inc: Include) -> etree._Element:
        """The included model's element (a copy, without children) with the include's
        name, pose, placement frame and static override."""
        model = inc.model
        assert model is not None
        el = self.element_copy(model)
        el.set("name", inc.effective_name)
        pose = inc.pose if inc.pose is not None else model.pose
        placement = inc.placement_frame or model.placement_frame
        if placement:
            el.set("placement_frame", placement)
        if inc.static is not None:
            _set_text_child(el, "static", "true" if inc.static else "false")
        _sync_pose(el, PoseSpec(pose.value, pose.relative_to, True, pose.source))
        return el

    def element_copy(self, node: Node) -> etree._Element:
        """A detached copy of a node's own element (containers without their children),
        for flattening: the template's nodes and elements are left alone."""
        twin = copy.copy(node)
        twin.xml = copy.deepcopy(node.xml) if node.xml is not None else None
        if isinstance(node, (Model, World)):
            twin.entities = []
            el = twin.xml if twin.xml is not None else etree.Element(node.kind)
            for c in list(el):
                if _is_entity_element(el, c):
                    el.remove(c)
            twin.xml = el
            if node.name:
                el.set("name", node.name)
            if isinstance(twin, Model):
                self.model(twin, el)
                if node.xml is None:
                    merge_sdformat_extras(el, node)
            return el
        if twin.xml is not None and isinstance(node, Link):
            self.rebase_mesh_uris(twin.xml, node.source.file)
        elif isinstance(node, Link) and self.flatten and self.out_dir is not None:
            el = self.element(twin)
            for part, part_el in zip((*node.visuals, *node.collisions),
                                     [c for c in el if c.tag in ("visual", "collision")]):
                resolved = part.geometry.params.get("resolved_path")
                uri = part_el.find("geometry/mesh/uri")
                if resolved and uri is not None and "://" not in (uri.text or ""):
                    uri.text = os.path.relpath(resolved, self.out_dir)
            return el
        return self.element(twin)


def _indent_before(el: etree._Element) -> str | None:
    """The indentation of ``el``'s line in the file: the whitespace after the last line
    break before its start tag (None when something else shares its line)."""
    prev = el.getprevious()
    parent = el.getparent()
    space = prev.tail if prev is not None else parent.text if parent is not None else None
    if space is None or space.strip() or "\n" not in space:
        return None
    return space.rsplit("\n", 1)[1]


def _child_layout(el: etree._Element) -> tuple[str, str, str]:
    """(``el``'s indentation, its children's, one level's) as the file has them (two
    spaces a level where it says nothing)."""
    own = _indent_before(el) or ""
    child = next((i for i in (_indent_before(c) for c in el) if i is not None), None)
    if child is None or len(child) <= len(own) or not child.startswith(own):
        return own, own + "  ", "  "
    return own, child, child[len(own):]


def _line_break(space: str | None, own: str) -> str:
    """The whitespace that ended the line of an element now followed by another one: a
    line break kept as it was (the next sibling's or the closing tag's indentation)."""
    return space if space is not None and not space.strip() and "\n" in space \
        else "\n" + own


def _remove_keeping_layout(c: etree._Element) -> None:
    """Take ``c`` out of its parent, the line it stood on with it: what followed it (its
    tail) ends the line before instead, so the closing tag keeps its indentation."""
    parent = c.getparent()
    if parent is None:
        return
    tail = c.tail
    prev = c.getprevious()
    if tail is not None and not tail.strip():
        if prev is not None:
            prev.tail = tail if prev.tail is None or not prev.tail.strip() else prev.tail
        elif parent.text is None or not parent.text.strip():
            parent.text = tail
    parent.remove(c)


def _unformatted(el: etree._Element) -> bool:
    """Whether ``el`` has children and no line breaks between them (built in memory)."""
    if len(el) == 0:
        return False
    for node in el.iter():
        if node is not el and "\n" in (node.tail or ""):
            return False
        if node.text is not None and not node.text.strip() and "\n" in node.text:
            return False
    return True


def _written(entities: list[Node]) -> list[Node]:
    """The entities that are SDFormat elements (a mate is not: its joints are)."""
    return [e for e in entities if not isinstance(e, Mate)]


def report_unwritten_mates(document: Document, flatten: bool = False) -> None:
    """Warn (in the document's diagnostics) about each mate SDFormat has no joint for.
    Included models only count when flattening (an include keeps its own file)."""
    root = document.root
    if root is None or not any(isinstance(n, Mate) for n in
                               document.nodes(into_includes=flatten)):
        return
    from snapframe.core.snap.joints import plan_mate_joints
    tops = [root] if isinstance(root, Model) else [e for e in root.entities
                                                   if isinstance(e, Model)]
    if flatten:
        tops += [n.model for n in document.nodes(into_includes=True)
                 if isinstance(n, Include) and n.model is not None]
    for top in tops:
        for plan in plan_mate_joints(top):
            if plan.host is None:
                why = plan.reason or f"mate '{plan.mate.name}' derives no joint"
                document.diagnostics.warning(Code.CONVERSION_ERROR, f"{why}; SDFormat cannot "
                                             "keep the mate, it is not saved", plan.mate.source)


# -- meshes held in memory ----------------------------------------------------------------
#: While a save runs: id(MeshData) -> the URI its exported file is written as.
_EXPORTED_URIS: ContextVar[dict] = ContextVar("exported_mesh_uris", default={})

_STL_TRIANGLE = np.dtype([("normal", "<f4", (3,)), ("vertices", "<f4", (3, 3)),
                          ("attribute", "<u2")])


def stl_bytes(vertices, faces, header: bytes = b"snapframe") -> bytes:
    """A binary STL of the triangles: an 80-byte header, the little-endian uint32 count,
    then per triangle its unit normal and three vertices (float32) and a zero uint16."""
    V = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
    F = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    tri = V[F]                                        # (m, 3, 3)
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    out = np.zeros(len(F), dtype=_STL_TRIANGLE)
    out["normal"] = n
    out["vertices"] = tri
    return (header[:80].ljust(80, b" ") + np.uint32(len(F)).astype("<u4").tobytes()
            + out.tobytes())


@dataclass
class MeshExport:
    """One in-memory mesh to be written as a file: ``path`` (absolute) and ``uri`` (as the
    written file refers to it, relative to its folder)."""

    data: MeshData
    path: Path
    uri: str


def _has_file(params: dict) -> bool:
    path = params.get("resolved_path")
    return bool(path) and os.path.isfile(str(path))


#: Most bytes of STL :func:`write_mesh_exports` holds before writing them out.
MESH_BATCH_BYTES = 64 << 20


def plan_mesh_exports(parts, target: str | Path) -> list[MeshExport]:
    """The mesh files a save to ``target`` writes for ``parts`` (visuals and collisions):
    one STL per :class:`MeshData` of a mesh geometry without a file, however many parts
    share it, in ``<target stem>_meshes/`` next to ``target``."""
    target = Path(target).resolve()
    folder_name = f"{target.stem}_meshes"
    exports: dict[int, MeshExport] = {}
    used: set[str] = set()
    for part in parts:
        geo = getattr(part, "geometry", None)
        if geo is None or geo.shape != "mesh":
            continue
        data = geo.params.get("data")
        if not isinstance(data, MeshData) or id(data) in exports or _has_file(geo.params):
            continue
        base = re.sub(r"[^A-Za-z0-9_.-]+", "_", data.name).strip("._-") or "mesh"
        name, k = base, 1
        while name.lower() in used:
            k += 1
            name = f"{base}_{k}"
        used.add(name.lower())
        exports[id(data)] = MeshExport(data, target.parent / folder_name / f"{name}.stl",
                                       f"{folder_name}/{name}.stl")
    return list(exports.values())


def write_mesh_exports(document: Document, exports: list[MeshExport], target: str | Path
                       ) -> list[MeshExport]:
    """Write ``exports`` (atomically, each); report in ``document.diagnostics`` what was
    written (info) and what could not be (warning).  Returns the ones written.

    The files go in batches (:func:`~snapframe.core.fileio.atomic_write_many`: the
    folder is synced once a batch, not once a file: about a third less time for the
    hundred meshes of a large floor plan), each batch holding at most
    :data:`MESH_BATCH_BYTES` of STL."""
    from snapframe.core.fileio import atomic_write_many
    written, failed = [], []
    batch: list[tuple[MeshExport, bytes]] = []
    held = 0

    def flush() -> None:
        errors = atomic_write_many([(e.path, data) for e, data in batch])
        for e, _ in batch:
            error = errors.get(Path(e.path))
            if error is None:
                written.append(e)
            else:
                failed.append((e, error))
        batch.clear()

    for e in exports:
        data = stl_bytes(e.data.vertices, e.data.faces,
                         f"snapframe mesh {e.data.name}".encode("ascii", "replace"))
        batch.append((e, data))
        held += len(data)
        if held >= MESH_BATCH_BYTES:
            flush()
            held = 0
    if batch:
        flush()
    where = document.root.source if document.root is not None else None
    if written:
        # The first line sums it up (a floor plan writes a hundred files: a status bar
        # shows that line), the second names them (the command line prints both).
        folder = written[0].path.parent
        count = len(written)
        names = ", ".join(e.path.name for e in written)
        document.diagnostics.add(Diagnostic(
            Severity.INFO, Code.FILES_WRITTEN,
            f"{count} mesh file{'s' if count != 1 else ''} written to {folder.name}/ "
            f"next to {Path(target).name} (STL files of the meshes held in memory)\n"
            f"in {folder}: {names}",
            where.file if where else "", where.line if where else 0))
    if failed:
        listed_ = "; ".join(f"{e.path} ({exc.strerror or exc})" for e, exc in failed)
        document.diagnostics.warning(
            Code.CONVERSION_ERROR, f"{Path(target).name}: mesh files could not be written, "
            f"their geometries keep URIs no reader can load: {listed_}", where)
    return written


def _export_parts(document: Document, flatten: bool) -> list:
    return [n for n in document.nodes(into_includes=flatten)
            if isinstance(n, (Visual, Collision))]


def geometry_element(geo: Geometry) -> etree._Element:
    g = etree.Element("geometry")
    if geo.shape == "empty":
        etree.SubElement(g, "empty")
        return g
    shape = etree.SubElement(g, geo.shape)
    for key, value in geo.params.items():
        if key in ("resolved_path", "center_submesh", "data") or value is None:
            continue
        if key == "uri" and geo.shape == "mesh":
            exported = _EXPORTED_URIS.get().get(id(geo.params.get("data")))
            if exported is not None:
                value = exported
        if key == "submesh":
            sub = etree.SubElement(shape, "submesh")
            etree.SubElement(sub, "name").text = str(value)
            if geo.params.get("center_submesh"):
                etree.SubElement(sub, "center").text = "true"
            continue
        child = etree.SubElement(shape, key)
        if isinstance(value, (tuple, list)):
            child.text = " ".join(_num(v) for v in value)
        elif isinstance(value, float | int):
            child.text = _num(value)
        else:
            child.text = str(value)
    return g


def _sync_number(el: etree._Element, tag: str, value: float | None) -> None:
    """Make child ``tag`` hold ``value`` (None: no child); an equal value keeps its text."""
    child = _child(el, tag)
    if value is None:
        if child is not None:
            el.remove(child)
        return
    if child is not None:
        try:
            if float((child.text or "").strip()) == value:
                return
        except ValueError:
            pass
    _set_text_child(el, tag, _num(value))


def _sync_parts(el: etree._Element, link: Link) -> None:
    """Bring a kept ``<link>`` element's visuals and collisions in line with the link:
    poses, names and densities of the kept ones; new parts added, removed ones dropped."""
    wanted: list[etree._Element] = []
    # A flattened copy of the link holds copies of the parts' elements: match those.
    copies = {(c.tag, c.get("name")): c for c in el if c.tag in ("visual", "collision")}
    for part in (*link.visuals, *link.collisions):
        part_el = part.xml
        if part_el is not None and part_el.getparent() is not el:
            part_el = copies.get((part.kind, part_el.get("name")))
        if part_el is None:
            part_el = part_element(part)
            el.append(part_el)
        else:
            if part.name:
                part_el.set("name", part.name)
            _sync_pose(part_el, part.pose)
            if isinstance(part, Collision):
                _sync_number(part_el, "density", part.density)
            old_geometry = _child(part_el, "geometry")
            if old_geometry is not None and old_geometry.sourceline and \
                    not part.geometry.source.line:
                # the geometry was replaced by an edit (a read one knows its line)
                old_geometry.addnext(geometry_element(part.geometry))
                part_el.remove(old_geometry)
        wanted.append(part_el)
    keep = {id(w) for w in wanted}
    for c in list(el):
        if c.tag in ("visual", "collision") and id(c) not in keep:
            el.remove(c)


def part_element(part: Collision | Visual) -> etree._Element:
    el = etree.Element(part.kind, name=part.name or part.kind)
    _sync_pose(el, part.pose)
    el.append(geometry_element(part.geometry))
    if isinstance(part, Collision) and part.density is not None:
        etree.SubElement(el, "density").text = _num(part.density)
    if isinstance(part, Visual) and part.color is not None:
        material = etree.SubElement(el, "material")
        extra = part.extras.get("sdformat_elements") if part.xml is None else None
        # The colour is the diffuse one; a material set aside by another format's reader
        # (a URDF <gazebo> extension) says the rest, its ambient colour included.
        tags = ("diffuse",) if extra is not None and extra.find("material/ambient") is not None \
            else ("ambient", "diffuse")
        for tag in tags:
            etree.SubElement(material, tag).text = " ".join(_num(v) for v in part.color)
    if part.xml is None:
        merge_sdformat_extras(el, part)
    return el


def merge_sdformat_extras(el: etree._Element, node: Node) -> None:
    """Add the SDFormat content another format's reader set aside for ``node``
    (``extras["sdformat_elements"]``: an element of the node's tag, e.g. what a URDF
    ``<gazebo reference>`` extension adds to a joint) to the element written for it."""
    extra = node.extras.get("sdformat_elements")
    if extra is not None:
        _merge_into(el, extra)


def _merge_into(el: etree._Element, extra: etree._Element) -> None:
    """Unnamed containers merge with the one ``el`` has (``<axis>``, ``<physics>``);
    a value ``el`` holds already wins (it is the node's own); anything else is added."""
    for c in extra:
        if not isinstance(c.tag, str):
            continue
        container = any(isinstance(k.tag, str) for k in c)
        same = _child(el, c.tag) if c.get("name") is None else None
        if same is not None and container and same.get("name") is None:
            _merge_into(same, c)
        elif same is None:
            el.append(copy.deepcopy(c))


_TENSOR = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


def inertial_element(inertial: Inertial) -> etree._Element:
    el = etree.Element("inertial")
    if inertial.auto:
        el.set("auto", "true")
    sync_inertial(el, inertial)
    return el


def sync_inertial(link_or_inertial: etree._Element, inertial: Inertial) -> None:
    """Write mass, pose and tensor values into an ``<inertial>`` element, keeping
    ``@auto``, ``<density>``, ``<auto_inertia_params>`` and anything else it has."""
    el = link_or_inertial
    if el.tag == "link":
        found = _child(el, "inertial")
        if found is None:
            found = etree.SubElement(el, "inertial")
        el = found
    if inertial.mass is not None:
        _set_text_child(el, "mass", _num(inertial.mass))
    if inertial.auto and not inertial.dirty and not inertial.written_inertia:
        # Nothing computed yet: leave the tensor to the reader's auto-inertia.
        if inertial.density is not None and _child(el, "density") is None:
            etree.SubElement(el, "density").text = _num(inertial.density)
        return
    _sync_pose(el, inertial.pose)
    tensor = _child(el, "inertia")
    if tensor is None:
        tensor = etree.SubElement(el, "inertia")
    for key in _TENSOR:
        _set_text_child(tensor, key, _num(getattr(inertial, key)))
    if inertial.density is not None and _child(el, "density") is None:
        etree.SubElement(el, "density").text = _num(inertial.density)


def to_element(document: Document, *, flatten: bool = False,
               out_dir: Path | None = None) -> etree._Element:
    """The ``<sdf>`` element for ``document`` (does not touch the file).  ``out_dir`` is
    where the file will be written (flattening rewrites relative mesh URIs against it)."""
    writer = _Writer(flatten, out_dir)
    tree = document.extras.get("xml")
    if tree is not None:
        sdf = copy.deepcopy(tree.getroot()) if flatten else tree.getroot()
    else:
        sdf = etree.Element("sdf")
    # Documents read from another format carry that format's version, not SDFormat's.
    version = document.version if document.format == "sdformat" and document.version \
        else DEFAULT_VERSION
    sdf.set("version", version)
    root = document.root
    if root is None:
        return sdf
    if flatten and tree is not None:
        # Work on copies so flattening never alters the open document's elements.  Every
        # world of the file is flattened in its place (the first is the document; the
        # others were read as documents of their own); anything else in <sdf> is kept.
        copies = {id(original): twin for original, twin in zip(tree.getroot(), sdf)}
        others = [d.root for d in document.extras.get("other_worlds", ())
                  if d.root is not None]
        for top in (root, *others):
            built = writer.build(top, as_copy=True)
            twin = copies.get(id(top.xml)) if top.xml is not None else None
            if twin is not None and twin.getparent() is sdf:
                built.tail = twin.tail
                sdf.replace(twin, built)
            else:
                sdf.insert(0 if top is root else len(sdf), built)
        return sdf
    el = writer.build(root, as_copy=False)
    if el.getparent() is None:
        sdf.append(el)
    for other in document.extras.get("other_worlds", ()):
        # The file's other worlds, brought up to date in place like the first (a Save As
        # elsewhere rebases their include URIs too).
        if other.root is not None and other.root.xml is not None:
            writer.build(other.root, as_copy=False)
    return sdf


def to_string(document: Document, *, flatten: bool = False, out_dir: Path | None = None) -> str:
    return _serialise(document, flatten, out_dir)[0]


def _serialise(document: Document, flatten: bool, out_dir: Path | None
               ) -> tuple[str, etree._Element]:
    """The file's text and its ``<sdf>`` element."""
    sdf = to_element(document, flatten=flatten,
                     out_dir=out_dir or (document.directory if document.path else None))
    tree = document.extras.get("xml")
    if tree is not None and sdf is tree.getroot():
        # Serialise the whole tree so comments before and after <sdf> are kept.
        text = etree.tostring(tree, encoding="unicode")
    else:
        if tree is None:
            etree.indent(sdf, space="  ")  # a document built in memory: make it readable
        text = etree.tostring(sdf, encoding="unicode")
    # Keep the file's own choice about the XML declaration (new documents get one).
    declare = tree is None or document.extras.get("xml_declaration", True)
    head = '<?xml version="1.0" ?>\n' if declare else ""
    return head + text + ("\n" if not text.endswith("\n") else ""), sdf


#: How deep the XML of an SDFormat file may nest for its readers to open it:
#: Snapframe's (libxml2 without XML_PARSE_HUGE: 256 elements, ``<sdf>`` counted) and
#: libsdformat 12's (tinyxml2 9: fewer than 100 nodes, where text, even the whitespace
#: between elements, and comments count as a level below their element; measured with
#: tests/oracle: 97 nested models holding an empty <link/> load, 98 do not).
SNAPFRAME_MAX_XML_DEPTH = 256
LIBSDFORMAT_MAX_XML_DEPTH = 99


def xml_depth(root: etree._Element) -> tuple[int, int]:
    """(deepest element, deepest node) below and including ``root`` (depth 1), counted
    without recursion; nodes are elements, comments and text as tinyxml2 counts them."""
    elements = nodes = 0
    stack = [(root, 1)]
    while stack:
        el, depth = stack.pop()
        if not isinstance(el.tag, str):
            nodes = max(nodes, depth)   # a comment or processing instruction
            continue
        elements = max(elements, depth)
        nodes = max(nodes, depth + 1 if el.text else depth)
        stack.extend((c, depth + 1) for c in el)
    return elements, nodes


def _check_depth(document: Document, sdf: etree._Element, flatten: bool) -> None:
    """Refuse a file Snapframe could not open again (raises
    :class:`~snapframe.plugins.nesting.NestingTooDeep`, a ``ValueError``, nothing written);
    warn about one libsdformat 12 cannot open that this save made so deep (flattening
    deeply included models: the modular file keeps each level in its own file)."""
    from snapframe.plugins.nesting import NestingTooDeep
    elements, nodes = xml_depth(sdf)
    what = document.root
    if elements > SNAPFRAME_MAX_XML_DEPTH:
        message = (f"the SDFormat file would nest its XML {elements} elements deep; "
                   f"Snapframe's XML parser opens {SNAPFRAME_MAX_XML_DEPTH} and libsdformat "
                   f"12's {LIBSDFORMAT_MAX_XML_DEPTH}, so nothing is written"
                   + ("; save it modular (keeping the includes) instead" if flatten else ""))
        document.diagnostics.error(Code.CONVERSION_ERROR, message,
                                   what.source if what is not None else None)
        raise NestingTooDeep(message)
    if nodes <= LIBSDFORMAT_MAX_XML_DEPTH:
        return
    # A modular save of a file read writes its nesting as it was (and stays faithful).
    if flatten or document.extras.get("xml") is None:
        document.diagnostics.warning(
            Code.CONVERSION_ERROR, f"the SDFormat file nests its XML {nodes} levels deep; "
            f"libsdformat 12 (Gazebo) refuses more than {LIBSDFORMAT_MAX_XML_DEPTH} "
            "(XML_ELEMENT_DEPTH_EXCEEDED), Snapframe opens it"
            + ("; save it modular (keeping the includes) for libsdformat" if flatten else ""),
            what.source if what is not None else None)


def report_unconverted(document: Document, flatten: bool) -> None:
    """Warn about what models read from another format hold that SDFormat cannot (a URDF's
    transmissions, say: ``extras["urdf_unconverted"]``), for each such model written in
    this file: the document's own, and with ``flatten`` the included ones (a modular save
    keeps the include, and so the file, as it is)."""
    root = document.root
    models = [root] if isinstance(root, Model) else []
    if flatten:
        models += [n.model for n in document.nodes(into_includes=True)
                   if isinstance(n, Include) and n.model is not None]
    seen: set[int] = set()
    for model in models:
        if id(model) in seen:
            continue
        seen.add(id(model))
        for message, where in model.extras.get("urdf_unconverted", ()):
            document.diagnostics.warning(Code.CONVERSION_ERROR, f"{message}: SDFormat has no "
                                         "counterpart; left out", where)


#: Formats libsdformat reads itself in an ``//include`` (URDF through its parser).
LIBSDFORMAT_INCLUDE_FORMATS = frozenset({"sdformat", "urdf"})


def report_nonportable_includes(document: Document, flatten: bool) -> None:
    """Warn about every include a modular save writes as an ``<include>`` of a file only
    a custom model parser reads (a floor plan, a mirabuf assembly): Snapframe reads the
    file back as it was, libsdformat and Gazebo cannot load it.  (``Code.NOT_PORTABLE``:
    nothing is lost, so the save is still the document's.)  A flattened save writes
    those models in place."""
    if flatten:
        return
    others = [d for d in document.extras.get("other_worlds", ()) if d.root is not None]
    for doc in (document, *others):
        for inc in doc.includes():
            if inc.merge or inc.model is None or not inc.format or \
                    inc.format in LIBSDFORMAT_INCLUDE_FORMATS:
                continue
            name = doc.key(inc) if doc.root is not None else inc.effective_name
            document.diagnostics.warning(
                Code.NOT_PORTABLE, f"include {name or inc.effective_name}: libsdformat and "
                f"Gazebo cannot load {inc.uri}; Save As SDFormat flattened writes it in place",
                inc.source, key=name if doc is document else None)


def write(document: Document, path: str | Path, *, flatten: bool = False) -> None:
    """Save ``document`` as SDFormat at ``path`` (atomically); content SDFormat cannot
    hold (a distance mate, a URDF transmission) is reported in ``document.diagnostics``,
    as are includes of files only Snapframe reads (kept: see
    :func:`report_nonportable_includes`)."""
    report_unwritten_mates(document, flatten)
    report_unconverted(document, flatten)
    report_nonportable_includes(document, flatten)
    out_dir = Path(path).resolve().parent
    # Meshes a reader holds in memory (params["data"]) become STL files next to the
    # output; the file refers to them relatively.  Planned first (the URIs), written
    # after the checks and before the file that names them.
    exports = plan_mesh_exports(_export_parts(document, flatten), path)
    token = _EXPORTED_URIS.set({id(e.data): e.uri for e in exports})
    try:
        text, sdf = _serialise(document, flatten, out_dir)
        _check_depth(document, sdf, flatten)
    finally:
        _EXPORTED_URIS.reset(token)
    if exports:
        written = write_mesh_exports(document, exports, path)
        if len(written) < len(exports):
            # the ones not written keep their URIs (and the warning says so)
            token = _EXPORTED_URIS.set({id(e.data): e.uri for e in written})
            try:
                text, sdf = _serialise(document, flatten, out_dir)
            finally:
                _EXPORTED_URIS.reset(token)
    atomic_write(path, text)
