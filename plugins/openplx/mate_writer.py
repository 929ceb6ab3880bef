"""Save edited mates, mate connectors and joints into the text of an OpenPLX file.

Part of :mod:`.writer` (text-preserving saves of documents read from OpenPLX).  Every
edit is written into the assembled top model, so the file's other models (which may
share the edited parts' types) do not change:

* a mate or connector **added** in the editor becomes a new attribute declared from the
  top model: ``sub.hinge is Physics3D.Interactions.Hinge:`` with its connectors and the
  initial values that are not the default; ``body.mc is ...MateConnector:`` with its
  position, main_axis and normal (a plain frame added to a body or system is written as
  a connector: OpenPLX has no other frames).  References in the top model resolve from
  the top model, so connectors are named by their path from it (``sub.a.mc``);
* a **changed** mate gets overrides of what changed (``hinge.initial_angle: 0.3``,
  ``hinge.connectors: [...]``) replacing the top model's assignments of them; a changed
  type rewrites the declaration in place, which needs it to be in the top model;
* a **removed** mate or connector loses its declaration and the top model's assignments
  to it; one declared elsewhere (a base model, another file) cannot be removed from here;
* a **joint added** by the user (not derived from a mate) becomes a mate of the matching
  type between two new connectors at the joint frame (``<joint>_parent`` on the parent
  link, ``<joint>_child`` on the child), so SNAP keeps the links where they are.

What cannot be saved is reported as a ``CONVERSION_ERROR`` warning, never dropped
silently.  Joints and links derived from mates are not written (their mates are); a
derived joint edited directly is reported.
"""

from __future__ import annotations

import re

from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.model import Frame, Joint, Link, Mate, MateConnector, Model, Node
from snapframe.core.model.names import MODEL_FRAME, SEP
from snapframe.core.pose import Pose
from snapframe.core.snap.document import SnapInput, snap_input
from snapframe.core.snap.joints import plan_mate_joints
from snapframe.core.snap.paths import (DERIVED_KEY, WORLD_CONNECTOR, TreeIndex, is_derived,
                                       scoped_name, short_name)

from . import ast as A
from . import mathlib as m
from .edit import SourceEditor
from .lexer import Kind
from .mapping import MATE_OF_JOINT, fmt, identifier, vec_text
from .physics import MATE_TYPES, T_ADAPTIVE, T_CONNECTOR, T_REDIRECTED, MateInfo

__all__ = ["MateWriter"]

T_WORLD = "Physics3D.Interactions.World"
#: The initial values each mate type declares, with their defaults.
_INITIAL = {"hinge": ("initial_angle",), "prismatic": ("initial_position",),
            "cylindrical": ("initial_angle", "initial_position"),
            "distance": ("initial_distance",)}
_ALL_INITIAL = ("initial_angle", "initial_position", "initial_distance")


def _mate_type(kind: str) -> str:
    return MATE_TYPES.get(kind, f"Physics3D.Interactions.{kind.capitalize()}")


def _axes_lines(X_OC: Pose) -> list[str]:
    R = X_OC.R
    return [f"position: {vec_text(X_OC.p)}", f"main_axis: {vec_text((R[2], R[5], R[8]))}",
            f"normal: {vec_text((R[0], R[3], R[6]))}"]


