"""The editor as one scriptable object.

:class:`Editor` is what the menus, a script and the in-app console all use (as napari's
``Viewer`` and FreeCAD's console do)::

    from snapframe.editor import Editor
    ed = Editor(show=False)                 # show=True for a window
    ed.open("resources/examples/arm_gripper/arm_and_gripper.sdf")
    ed.select("gripper")
    ed.set_pose("gripper", (0, 0, 0.1), (0, 0, 90), relative_to="arm::gripper_mount",
                degrees=True)
    ed.undo(); ed.redo()
    ed.save("out.sdf")
    ed.screenshot("shot.png")

Assembling (each call one undo step; a refusal raises ``ValueError`` with the reason)::

    ed.add_include("parts/gripper.sdf", placement_frame="mount_point",
                   relative_to="arm::gripper_mount", joint="weld")
    ed.add_joint("wrist", "revolute", "arm::forearm", "gripper::body", limits=(-1, 1))
    ed.add_mate("face.center", "hour_hand.pivot", "hinge", initial_angle=0.5)   # OpenPLX
    ed.rename("gripper", "hand"); ed.remove("hand", with_dependents=True)

Wherever an element is named, its key or its scoped name from the document's top model or
world is accepted (``robot_1::arm::link``, as ``snapframe frames`` prints it without the
top model's name); the full scoped name with the top model's name works too.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from snapframe.core.gcpause import gc_paused
from snapframe.core.model import Document
from snapframe.core.model.edits import EditRefused, SetPose
from snapframe.core.model.placing import JointSpec
from snapframe.core.pose import Pose

__all__ = ["Editor"]


def name_of(key: str) -> str:
    return key or "(top)"


def _pose_of(value: Pose | Sequence[float] | None) -> Pose:
    """A pose from a :class:`Pose`, ``(x, y, z)`` or ``(x, y, z, roll, pitch, yaw)``
    (metres, radians); None is the identity."""
    if value is None:
        return Pose()
    if isinstance(value, Pose):
        return value
    try:
        numbers = [float(v) for v in value]
    except (TypeError, ValueError):
        raise EditRefused(f"a pose is a Pose, (x, y, z) or (x, y, z, roll, pitch, yaw), "
                          f"not {value!r}") from None
    if len(numbers) not in (3, 6):
        raise EditRefused(f"a pose has 3 or 6 numbers, not {len(numbers)}")
    return Pose.from_xyz_rpy(*numbers)


def _joint_spec(joint: JointSpec | dict | str | None) -> JointSpec | str | None:
    """What :class:`PlaceInclude` takes for ``connect``: a spec, a type, or None."""
    if joint is None or isinstance(joint, (JointSpec, str)):
        return joint
    if isinstance(joint, dict):
        fields = dict(joint)
        if fields.get("type") == "weld":
            fields["type"] = "fixed"
        if "axis" in fields:
            fields["axis"] = tuple(float(c) for c in fields["axis"])
        if "limits" in fields:
            fields["lower"], fields["upper"] = _limits_of(fields.pop("limits"))
        try:
            return JointSpec(**fields)
        except TypeError as exc:
            raise EditRefused(f"a joint is described by type, axis, lower, upper, name and "
                              f"expressed_in: {exc}") from None
    raise EditRefused(f"a joint is a JointSpec, a dict or a type name, not {joint!r}")


def _limits_of(limits) -> tuple[float | None, float | None]:
    """``(lower, upper)`` from None or a pair (each a number or None)."""
    if limits is None:
        return None, None
    try:
        pair = tuple(limits)
    except TypeError:
        pair = ()
    if len(pair) != 2:
        raise EditRefused(f"limits are (lower, upper) or None, not {limits!r}")
    return pair[0], pair[1]


class Editor:
    """The Snapframe editor: a main window and its documents (see the module docstring)."""

    def __init__(self, show: bool = True, settings=None) -> None:
        # Qt, VTK and the window: thousands of long-lived objects, no garbage cycles
        with gc_paused():
            from .app import application
            from .main_window import MainWindow
            self.app = application()
            self.window = MainWindow(settings, dark=bool(self.app.property("snapframe_dark")))
        self.window.console.namespace["ed"] = self  # the in-app console scripts this object
        if show:
            self.window.show()
        else:
            # drawn off screen: a real window the user does not see, so renders work
            self.window.setAttribute(__import__("PySide6").QtCore.Qt.WidgetAttribute
                                     .WA_DontShowOnScreen, True)
            self.window.show()
        self.app.processEvents()

    # -- documents ------------------------------------------------------------------
    def open(self, path: str | Path) -> Document:
        """Open a file (or switch to it); returns its document."""
        session = self.window.open(path)
        self.app.processEvents()
        if session is None:
            raise OSError(self.window.last_error or f"could not open {path}")
        return session.document

    @property
    def session(self):
        return self.window.session

    @property
    def document(self) -> Document | None:
        """The current tab's document."""
        s = self.window.session
        return s.document if s is not None else None

    def _doc(self) -> Document:
        doc = self.document
        if doc is None:
            raise RuntimeError("no document is open: call ed.open(path) first")
        return doc

    def key(self, name: str) -> str:
        """The key of an element named by key or scoped name; KeyError if none."""
        doc = self._doc()
        live = doc.live
        if name in live.poses or doc.element(name) is not None and name.split("::")[0] != \
                getattr(doc.root, "name", None):
            return name
        top = getattr(doc.root, "name", "")
        if top and name.startswith(top + "::"):
            rest = name[len(top) + 2:]
            if rest in live.poses or doc.element(rest) is not None:
                return rest
        if name == top:
            return ""
        raise KeyError(f"no element [{name}] in {Path(doc.path).name}")

    # -- selection and edits -----------------------------------------------------------
    def select(self, *names: str) -> list[str]:
        """Select elements (the last is the active one); returns their keys."""
        keys = [self.key(n) for n in names]
        self.window.session.selection.select(keys)
        self.app.processEvents()
        return keys

    @property
    def selection(self) -> list[str]:
        s = self.window.session
        return s.selection.keys if s is not None else []

    def set_pose(self, name: str, xyz: Sequence[float] = (0.0, 0.0, 0.0),
                 rpy: Sequence[float] = (0.0, 0.0, 0.0), relative_to: str | None = None,
                 degrees: bool = False) -> None:
        """Write an element's pose (``relative_to`` None keeps its frame).

        ``relative_to`` is a frame as the element's model names it (as it is written in
        the file: ``arm::flange_mount`` for an element of ``robot_1``), or any frame's key
        or scoped name (``robot_1::arm::flange_mount``): it is written as the element's
        model names it.  Raises :class:`~snapframe.core.model.edits.EditRefused` with the
        reason if refused (a frame outside the element's model, for one)."""
        doc = self._doc()
        key = self.key(name)
        node = doc.element(key)
        if relative_to:
            relative_to = self._frame_name_in_scope(key, relative_to)
        r = [math.radians(a) for a in rpy] if degrees else list(rpy)
        command = SetPose(doc, node, Pose.from_xyz_rpy(*xyz, *r), relative_to)
        doc.commands.push(command)
        doc.commands.end_merge()
        self.app.processEvents()

    def _frame_name_in_scope(self, key: str, frame: str) -> str:
        """``frame`` (a name in the scope of the element ``key``, or a key or scoped name)
        as that scope writes it."""
        from snapframe.core.live.keys import ROOT, join_key, split_part
        from snapframe.core.model import World
        from snapframe.core.model.names import MODEL_FRAME, SEP, WORLD
        doc = self._doc()
        head = split_part(key)[0]
        scope = head.rpartition(SEP)[0] if SEP in head else ROOT
        if frame in (MODEL_FRAME, WORLD) or frame.endswith(SEP + MODEL_FRAME) or \
                doc.element(join_key(scope, frame)) is not None:
            return frame          # as the scope names it already
        try:
            target = self.key(frame)
        except KeyError:
            return frame          # no such frame: the core refuses it with its reason
        if target == scope:
            return WORLD if scope == ROOT and isinstance(doc.root, World) else MODEL_FRAME
        if scope == ROOT:
            return target
        if target.startswith(scope + SEP):
            return target[len(scope) + len(SEP):]
        raise EditRefused(f"[{frame}] is not in the model of [{name_of(key)}]: a pose is "
                          f"written relative to a frame of its own model "
                          f"([{scope}])")

    def pose(self, name: str, relative_to: str = "") -> Pose:
        """The resolved pose of an element in the world/top model or another frame."""
        doc = self._doc()
        table = doc.live.poses
        X = Pose.from_matrix(table.pose(self.key(name)))
        if relative_to:
            X = Pose.from_matrix(table.pose(self.key(relative_to))).inverse() @ X
        return X

    # -- assembling -----------------------------------------------------------------
    def add_include(self, uri: str | Path, name: str | None = None,
                    placement_frame: str | None = None, relative_to: str | None = None,
                    pose: Pose | Sequence[float] | None = None,
                    joint: JointSpec | dict | str | None = None) -> str:
        """Include a part (one undo step); returns the new include's key.

        ``uri`` is a URI (``model://gripper``, ``file://parts/gripper.sdf``) or a file
        path, which is written as :func:`~snapframe.core.model.include_uri.include_uri_for`
        chooses (relative to the document when it can).  The part's ``placement_frame``
        (a frame of the part; default: its model frame or its own placement frame) is put
        at ``pose`` in the frame ``relative_to`` of the assembly (a key or scoped name;
        default: the document's root frame).  ``pose`` is a :class:`Pose`, ``(x, y, z)`` or
        ``(x, y, z, roll, pitch, yaw)`` in metres and radians.  ``joint`` connects the part
        to ``relative_to``: a :class:`~snapframe.core.model.placing.JointSpec`, a dict of its
        fields, or a type (``"weld"``, ``"revolute"``...).  Refusals raise ``ValueError``
        with the reason."""
        from snapframe.core.model.include_uri import include_uri_for
        from snapframe.core.model.placing import PlaceInclude
        doc = self._doc()
        text = str(uri)
        if "://" not in text:
            path = Path(text).expanduser()
            if not path.exists():
                raise EditRefused(f"there is no file [{text}] to include")
            text = include_uri_for(doc, path)
        target = self._key_or_refuse(relative_to, "frame to place on") if relative_to else ""
        command = PlaceInclude(doc, doc.root, text, name=name or "",
                               placement_frame=placement_frame or "", target=target,
                               offset=_pose_of(pose), connect=_joint_spec(joint))
        from .main_window import includes_file
        if doc.path and includes_file(command.include, doc.path):
            command.include.parent = None     # (the preload hung it on the root)
            raise EditRefused(f"[{text}] is or includes {Path(doc.path).name}: the file "
                              "would include itself")
        self._push_step(command)
        return doc.key(command.include)

    def add_joint(self, name: str, type: str, parent: str, child: str,
                  axis: Sequence[float] = (0.0, 0.0, 1.0),
                  limits: tuple[float | None, float | None] | None = None,
                  pose: Pose | Sequence[float] | None = None) -> str:
        """Add a joint from ``parent`` to ``child`` (keys or scoped names; ``parent`` may
        be ``"world"``), in the innermost model of the document holding both (one undo
        step); returns its key.  ``axis`` is in the joint frame (the child's frame moved
        by ``pose``); ``limits`` are ``(lower, upper)`` in radians or metres (None: none).
        Refusals raise ``ValueError`` with the reason."""
        from snapframe.core.model.connecting import AddJointBetween
        doc = self._doc()
        ends = [p if p == "world" else self._key_or_refuse(p, f"joint {what}")
                for p, what in ((parent, "parent"), (child, "child"))]
        lower, upper = _limits_of(limits)
        command = AddJointBetween(doc, name, type, ends[0], ends[1],
                                  axis=None if axis is None else tuple(axis), lower=lower,
                                  upper=upper, pose=_pose_of(pose) if pose is not None else None)
        self._push_step(command)
        return doc.key(command.node)

    def add_mate(self, connector_a: str, connector_b: str, type: str,
                 initial_angle: float | None = None, initial_position: float | None = None,
                 name: str | None = None) -> str:
        """Mate two OpenPLX mate connectors (keys or scoped names) with a mate of ``type``
        (lock, hinge, prismatic, cylindrical, ball, distance): one undo step, and SNAP
        assembles again.  ``initial_angle`` in radians, ``initial_position`` in metres;
        ``name`` defaults to the type, made unique.  Returns the mate's key.

        In an SDFormat document (no mates there) the connectors of two included OpenPLX
        parts are mated as SDFormat keeps it: ``connector_b``'s include is placed on
        ``connector_a`` (``placement_frame`` + ``<pose relative_to>``) and a joint (hinge:
        revolute, prismatic, lock: fixed, ball) joins their links, one undo step; the
        joint's key is returned.  Cylindrical and distance mates have no SDFormat joint
        and are refused."""
        from snapframe.core.model.connecting import AddMateBetween, enclosing_model, free_name
        from snapframe.core.model.names import WORLD
        doc = self._doc()
        # "world": OpenPLX's connector at the top system's origin
        a = WORLD if connector_a == WORLD else self._key_or_refuse(connector_a, "first connector")
        b = WORLD if connector_b == WORLD else self._key_or_refuse(connector_b, "second connector")
        values = {k: v for k, v in (("initial_angle", initial_angle),
                                    ("initial_position", initial_position)) if v is not None}
        if not name:
            ends = [k for k in (a, b) if k != WORLD]
            model = doc.root if len(ends) < 2 else enclosing_model(doc, ends)[0]
            name = free_name(model, str(type).lower().rpartition(".")[2])
        command = AddMateBetween(doc, name, type, a, b, **values)
        self._push_step(command)
        return doc.key(command.node)

    def remove(self, name: str, with_dependents: bool = False) -> list[str]:
        """Remove an element (one undo step); returns the keys removed.  An element others
        refer to (a link a joint names, a frame poses are relative to...) is refused with
        them listed, unless ``with_dependents``: then what cannot exist without it goes too
        and what was only placed by it is re-expressed to stay where it is."""
        from snapframe.core.model.edits import RemoveNode, check_owned
        from snapframe.core.model.references import RemoveWithDependents, dependents
        doc = self._doc()
        key = self._key_or_refuse(name, "element to remove")
        node = doc.element(key)
        check_owned(doc, node)      # an included file's element: edited in that file
        if with_dependents:
            command = RemoveWithDependents(doc, node)
            removed = list(command.removed)
        else:
            found = dependents(doc, key)
            if found:
                listed = "; ".join(f"{d.key or '(top)'}: {d.why}" for d in found)
                raise EditRefused(f"[{name_of(key)}] is referred to by {listed}: remove it "
                                  "with with_dependents=True or change them first")
            command = RemoveNode(doc, node)
            removed = [key]
        self._push_step(command)
        return removed

    def rename(self, name: str, new_name: str) -> str:
        """Rename an element; every reference to it follows (one undo step).  Returns its
        new key."""
        from snapframe.core.model import Include
        from snapframe.core.model.edits import Rename
        doc = self._doc()
        node = doc.element(self._key_or_refuse(name, "element to rename"))
        command = Rename(doc, node, new_name)
        old = node.effective_name if isinstance(node, Include) else node.name
        if new_name != old:               # (the same name: no empty undo step)
            self._push_step(command)
        return doc.key(node)

    def _key_or_refuse(self, name: str, what: str) -> str:
        try:
            return self.key(name)
        except KeyError:
            raise EditRefused(f"there is no {what} [{name}] in "
                              f"{Path(self._doc().path).name or 'the document'}") from None

    def _push_step(self, command) -> None:
        doc = self._doc()
        doc.commands.push(command)
        doc.commands.end_merge()
        self.app.processEvents()

    def push(self, command) -> None:
        """Do any core command (``snapframe.core.model.edits``) as one undo step."""
        self._doc().commands.push(command)
        self.app.processEvents()

    def undo(self) -> None:
        self._doc().commands.undo()
        self.app.processEvents()

    def redo(self) -> None:
        self._doc().commands.redo()
        self.app.processEvents()

    # -- files and pictures ------------------------------------------------------------
    def save(self, path: str | Path | None = None, format: str | None = None,
             flatten: bool = False) -> list:
        """Save the current document (SDFormat: includes kept unless ``flatten``);
        returns the warnings about what the format cannot keep."""
        doc = self._doc()
        fmt = format
        if fmt is None and path is not None:
            from snapframe.core.formats import registry
            found = registry.for_path(path, capability="write")
            fmt = found.name if found is not None else None
        fmt = fmt or doc.format or "sdformat"
        warnings = doc.save(path, fmt, flatten=flatten if fmt == "sdformat" else None)
        self.app.processEvents()
        return warnings

    def screenshot(self, path: str | Path, window: bool = False) -> Path:
        """Save a PNG of the 3D view (``window=True``: the whole main window)."""
        self.app.processEvents()
        path = Path(path)
        tab = self.window.current
        if tab is not None:
            tab.viewport.render(still=True)     # anti-aliased, wide lines
        if window:
            picture = self.window.grab()
            if tab is not None:
                tab.viewport.grab_into(picture, self.window)
            picture.save(str(path))
        else:
            if tab is None:
                raise RuntimeError("no document is open")
            tab.viewport.canvas.screenshot(path)
        return path

    def fit(self) -> None:
        self.window.fit()

    def view(self, name: str) -> None:
        """Standard view: iso, top, front, side."""
        self.window.set_view(name)

    def close(self) -> None:
        """Close the window (unsaved documents are not saved)."""
        for s in self.window.sessions():
            s.document.commands.set_clean()
        self.window.close()
        self.app.processEvents()

    def run(self) -> int:
        """Run the event loop until the window closes."""
        return self.app.exec()

    # let scripts catch refusals without importing the core
    EditRefused = EditRefused
