"""Save documents as OpenPLX.

A document read from an ``.openplx`` file is written back by editing its original text
(:class:`.edit.SourceEditor`): with no edits the output is the input byte for byte; an
edited pose becomes an override in the assembled top model, and ``local_transform`` is
written only where the user fixed a frame (``PoseSpec.written``), because any assignment
makes a frame fixed for SNAP.  A frame made free again loses the assignments the top
model holds; assignments made elsewhere (a base model, another file) cannot be removed
from here and are reported.  Mates, mate connectors and joints added, changed or removed
in the editor are saved by :mod:`.mate_writer`; what cannot be saved is reported.

Any other document (SDFormat, URDF, built in memory) is converted with
:func:`.conversion.document_to_source`: includes stay modular (one type per included
file), joints become mates, and what OpenPLX cannot hold is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.model import Document, Frame, Link, Model, World
from snapframe.core.pose import Pose
from snapframe.core.snap.paths import is_derived

from . import ast as A
from .edit import SourceEditor
from .loader import OpenPlxFile
from .conversion import document_to_source
from .mapping import transform_lines, vec_text
from .mate_writer import MateWriter
from .parser import parse
from .physics import Assembly

__all__ = ["OpenPlxState", "document_text", "write"]


@dataclass(eq=False)
class OpenPlxState:
    """What a document read from OpenPLX remembers for saving it back."""

    file: OpenPlxFile
    model_name: str
    assembly: Assembly
    #: per system/body path: the declared local transform when read (None: free)
    declared: dict[str, Pose | None] = field(default_factory=dict)
    #: per connector path: X_OC when read
    connectors: dict[str, Pose] = field(default_factory=dict)
    #: per node path (links, collisions, visuals): what the writer cannot save yet
    #: (inertia, geometry), as read; a change is reported, not lost silently.  Filled by
    #: :meth:`remember`.
    unsaved: dict[str, tuple] = field(default_factory=dict)

    @classmethod
    def of(cls, file: OpenPlxFile, model_name: str, asm: Assembly) -> "OpenPlxState":
        state = cls(file, model_name, asm)
        for s in asm.systems:
            state.declared[s.path] = s.declared
        for b in asm.bodies:
            state.declared[b.path] = b.declared
        for c in asm.connectors:
            state.connectors[c.path] = c.X_OC
        return state

    def remember(self, model: Model) -> None:
        """Record the parts of the mapped model that saving does not write back."""
        for node in _nodes(model):
            sig = _signature(node)
            if sig is not None:
                self.unsaved[_node_key(node)] = sig


def write(document: Document, path: str | Path, **options) -> None:
    """Save ``document`` as OpenPLX (atomically); problems go to ``document.diagnostics``."""
    from snapframe.core.fileio import atomic_write

    text = document_text(document, document.diagnostics)
    atomic_write(path, text.encode("utf-8", errors="surrogateescape"))


def document_text(document: Document, diagnostics: Diagnostics | None = None) -> str:
    """The OpenPLX text of a document."""
    diags = diagnostics if diagnostics is not None else Diagnostics()
    state = document.extras.get("openplx")
    if isinstance(state, OpenPlxState):
        return _edited_text(document, state, diags)
    root = document.root
    if isinstance(root, (World, Model)):
        others = [d.root for d in document.extras.get("other_worlds", ())
                  if isinstance(d.root, World)]
        return document_to_source(root, diags, other_worlds=others)
    return "# empty document\n"


# -- editing the original text --------------------------------------------------------


def _edited_text(document: Document, state: OpenPlxState, diags: Diagnostics) -> str:
    file = state.file
    source = parse(file.text, file.path)   # a fresh tree: the loaded one stays pristine
    top = source.model(state.model_name)
    if top is None:
        return file.text
    editor = SourceEditor(source, file.text)
    by_pos = {(s.line, s.col): s for s in source.walk()}
    root_path = state.assembly.root.path
    root_node = document.root

    present = set()
    for node in document.nodes():
        if is_derived(node):
            continue   # joints and links derived from mates are saved as their mates
        path = node.extras.get("openplx_path")
        if path is None:
            if isinstance(node, (Link, Model)) and node is not root_node:
                diags.warning(Code.CONVERSION_ERROR, f"'{node.name}' was added in the editor; "
                              "adding bodies and systems to OpenPLX files is not supported yet")
            continue
        present.add(path)
        if node is root_node or not path.startswith(root_path + "."):
            continue
        rel = tuple(path[len(root_path) + 1:].split("."))
        if isinstance(node, Link):
            _pose_edit(editor, top, state, node, path, rel + ("kinematics", "local_transform"),
                       by_pos, diags)
        elif isinstance(node, Model):
            _pose_edit(editor, top, state, node, path, rel + ("local_transform",), by_pos, diags)
        elif isinstance(node, Frame) and path in state.connectors:
            _connector_edit(editor, top, state, node, path, rel)
    for path in state.declared:
        if path not in present:
            diags.warning(Code.CONVERSION_ERROR, f"'{path}' was removed in the editor; removing "
                          "bodies and systems from OpenPLX files is not supported yet, the file "
                          "keeps it")
    MateWriter(editor, top, state, document, by_pos, diags).run()
    _report_unsaved(document, state, diags)
    return editor.text() if editor.changed else file.text


def _nodes(root) -> list:
    out, todo = [], [root]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(reversed(node.children()))
    return out


def _node_key(node) -> str:
    path = node.extras.get("openplx_path", "")
    return f"{type(node).__name__}:{path}:{node.name}"


def _rounded(values) -> tuple:
    return tuple(round(float(v), 9) + 0.0 for v in values)


def _signature(node) -> tuple | None:
    """What an edit of ``node`` could change that the OpenPLX writer does not save."""
    from snapframe.core.model import Collision, Visual
    if is_derived(node):
        return None   # derived from a mate: see mate_writer
    if isinstance(node, Link):
        i = node.inertial
        if i is None:
            return ("inertial", None)
        return ("inertial", i.auto, i.mass, _rounded((i.ixx, i.iyy, i.izz, i.ixy, i.ixz, i.iyz)),
                _rounded(i.pose.value.xyz_quat()))
    if isinstance(node, (Collision, Visual)) and node.extras.get("openplx_path"):
        g = node.geometry
        params = tuple(sorted((k, repr(v)) for k, v in g.params.items()))
        density = getattr(node, "density", None)
        return ("geometry", g.shape, params, _rounded(node.pose.value.xyz_quat()), node.name,
                density)
    return None


def _report_unsaved(document: Document, state: OpenPlxState, diags: Diagnostics) -> None:
    if not state.unsaved:
        return
    what = {"inertial": "inertia", "geometry": "geometry"}
    seen: set[str] = set()
    for node in _nodes(document.root):
        sig = _signature(node)
        if sig is None:
            continue
        key = _node_key(node)
        seen.add(key)
        before = state.unsaved.get(key)
        if before is not None and before != sig:
            diags.warning(Code.CONVERSION_ERROR, f"the {what[sig[0]]} of '{node.name}' changed; "
                          "saving that to OpenPLX is not supported yet, the file keeps the old "
                          "value", node.source)
        elif before is None and sig[0] == "geometry":
            diags.warning(Code.CONVERSION_ERROR, f"'{node.name}' was added in the editor; adding "
                          "geometries to OpenPLX files is not supported yet, it is not saved",
                          node.source)
    for key, before in state.unsaved.items():
        if key not in seen and before[0] == "geometry":
            diags.warning(Code.CONVERSION_ERROR, f"a geometry ({key.split(':')[-1]}) was "
                          "removed in the editor; removing it from the OpenPLX file is not "
                          "supported yet, the file keeps it")
def _pose_value(node: Link | Model) -> Pose:
    """The node's pose in its parent model's frame."""
    spec = node.pose
    if not spec.relative_to or spec.relative_to == "__model__":
        return spec.value
    parent = node.parent
    if isinstance(parent, Model):
        from snapframe.core.frames.scope import Scope, Unresolved
        try:
            return Scope.for_model(parent, parent.name, parent.static, {}).pose_of(node.name)
        except Unresolved:
            pass
    return spec.value


def _pose_edit(editor: SourceEditor, top: A.ModelDecl, state: OpenPlxState, node: Link | Model,
               path: str, target: tuple[str, ...], by_pos: dict, diags: Diagnostics) -> None:
    before = state.declared.get(path)
    now = _pose_value(node)
    if node.pose.written:
        if before is not None and now.almost_equal(before, 1e-9):
            return
        for stmt in editor.find(top, target):
            editor.remove(stmt)
        lines = transform_lines(now, full=True)
        editor.set_block(top, target, lines)
        return
    if before is None:
        return
    info = state.assembly.system(path) or state.assembly.body(path)
    sites = info.declared_sites if info is not None else []
    found = editor.find(top, target)
    found_all = [s for f in found for s in f.walk()]
    outside = []
    for mod in sites:
        stmt = mod.stmt
        twin = by_pos.get((stmt.line, stmt.col)) if stmt is not None and \
            stmt.file == state.file.path else None
        if twin is None or not any(twin is s for s in found_all):
            outside.append(stmt)
    if outside:
        where = outside[0]
        diags.warning(Code.CONVERSION_ERROR, f"cannot make '{path}' free for SNAP: its "
                      f"local_transform is also set at {where.file}:{where.line}, outside model "
                      f"'{state.model_name}'", None)
        return
    for stmt in found:
        editor.remove(stmt)


def _connector_edit(editor: SourceEditor, top: A.ModelDecl, state: OpenPlxState, node: Frame,
                    path: str, rel: tuple[str, ...]) -> None:
    before = state.connectors[path]
    now = node.pose.value
    if now.almost_equal(before, 1e-9):
        return
    for attr in ("position", "main_axis", "normal"):
        for stmt in editor.find(top, rel + (attr,)):
            editor.remove(stmt)
    R = now.R
    lines = [f"position: {vec_text(now.p)}", f"main_axis: {vec_text((R[2], R[5], R[8]))}",
             f"normal: {vec_text((R[0], R[3], R[6]))}"]
    editor.set_block(top, rel, lines)