class MateWriter:
    """One save's worth of mate, connector and joint edits (call :meth:`run` once)."""

    def __init__(self, editor: SourceEditor, top: A.ModelDecl, state, document,
                 by_pos: dict, diags: Diagnostics) -> None:
        self.editor, self.top, self.state, self.diags = editor, top, state, diags
        self.document = document
        self.by_pos = by_pos
        self.root: Model = document.root
        self.root_path: str = state.assembly.root.path
        self.index = TreeIndex(self.root)
        self.inp: SnapInput = snap_input(self.root)
        #: the top model's statements as parsed (what an edit may touch)
        self.top_stmts = list(top.walk())
        #: per node id: the OpenPLX path of a part written in this save
        self.written: dict[int, str] = {}
        #: per owner path: attribute names taken (existing members and new ones)
        self.taken: dict[str, set[str]] = {}
        #: (path, what) of the declarations removed
        self.removed: list[tuple[str, str]] = []

    # -- entry point ------------------------------------------------------------------
    def run(self) -> None:
        nodes = list(self.document.nodes())
        in_doc = {n.extras.get("openplx_path") for n in nodes if not is_derived(n)}
        # Parts of a removed body or system stay with it (its removal is reported).
        for c in self.state.assembly.connectors:
            if c.path not in in_doc and c.path != T_WORLD and c.owner in in_doc:
                self._remove(c.path, "connector")
        for info in self.state.assembly.mates:
            if info.path not in in_doc and info.system in in_doc:
                self._remove(info.path, "mate")
        originals = {info.path: info for info in self.state.assembly.mates}
        for node in nodes:
            path = node.extras.get("openplx_path")
            if path is not None and not is_derived(node):
                self._check_name(node, path)
            if isinstance(node, Mate) and path in originals:
                self._changed_mate(node, originals[path])
        for node in nodes:
            if isinstance(node, Frame) and "openplx_path" not in node.extras \
                    and not is_derived(node):
                self._new_connector(node)
        for node in nodes:
            if isinstance(node, Mate) and "openplx_path" not in node.extras:
                self._new_mate(node)
            elif isinstance(node, Joint) and not is_derived(node) \
                    and "openplx_path" not in node.extras:
                self._new_joint(node)
        for path, what in self.removed:
            self._still_used(path, what)
        self._check_derived()

    # -- where things are declared ------------------------------------------------------
    def _rel(self, path: str) -> tuple[str, ...]:
        return tuple(path[len(self.root_path) + 1:].split(".")) if path != self.root_path \
            else ()

    def _ref(self, path: str) -> str:
        """How the top model refers to the part at ``path`` (below it)."""
        return ".".join(self._rel(path))

    def _owner_obj(self, path: str):
        asm = self.state.assembly
        info = asm.system(path) or asm.body(path)
        return info.obj if info is not None else None

    def _declaration(self, path: str) -> A.Stmt | None:
        """The statement that declares the attribute at ``path`` (as the loaded tree has it)."""
        owner, _, name = path.rpartition(".")
        obj = self._owner_obj(owner)
        spec = obj.specs.get(name) if obj is not None else None
        return spec.decl if spec is not None else None

    def _in_top(self, stmt: A.Stmt | None) -> A.Stmt | None:
        """The fresh twin of a loaded statement when it belongs to the top model."""
        if stmt is None or stmt.file != self.state.file.path:
            return None
        twin = self.by_pos.get((stmt.line, stmt.col))
        return twin if twin is not None and any(twin is s for s in self.top_stmts) else None

    def _warn(self, message: str, where: SourceLocation | None = None) -> None:
        self.diags.warning(Code.CONVERSION_ERROR, message, where)

    def _outside(self, path: str, stmt: A.Stmt | None) -> str:
        where = f"{stmt.file}:{stmt.line}" if stmt is not None else "elsewhere"
        return f"it is declared at {where}, outside model '{self.state.model_name}'"

    def _member_names(self, owner_path: str) -> set[str]:
        names = self.taken.get(owner_path)
        if names is None:
            obj = self._owner_obj(owner_path)
            names = self.taken[owner_path] = set(obj.names()) if obj is not None else set()
        return names

    def _new_name(self, owner_path: str, wanted: str) -> str:
        names = self._member_names(owner_path)
        base = identifier(wanted)
        name, k = base, 2
        while name in names:
            name, k = f"{base}_{k}", k + 1
        names.add(name)
        return name

    def _check_name(self, node: Node, path: str) -> None:
        """A part renamed (or moved to another owner) keeps its name in the file: say so."""
        if isinstance(node, MateConnector):
            owner = self._owner_path(self.index.owner(node))
            renamed = f"{owner}.{short_name(node)}" != path
        elif isinstance(node, Mate):
            renamed = self.index.path(node) != path
        elif isinstance(node, (Link, Model)):
            renamed = node.name != (path if node is self.root else path.rpartition(".")[2])
        else:
            return
        if renamed:
            self._warn(f"'{node.name}' was renamed or moved in the editor; saving that to "
                       f"OpenPLX is not supported yet, the file keeps '{path}'", node.source)

    # -- removing -----------------------------------------------------------------------
    def _remove(self, path: str, what: str) -> None:
        decl = self._declaration(path)
        twin = self._in_top(decl)
        if twin is None:
            where = SourceLocation(decl.file, decl.line) if decl is not None else None
            self._warn(f"cannot remove {what} '{path}': {self._outside(path, decl)}; the "
                       "file keeps it", where)
            return
        for stmt in self.editor.find(self.top, self._rel(path)):
            self.editor.remove(stmt)
        if any(twin is s for s in self.top.walk()):   # a declaration find() did not follow
            self.editor.remove(twin)
        self.removed.append((path, what))

    def _still_used(self, path: str, what: str) -> None:
        """Warn when what is left of the top model still refers to a removed part (a
        range using a removed hinge's connectors, say): the file would not load."""
        name = ".".join(self._rel(path))
        pattern = re.compile(r"(?<![\w.])" + re.escape(name) + r"(?![\w])")
        for stmt in list(self.top.walk())[1:]:
            code = "".join(t.text for t in stmt.tokens if t.kind is not Kind.COMMENT)
            if pattern.search(code):
                self._warn(f"removed {what} '{path}' is still used at {stmt.file}:{stmt.line}; "
                           "fix that statement or the saved file will not load",
                           SourceLocation(stmt.file, stmt.line))
                return

    # -- changing -----------------------------------------------------------------------
    def _connector_refs(self, mate: Mate) -> list[str] | None:
        """The top model's references to a mate's connectors (None: one is unknown, said)."""
        model = mate.parent
        refs = []
        for name in mate.connectors:
            conn = self.index.connector(model, name) if isinstance(model, Model) else None
            if conn is None and name == WORLD_CONNECTOR:
                refs.append(T_WORLD)
                continue
            path = None
            if conn is not None:
                path = conn.extras.get("openplx_path") or self.written.get(conn.id)
            if path is None:
                self._warn(f"mate '{mate.name}': connector '{name}' is not a mate connector "
                           "saved in the file; the mate is not saved", mate.source)
                return None
            refs.append(self._ref(path))
        return refs

    def _paths(self, mate: Mate) -> tuple[str, ...]:
        out = []
        for name in mate.connectors:
            conn = self.index.connector(mate.parent, name) if isinstance(mate.parent, Model) \
                else None
            out.append(T_WORLD if conn is None and name == WORLD_CONNECTOR else
                       (conn.extras.get("openplx_path", "") if conn is not None else name))
        return tuple(out)

    def _changed_mate(self, mate: Mate, info: MateInfo) -> None:
        rel = self._rel(info.path)
        kind = info.type
        decl = self._declaration(info.path)
        if mate.type != info.type:
            twin = self._in_top(decl)
            if twin is None or not isinstance(twin, A.AttrDecl):
                where = SourceLocation(decl.file, decl.line) if decl is not None else None
                self._warn(f"cannot change the type of mate '{info.path}' to '{mate.type}': "
                           f"{self._outside(info.path, decl)}; the file keeps a "
                           f"{info.type} mate", where)
            else:
                self.editor.retype(twin, _mate_type(mate.type))
                kind = mate.type
        values: list[tuple[str, str, bool]] = []   # (attribute, text, differs from default)
        if self._paths(mate) != tuple(info.connectors):
            refs = self._connector_refs(mate)
            if refs is not None:
                values.append(("connectors", f"[{refs[0]}, {refs[1]}]", True))
        for attr in _ALL_INITIAL:
            now, before = getattr(mate, attr), getattr(info, attr)
            valid_now, valid_before = attr in _INITIAL.get(kind, ()), attr in _INITIAL.get(
                info.type, ())
            if valid_now and (abs(now - before) > 1e-12 or not valid_before):
                values.append((attr, fmt(now), now != 0.0))
            elif valid_before and not valid_now:
                self._set(info, rel, attr, None)
        if mate.enable_snap != info.enable_snap:
            values.append(("enable_snap", "true" if mate.enable_snap else "false",
                           not mate.enable_snap))
        for attr, text, needed in values:
            self._set(info, rel, attr, text if needed or self._set_outside(info, attr) else None)

    def _set_outside(self, info: MateInfo, attr: str) -> bool:
        """Is ``attr`` of the mate assigned outside the top model (so a default must be
        written explicitly to override it)?"""
        obj = info.obj
        for mod in obj.assignments(attr) if obj is not None else []:
            if mod.stmt is not None and self._in_top(mod.stmt) is None:
                return True
        return False

    def _set(self, info: MateInfo, rel: tuple[str, ...], attr: str, text: str | None) -> None:
        """Replace the top model's assignments of ``attr`` by ``text`` (None: by nothing)."""
        for stmt in self.editor.find(self.top, rel + (attr,)):
            self.editor.remove(stmt)
        if text is not None:
            self.editor.set_value(self.top, rel + (attr,), text)

    # -- adding -------------------------------------------------------------------------
    def _owner_path(self, node: Link | Model | None) -> str | None:
        if node is None or is_derived(node):
            return None
        return node.extras.get("openplx_path") or self.written.get(node.id)

    def _new_connector(self, frame: Frame) -> None:
        owner = self.index.owner(frame) if isinstance(frame, MateConnector) else \
            self._frame_owner(frame)
        owner_path = self._owner_path(owner)
        if owner_path is None:
            self._warn(f"frame '{frame.name}' is attached to '{frame.attached_to}', which is "
                       "not a body or system saved in the file; it is not saved", frame.source)
            return
        X_OC = self._frame_in_owner(frame, owner)
        wanted = short_name(frame) if isinstance(frame, MateConnector) else \
            self._frame_short(frame)
        name = self._new_name(owner_path, wanted)
        if name != wanted:
            self._warn(f"frame '{frame.name}' is saved as connector '{name}' (its name is taken "
                       "or is no OpenPLX name)", frame.source)
        path = f"{owner_path}.{name}"
        kind = T_CONNECTOR
        extra: list[str] = []
        if isinstance(frame, MateConnector) and frame.redirected_parent:
            target = self.index.link_from(frame.parent, frame.redirected_parent)
            target_path = self._owner_path(target)
            if target_path is None:
                self._warn(f"connector '{frame.name}' is redirected to "
                           f"'{frame.redirected_parent}', which is not a body saved in the "
                           "file; it is saved as a plain connector", frame.source)
            else:
                kind = T_REDIRECTED
                extra.append(f"redirected_parent: {self._ref(target_path)}")
        elif isinstance(frame, MateConnector) and frame.adaptive:
            kind = T_ADAPTIVE
        lines = [f"{'.'.join(self._rel(path))} is {kind}:",
                 *("    " + line for line in _axes_lines(X_OC) + extra)]
        self.editor.append(self.top, lines)
        self.written[frame.id] = path

    def _frame_owner(self, frame: Frame) -> Link | Model | None:
        """The body (or system) a plain frame moves with."""
        model = frame.parent
        if not isinstance(model, Model):
            return None
        if frame.attached_to in ("", MODEL_FRAME):
            return model
        from snapframe.core.frames.scope import Scope, Unresolved
        try:
            body = Scope.for_model(model, model.name, model.static, {}).body_of(frame.name)
        except Unresolved:
            return None
        return self.index.link(model, body)

    @staticmethod
    def _frame_short(frame: Frame) -> str:
        owner = frame.attached_to
        return frame.name[len(owner) + 1:] if owner and frame.name.startswith(owner + ".") \
            else frame.name

    def _frame_in_owner(self, frame: Frame, owner: Link | Model) -> Pose:
        """X_OC of a new connector (what SNAP uses for a mate connector)."""
        if isinstance(frame, MateConnector):
            for c in self.inp.problem.connectors:
                if self.inp.nodes.get(c.path) is frame:
                    return c.X_OC
        return self._pose_in(frame.name, frame.parent, owner)

    def _pose_in(self, name: str, model: Model, owner: Link | Model) -> Pose:
        """Frame ``name`` of ``model`` in ``owner``'s frame."""
        from snapframe.core.frames.scope import Scope
        scope = Scope.for_model(self.root, self.root.name, self.root.static, {})
        prefix = scoped_name(model, self.root)
        scoped = name if model is self.root else f"{prefix}{SEP}{name}"
        X_RF = scope.pose_of(scoped)
        if owner is self.root:
            return X_RF
        return scope.pose_of(scoped_name(owner, self.root) or owner.name).inverse() @ X_RF

    def _new_mate(self, mate: Mate) -> None:
        model = mate.parent
        system = self._owner_path(model) if isinstance(model, Model) else None
        if system is None:
            self._warn(f"mate '{mate.name}' is in a model that is not a system saved in the "
                       "file; it is not saved", mate.source)
            return
        refs = self._connector_refs(mate)
        if refs is None:
            return
        name = self._new_name(system, mate.name)
        if name != mate.name:
            self._warn(f"mate '{mate.name}' is saved as '{name}' (its name is taken or is no "
                       "OpenPLX name)", mate.source)
        lines = [f"connectors: [{refs[0]}, {refs[1]}]"]
        for attr in _INITIAL.get(mate.type, ()):
            if getattr(mate, attr) != 0.0:
                lines.append(f"{attr}: {fmt(getattr(mate, attr))}")
        if not mate.enable_snap:
            lines.append("enable_snap: false")
        head = ".".join(self._rel(f"{system}.{name}"))
        self.editor.append(self.top, [f"{head} is {_mate_type(mate.type)}:",
                                      *("    " + line for line in lines)])
        self.written[mate.id] = f"{system}.{name}"

    def _new_joint(self, joint: Joint) -> None:
        mate_type = MATE_OF_JOINT.get(joint.type)
        if mate_type is None:
            self._warn(f"joint '{joint.name}' of type '{joint.type}' has no OpenPLX mate; it "
                       "is not saved", joint.source)
            return
        model = joint.parent
        system = self._owner_path(model) if isinstance(model, Model) else None
        if system is None:
            self._warn(f"joint '{joint.name}' is in a model that is not a system saved in the "
                       "file; it is not saved", joint.source)
            return
        from snapframe.core.frames.scope import Scope, Unresolved
        scope = Scope.for_model(model, model.name, model.static, {})
        try:
            X_MJ = scope.pose_of(joint.name)
        except Unresolved as exc:
            self._warn(f"joint '{joint.name}': {exc}; it is not saved", joint.source)
            return
        axis = self._joint_axis(joint, scope, X_MJ)
        if mate_type in ("Lock", "Ball"):
            axis = (0.0, 0.0, 1.0)
        normal = m.orthogonal_unit_vector(axis)  # type: ignore[arg-type]
        X_JC = Pose.from_matrix(_frame_matrix(axis, normal))   # connector in the joint frame
        ends = []
        for role, name in (("parent", joint.parent_name), ("child", joint.child_name)):
            if name == "world":
                ends.append((self.root_path, self._pose_in(joint.name, model, self.root)))
                continue
            try:
                body = scope.body_of(name)
            except Unresolved:
                body = ""
            link = self.index.link(model, body) if body else None
            link_path = self._owner_path(link)
            if link is None or link_path is None:
                self._warn(f"joint '{joint.name}': its {role} '{name}' is not a body saved in "
                           "the file; the joint is not saved", joint.source)
                return
            ends.append((link_path, self._pose_in(joint.name, model, link)))
        refs = []
        for (owner, X_OJ), role in zip(ends, ("parent", "child")):
            cname = self._new_name(owner, f"{joint.name}_{role}")
            X_OC = X_OJ @ X_JC
            self.editor.append(self.top, [f"{'.'.join(self._rel(f'{owner}.{cname}'))} is "
                                          f"{T_CONNECTOR}:",
                                          *("    " + line for line in _axes_lines(X_OC))])
            refs.append(self._ref(f"{owner}.{cname}"))
        name = self._new_name(system, joint.name)
        if name != joint.name:
            self._warn(f"joint '{joint.name}' is saved as mate '{name}' (its name is taken or "
                       "is no OpenPLX name)", joint.source)
        head = ".".join(self._rel(f"{system}.{name}"))
        self.editor.append(self.top, [f"{head} is Physics3D.Interactions.{mate_type}:",
                                      f"    connectors: [{refs[0]}, {refs[1]}]"])

    @staticmethod
    def _joint_axis(joint: Joint, scope, X_MJ: Pose) -> tuple[float, float, float]:
        """The joint axis in the joint frame (unit; z when it has none)."""
        from snapframe.core.frames.scope import Unresolved
        if not joint.axes:
            return (0.0, 0.0, 1.0)
        a = joint.axes[0]
        axis = a.xyz
        if a.expressed_in not in ("", joint.name):
            try:
                X_ME = scope.pose_of(a.expressed_in) if a.expressed_in != MODEL_FRAME else Pose()
                axis = X_MJ.inverse().rotate(X_ME.rotate(axis))
            except Unresolved:
                pass
        return tuple(m.normal(axis)) if m.length(axis) > 1e-12 else (0.0, 0.0, 1.0)

    # -- derived joints -----------------------------------------------------------------
    def _check_derived(self) -> None:
        """A joint derived from a mate is saved as the mate: an edit made to the joint
        itself is reported.  (A joint not yet derived again after its mate or connectors
        changed is merely out of date: the mate is what is saved.)"""
        expected: dict[tuple[int, str], Joint] = {}
        mates: dict[tuple[int, str], Mate] = {}
        for plan in plan_mate_joints(self.root):
            host = plan.host
            if host is None:
                continue
            mates[(id(host), scoped_name(plan.mate, host) or plan.mate.name)] = plan.mate
            for node in plan.nodes:
                if isinstance(node, Joint):
                    expected[(id(host), node.name)] = node
        originals = {info.path: info for info in self.state.assembly.mates}
        for node in self.document.nodes():
            if not isinstance(node, Joint) or not is_derived(node):
                continue
            mate = mates.get((id(node.parent), node.extras.get(DERIVED_KEY, "")))
            info = originals.get(mate.extras.get("openplx_path", "")) if mate else None
            if info is None or self._mate_edited(mate, info):
                continue
            want = expected.get((id(node.parent), node.name))
            if want is None or not _same_joint(node, want):
                self._warn(f"the joint (mate) settings of '{node.name}' changed; a joint "
                           "derived from a mate is saved as its mate, edit the mate instead "
                           "(the file keeps the mate as it is)", node.source)

    def _mate_edited(self, mate: Mate, info: MateInfo) -> bool:
        """Did the mate or one of its connectors change since the file was read?"""
        if (mate.type, self._paths(mate), mate.initial_angle, mate.initial_position,
                mate.initial_distance, mate.enable_snap) != \
                (info.type, tuple(info.connectors), info.initial_angle, info.initial_position,
                 info.initial_distance, info.enable_snap):
            return True
        for name in mate.connectors:
            conn = self.index.connector(mate.parent, name)  # type: ignore[arg-type]
            before = self.state.connectors.get(conn.extras.get("openplx_path", "")) \
                if conn is not None else None
            if conn is not None and (before is None or
                                     not conn.pose.value.almost_equal(before, 1e-9)):
                return True
        return False


def _same_joint(a: Joint, b: Joint) -> bool:
    return (a.type == b.type and a.parent_name == b.parent_name and a.child_name == b.child_name
            and [ax.xyz for ax in a.axes] == [ax.xyz for ax in b.axes]
            and a.pose.relative_to == b.pose.relative_to
            and a.pose.value.almost_equal(b.pose.value, 1e-9))


def _frame_matrix(z, x):
    """4x4 of the frame with z axis ``z`` and x axis ``x`` (orthonormal), at the origin."""
    import numpy as np
    z = np.asarray(z, float)
    x = np.asarray(x, float)
    y = np.cross(z, x)
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2] = x, y, z
    return T
