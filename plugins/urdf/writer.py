"""Document -> URDF, for ROS: one tree of links, flattened from any composed document.

URDF has no models, includes or frames, and its joint frame *is* the child link's
frame.  So the writer:

* flattens the document (:mod:`.flattening`): every link at every depth, posed by the
  frame graph; scoped names become URDF names (``arm::body`` -> ``arm_body``), made
  unique across links and joints (libsdformat reads them into one model namespace);
* writes each joint from its parent link to its child link (a joint naming a frame or a
  nested model is written between the links those are attached to), with ``<origin>`` =
  the child link in the parent link, and the axis turned into the child link's frame.  A
  revolute axis that does not pass through the child link's origin cannot keep its
  place in URDF: that is reported.  Types URDF lacks (ball, universal, screw...) become
  ``fixed``, reported;
* keeps limits (SDFormat's "no limit" defaults where none were written, since URDF
  requires them), dynamics, inertials (URDF's inertial ``<origin>`` and tensor are
  SDFormat's), visuals and collisions with their geometry and colour, and meshes by a
  ``package://`` or ``http(s)://`` URI as written, otherwise by a path relative to the
  written file.  A link without ``<inertial>`` gets SDFormat's default (mass 1, unit
  inertia), so a URDF reader sees the same body;
* writes each frame as a massless link on a ``fixed`` joint to the link it is attached
  to; frames fixed in the world without a ``world`` link are dropped, reported;
* roots the tree at a ``world`` link (the ROS idiom) when something is fixed in the
  world (a static model, a joint to the world); otherwise at the root link, whose frame
  becomes the URDF's model frame.  Links no joint connects to the tree hang from the
  root on ``floating`` joints, reported;
* needs a tree, not a direction: joints are written from a root (the world, else a link
  no joint has as its child) outwards, a joint pointing the other way reversed (the same
  motion: a fixed joint as it is, a moving one with its axis turned round), reported; a
  kinematic loop is an error naming the joint that closes it, and nothing is written
  (:class:`NotATree`);
* keeps what URDF elements cannot hold in ``<gazebo>`` extensions, as libsdformat's URDF
  parser reads them: model plugins and other model content at robot level; a link's
  ``<gravity>``, ``<self_collide>``, sensors, lights and other content, and its visuals'
  and collisions' extra content by name; a joint's spring stiffness and reference, its
  ``<physics>`` and sensors.  What no extension holds (an axis limit stiffness, a world's
  lights, a file's other worlds) is reported naming the element.

Documents read from URDF keep what the reader set aside: their ``floating`` and
``planar`` joints, joint ``<dynamics>``/``<mimic>``/``<safety_controller>``/
``<calibration>``, visual materials and the robot-level ``<material>`` definitions they
name, ``<transmission>`` and ``<gazebo>`` elements.  Fixed
joints of other documents get Gazebo's ``preserveFixedJoint`` extension, so that
libsdformat does not merge the links they join.
"""

from __future__ import annotations

import copy
import math
import os
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from lxml import etree

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.fileio import atomic_write
from snapframe.core.model import (Collision, Document, Geometry, Inertial, Link, Model, Visual,
                                  World)
from snapframe.core.model.names import SEP, WORLD
from snapframe.core.pose import IDENTITY, Pose

from .flattening import FlatFrame, FlatJoint, FlatLink, Flattened, flatten

__all__ = ["write", "to_string", "NotATree"]

#: SDFormat joint type -> URDF joint type (the others have none).
URDF_JOINT_TYPES = {"fixed": "fixed", "revolute": "revolute", "continuous": "continuous",
                    "prismatic": "prismatic"}
#: SDFormat's limits when none are written (URDF requires them on revolute and prismatic
#: joints, and an effort and a velocity on any <limit>); -1 means "no limit" there.
DEFAULT_LOWER, DEFAULT_UPPER, DEFAULT_EFFORT, DEFAULT_VELOCITY = -1e16, 1e16, -1.0, -1.0
#: Geometry URDF has.
URDF_SHAPES = ("box", "cylinder", "sphere", "mesh")
#: Joint children of a URDF source that the core model does not hold (written back).
_JOINT_EXTRAS = ("dynamics", "mimic", "safety_controller", "calibration")
#: A revolute axis further than this from the child link origin cannot keep its place.
_AXIS_OFFSET_TOL = 1e-9
#: Roots tried per group of connected links when choosing the one that reverses the
#: fewest moving joints (bounds the work for links with very many parent joints).
_MAX_ROOTS_TRIED = 32
#: Children of SDFormat elements that the URDF elements themselves hold (or that only
#: feed what is written: densities feed computed inertia).  Any other child is kept in a
#: ``<gazebo>`` extension (see :meth:`_Writer.extensions`) or reported.
_WRITTEN = {
    "model": frozenset({"pose", "static", "link", "joint", "frame", "model", "include"}),
    "world": frozenset({"link", "joint", "frame", "model", "include"}),
    "link": frozenset({"pose", "inertial", "visual", "collision"}),
    "visual": frozenset({"pose", "geometry"}),
    "collision": frozenset({"pose", "geometry", "density", "auto_inertia_params"}),
    "joint": frozenset({"pose", "parent", "child", "axis"}),
    "inertial": frozenset({"pose", "mass", "inertia", "density", "auto_inertia_params"}),
}
#: ``//joint/axis`` values URDF holds (``<axis>``, ``<limit>``, ``<dynamics>``) and those a
#: joint ``<gazebo>`` extension holds, by the extension's name (libsdformat's parser_urdf).
_AXIS_WRITTEN = frozenset({"xyz", "limit/lower", "limit/upper", "limit/effort", "limit/velocity",
                           "dynamics/damping", "dynamics/friction", "use_parent_model_frame"})
_AXIS_EXTENSIONS = {"dynamics/spring_stiffness": "springStiffness",
                    "dynamics/spring_reference": "springReference"}


class NotATree(ValueError):
    """The document's links do not form a tree (a loop, or a link with two parents)."""


def _num(v: float) -> str:
    if v == 0.0:
        return "0"
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text


def _vec(values) -> str:
    return " ".join(_num(v) for v in values)


def _origin(parent: etree._Element, X: Pose) -> None:
    """``<origin>`` of ``X`` (left out when it is the identity, as URDF defaults it)."""
    attrs = {}
    if any(v != 0.0 for v in X.p):
        attrs["xyz"] = _vec(X.p)
    rpy = X.rpy()
    if any(v != 0.0 for v in rpy):
        attrs["rpy"] = _vec(rpy)
    if attrs:
        etree.SubElement(parent, "origin", **attrs)


@dataclass(eq=False)
class _UrdfJoint:
    """A joint as written: URDF names of its ends, type and origin (parent -> child)."""

    name: str
    type: str
    parent: str
    child: str
    origin: Pose
    source: FlatJoint | None = None
    #: The axis in the child link's frame (revolute, continuous, prismatic, planar).
    axis: tuple[float, float, float] | None = None
    #: A joint element from a URDF source, written as it was (floating/planar joints).
    element: etree._Element | None = None
    preserve: bool = False


@dataclass
class _Plan:
    """The tree to write."""

    robot: str
    links: list[FlatLink] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)   # scoped link name -> URDF name
    joints: list[_UrdfJoint] = field(default_factory=list)
    frame_links: list[tuple[str, FlatFrame]] = field(default_factory=list)
    world: bool = False
    root: str = ""


class _Writer:
    def __init__(self, document: Document, out_dir: Path | None,
                 mesh_uris: dict | None = None) -> None:
        self.document = document
        #: id(MeshData) -> the exported file's URI (meshes held in memory, see write()).
        self.mesh_uris = mesh_uris or {}
        self.diags: Diagnostics = document.diagnostics
        self.out_dir = out_dir
        root = document.root
        self.urdf_xml = root.extras.get("urdf_xml") if isinstance(root, Model) else None
        self.used: set[str] = set()
        #: URDF keeps joint names apart from link names; other sources share one namespace
        #: (libsdformat reads a URDF into one SDFormat model).
        self.joint_used: set[str] = set() if self.urdf_xml is not None else self.used

    def warn(self, message: str, node=None) -> None:
        self.diags.warning(Code.CONVERSION_ERROR, message, node.source if node else None)

    def fail(self, message: str, node=None) -> None:
        self.diags.error(Code.CONVERSION_ERROR, message, node.source if node else None)
        raise NotATree(message)

    def name(self, wanted: str, joint: bool = False) -> str:
        """A URDF name for a scoped one: '::' becomes '_', made unique."""
        used = self.joint_used if joint else self.used
        base = wanted.replace(SEP, "_") or ("joint" if joint else "link")
        out, k = base, 2
        while out in used:
            out, k = f"{base}_{k}", k + 1
        used.add(out)
        return out

    # -- the tree -------------------------------------------------------------------------
    def plan(self, flat: Flattened) -> _Plan:
        root = self.document.root
        plan = _Plan(robot=(root.name if root is not None and root.name else "robot"))
        plan.links = flat.links
        by_name = {link.name: link for link in flat.links}
        parent_of = self._parents(flat, by_name)
        skipped = self._urdf_skipped_joints(by_name)
        children = set(parent_of) | set(skipped)
        plan.world = any(j.parent == WORLD for j in parent_of.values()) or any(
            link.static and link.name not in children for link in flat.links)
        roots = [link for link in flat.links if link.name not in children]
        if plan.world:
            self.used.add(WORLD)
            plan.root = WORLD
        elif roots:
            top = self._tree_root(flat.canonical, parent_of)
            plan.root = next((r.name for r in roots if r.name == top), roots[0].name)
        for link in flat.links:
            plan.names[link.name] = self.name(link.name)
        for element in skipped.values():
            element.set("name", self.name(element.get("name") or "joint", joint=True))
            plan.joints.append(_UrdfJoint(element.get("name"), element.get("type", ""), "", "",
                                          IDENTITY, element=element))
        for j in parent_of.values():
            plan.joints.append(self._joint(j, plan, by_name))
        self._hang_roots(plan, roots, by_name)
        self._frames(flat, plan, by_name)
        return plan

    def _parents(self, flat: Flattened, by_name: dict[str, FlatLink]) -> dict[str, FlatJoint]:
        """The joint each link hangs from.  URDF needs one parent per link; SDFormat only
        needs the joints to form a tree, in whichever direction each is written (a weld
        onto an included model's second link gives that link two parent joints).  So each
        connected group of links is rooted (at the world; else at a link no joint has as
        its child, the one whose tree holds the canonical link first, choosing the root
        that reverses the fewest moving joints) and a joint pointing the other way is
        reversed (:func:`_reversed`: the same motion).  A loop is an error naming the
        joint that closes it (:class:`NotATree`)."""
        joints: list[FlatJoint] = []
        for j in flat.joints:
            if j.child == WORLD or j.child == j.parent:
                what = "the world as its child" if j.child == WORLD else "one link at both ends"
                self.warn(f"joint '{j.name}' has {what}; URDF cannot write that, left out",
                          j.node)
                continue
            if j.child not in by_name or (j.parent != WORLD and j.parent not in by_name):
                continue   # an end whose pose could not be resolved (reported)
            joints.append(j)
        order = {id(j): i for i, j in enumerate(joints)}
        edges: dict[str, list[FlatJoint]] = {}
        for j in joints:
            edges.setdefault(j.parent, []).append(j)
            edges.setdefault(j.child, []).append(j)
        has_parent = {j.child for j in joints}
        canonical_top = self._tree_root(flat.canonical, {j.child: j for j in joints}) \
            if flat.canonical else ""
        nodes = ([WORLD] if WORLD in edges else []) + list(by_name)
        chosen: list[tuple[str, FlatJoint, bool]] = []
        seen: set[str] = set()
        for start in nodes:
            if start in seen or start not in edges:
                continue
            group = self._group(start, edges)
            seen.update(group)
            if WORLD in group:
                candidates = [WORLD]   # the world is no link: it cannot hang from one
            else:
                candidates = [n for n in group if n not in has_parent] or [group[0]]
                candidates.sort(key=lambda n: n != canonical_top)
                del candidates[_MAX_ROOTS_TRIED:]   # each try walks the group once
            best = None
            for root in candidates:
                tree, loop = self._orient(root, edges)
                if loop is not None:
                    self._loop(loop, tree, order)
                cost = (sum(1 for j, rev in tree.values() if rev and j.node.type != "fixed"),
                        sum(1 for _, rev in tree.values() if rev))
                if best is None or cost < best[0]:
                    best = (cost, tree)
            assert best is not None
            chosen.extend((child, j, rev) for child, (j, rev) in best[1].items())
        parents = Counter(j.child for j in joints)
        parent_of: dict[str, FlatJoint] = {}
        for child, j, rev in sorted(chosen, key=lambda c: order[id(c[1])]):  # document order
            if rev:
                why = f"link '{j.child}' has {parents[j.child]} parent joints" \
                    if parents[j.child] > 1 else f"the tree is rooted at '{j.child}''s side"
                self.warn(f"joint '{j.name}' is written from '{j.child}' to '{j.parent}' "
                          f"(reversed, the same motion): URDF gives each link one parent "
                          f"joint, and {why}", j.node)
            parent_of[child] = _reversed(j) if rev else j
        return parent_of

    @staticmethod
    def _group(start: str, edges: dict[str, list[FlatJoint]]) -> list[str]:
        """The links (and the world) joints connect to ``start``, in the order found."""
        out, todo, seen = [], [start], {start}
        while todo:
            n = todo.pop()
            out.append(n)
            for j in edges.get(n, ()):
                other = j.child if j.parent == n else j.parent
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return out

    @staticmethod
    def _orient(root: str, edges: dict[str, list[FlatJoint]]
                ) -> tuple[dict[str, tuple[FlatJoint, bool]], tuple | None]:
        """Breadth-first from ``root``: each link's joint and whether it is reversed; the
        first joint that closes a loop (joint, its two ends) if there is one."""
        tree: dict[str, tuple[FlatJoint, bool]] = {}
        used: set[int] = set()
        queue, seen = deque([root]), {root}
        while queue:
            n = queue.popleft()
            for j in edges.get(n, ()):
                if id(j) in used:
                    continue
                used.add(id(j))
                other = j.child if j.parent == n else j.parent
                if other in seen:
                    return tree, (j, n, other)
                seen.add(other)
                tree[other] = (j, j.parent != n)
                queue.append(other)
        return tree, None

    def _loop(self, loop: tuple, tree: dict[str, tuple[FlatJoint, bool]],
              order: dict[int, int]) -> None:
        """Report the loop ``closing`` completes through the tree built so far."""
        closing, a, b = loop

        def up(n: str) -> list[str]:
            path = [n]
            while n in tree:
                j, _ = tree[n]
                n = j.parent if j.child == n else j.child
                path.append(n)
            return path

        pa, pb = up(a), up(b)
        on_b = set(pb)
        common = next(n for n in pa if n in on_b)
        cycle = [closing] + [tree[n][0] for n in pa[:pa.index(common)]] + \
            [tree[n][0] for n in pb[:pb.index(common)]]
        cycle.sort(key=lambda j: order[id(j)])
        last = cycle[-1]
        names = ", ".join(j.name for j in cycle)
        self.fail(f"joint '{last.name}' closes a kinematic loop (joints {names}); URDF "
                  "needs a tree of links, so nothing is written", last.node)

    def _hang_roots(self, plan: _Plan, roots: list[FlatLink],
                    by_name: dict[str, FlatLink]) -> None:
        """Links no joint holds: welded to the world link when static, else floating
        from the root (URDF holds one tree); the root link's offset is reported."""
        X_R_root = IDENTITY if plan.world or not plan.root else by_name[plan.root].X_RL
        if not plan.world and plan.root and not X_R_root.is_identity(1e-12):
            x, y, z = X_R_root.p
            self.warn(f"URDF has no model frame: link poses are written relative to the root "
                      f"link '{plan.root}', which {self.document.root.kind} "
                      f"'{plan.robot}' places at ({x:.6g}, {y:.6g}, {z:.6g}, ...)",
                      by_name[plan.root].node)
        floating = []
        for link in roots:
            if link.name == plan.root:
                continue
            child = plan.names[link.name]
            if plan.world and link.static:
                plan.joints.append(_UrdfJoint(self.name(f"{link.name}_fixed", True), "fixed",
                                              WORLD, child, link.X_RL))
                continue
            parent = WORLD if plan.world else plan.names[plan.root]
            plan.joints.append(_UrdfJoint(self.name(f"{link.name}_floating", True), "floating",
                                          parent, child, X_R_root.inverse() @ link.X_RL))
            floating.append(link.name)
        if floating:
            many = len(floating) > 1
            self.warn(f"link{'s' if many else ''} {', '.join(floating)} "
                      f"{'are' if many else 'is'} not connected to the root '{plan.root}' by "
                      f"joints; URDF holds one tree, so {'they hang' if many else 'it hangs'} "
                      "from it on floating joints (which libsdformat 12 cannot load)",
                      self.document.root)

    @staticmethod
    def _tree_root(link: str, parent_of: dict[str, FlatJoint]) -> str:
        """The root of the tree ``link`` is in (the top of its chain of parents; a chain
        that comes back on itself stops there)."""
        seen = {link}
        while link in parent_of and parent_of[link].parent not in seen:
            link = parent_of[link].parent
            seen.add(link)
        return link

    def _joint(self, j: FlatJoint, plan: _Plan, by_name: dict[str, FlatLink]) -> _UrdfJoint:
        child = by_name[j.child]
        X_RP = IDENTITY if j.parent == WORLD else by_name[j.parent].X_RL
        parent = WORLD if j.parent == WORLD else plan.names[j.parent]
        kind = URDF_JOINT_TYPES.get(j.node.type)
        if kind is None:
            self.warn(f"joint '{j.name}' of type '{j.node.type}' has no URDF counterpart; "
                      "written as fixed", j.node)
            kind = "fixed"
        wanted = j.name
        if self.urdf_xml is not None:   # URDF keeps joint and link names apart
            wanted = j.node.extras.get("urdf_name") or j.name
        name = self.name(wanted, joint=True)
        out = _UrdfJoint(name, kind, parent, plan.names[j.child], X_RP.inverse() @ child.X_RL,
                         source=j)
        if kind in ("revolute", "continuous", "prismatic"):
            X_CJ = child.X_RL.inverse() @ j.X_RJ
            axis = X_CJ.rotate(j.axis_J)
            out.axis = axis
            if kind != "prismatic" and _offset(X_CJ.p, axis) > _AXIS_OFFSET_TOL:
                self.warn(f"joint '{j.name}': its axis passes {_offset(X_CJ.p, axis):.6g} m from "
                          "the child link's origin; URDF puts every joint axis through the "
                          "child link's origin, so it moves there", j.node)
        out.preserve = kind == "fixed" and self.urdf_xml is None and j.parent != WORLD
        return out

    def _urdf_skipped_joints(self, by_name: dict[str, FlatLink]) -> dict[str, etree._Element]:
        """Floating and planar joints the URDF reader set aside (copies of their elements),
        by child link."""
        root = self.document.root
        if self.urdf_xml is None or not isinstance(root, Model):
            return {}
        out: dict[str, etree._Element] = {}
        wanted = set(root.extras.get("urdf_skipped_joints", ()))
        for el in self.urdf_xml.getroot().iter("joint"):
            if el.get("name") not in wanted:
                continue
            parent, child = el.find("parent"), el.find("child")
            names = (parent.get("link") if parent is not None else None,
                     child.get("link") if child is not None else None)
            if names[1] in by_name and (names[0] in by_name or names[0] == WORLD):
                out[names[1]] = copy.deepcopy(el)
        return out

    def _frames(self, flat: Flattened, plan: _Plan, by_name: dict[str, FlatLink]) -> None:
        dropped = []
        for f in flat.frames:
            if (f.body == WORLD and not plan.world) or (f.body != WORLD and
                                                        f.body not in by_name):
                dropped.append(f.name)
                continue
            X_RB = IDENTITY if f.body == WORLD else by_name[f.body].X_RL
            link = self.name(f.name)
            parent = WORLD if f.body == WORLD else plan.names[f.body]
            plan.frame_links.append((link, f))
            plan.joints.append(_UrdfJoint(self.name(f"{f.name}_joint", True), "fixed", parent, link,
                                          X_RB.inverse() @ f.X_RF))
        if dropped:
            self.warn(f"frame{'s' if len(dropped) > 1 else ''} {', '.join(dropped)} "
                      f"{'are' if len(dropped) > 1 else 'is'} fixed in the world (or on a link "
                      "left out), which this URDF has no link for; dropped", self.document.root)

    # -- XML ------------------------------------------------------------------------------
    def element(self, plan: _Plan) -> etree._Element:
        robot = etree.Element("robot", name=plan.robot)
        if self.urdf_xml is not None:
            # The robot-level materials the visuals name (<material name="orange"/>),
            # first, as URDF files put them: without them a visual has no colour.
            for el in self.urdf_xml.getroot():
                if isinstance(el.tag, str) and el.tag == "material":
                    robot.append(copy.deepcopy(el))
        if plan.world:
            etree.SubElement(robot, "link", name=WORLD)
        for link in plan.links:
            robot.append(self.link(link, plan.names[link.name]))
        for name, _ in plan.frame_links:
            etree.SubElement(robot, "link", name=name)
        preserved = []
        for j in plan.joints:
            robot.append(self.joint(j))
            if j.preserve:
                preserved.append(j.name)
        for name in preserved:
            # Gazebo (libsdformat) merges links joined by fixed joints unless told not to.
            gz = etree.SubElement(robot, "gazebo", reference=name)
            etree.SubElement(gz, "preserveFixedJoint").text = "true"
        for gz in self.extensions(plan):
            robot.append(gz)
        if self.urdf_xml is not None:
            for el in self.urdf_xml.getroot():
                if isinstance(el.tag, str) and el.tag in ("transmission", "gazebo"):
                    robot.append(copy.deepcopy(el))
        return robot

    def joint(self, j: _UrdfJoint) -> etree._Element:
        if j.element is not None:
            return j.element
        el = etree.Element("joint", name=j.name, type=j.type)
        _origin(el, j.origin)
        etree.SubElement(el, "parent", link=j.parent)
        etree.SubElement(el, "child", link=j.child)
        if j.axis is not None:
            etree.SubElement(el, "axis", xyz=_vec(j.axis))
        src = j.source
        if src is not None and j.type in ("revolute", "continuous", "prismatic"):
            a = src.node.axes[0] if src.node.axes else None
            limit = {}
            if j.type != "continuous":
                limit["lower"] = _num(_given(a.lower if a else None, DEFAULT_LOWER))
                limit["upper"] = _num(_given(a.upper if a else None, DEFAULT_UPPER))
            if j.type != "continuous" or (a is not None and (a.effort is not None or
                                                             a.velocity is not None)):
                limit["effort"] = _num(_given(a.effort if a else None, DEFAULT_EFFORT))
                limit["velocity"] = _num(_given(a.velocity if a else None, DEFAULT_VELOCITY))
                etree.SubElement(el, "limit", **limit)
            dynamics = self._dynamics(src)
            if dynamics:
                etree.SubElement(el, "dynamics", **dynamics)
        if src is not None and self.urdf_xml is not None:
            for extra in self._urdf_joint_extras(src):
                if extra.tag != "dynamics" or el.find("dynamics") is None:
                    el.append(extra)
        return el

    def _dynamics(self, j: FlatJoint) -> dict[str, str]:
        """``<axis><dynamics>`` damping and friction of an SDFormat joint."""
        xml = self._view(j.node)
        out = {}
        if xml is None:
            return out
        for key in ("damping", "friction"):
            el = xml.find(f"axis/dynamics/{key}")
            if el is not None and (el.text or "").strip():
                try:
                    value = float(el.text)
                except ValueError:
                    continue
                if math.isfinite(value):
                    out[key] = _num(value)
        return out

    def _urdf_joint_extras(self, j: FlatJoint) -> list[etree._Element]:
        name = j.node.extras.get("urdf_name") or j.node.name
        for el in self.urdf_xml.getroot().iter("joint"):
            if el.get("name") == name:
                return [copy.deepcopy(c) for c in el if isinstance(c.tag, str)
                        and c.tag in _JOINT_EXTRAS]
        return []

    # -- what URDF elements do not hold: <gazebo> extensions ---------------------------------
    def _view(self, node) -> etree._Element | None:
        """The SDFormat element of ``node``: the one it was read from, or (a node read from
        URDF through an include) what its reader set aside as SDFormat.  None for the nodes
        of a URDF document written back: its own ``<gazebo>`` elements are copied."""
        if node.xml is not None:
            return node.xml
        return node.extras.get("sdformat_elements") if self.urdf_xml is None else None

    @staticmethod
    def _unwritten(el: etree._Element | None, kind: str) -> list[etree._Element]:
        if el is None:
            return []
        return [c for c in el if isinstance(c.tag, str) and c.tag not in _WRITTEN[kind]]

    def extensions(self, plan: _Plan) -> list[etree._Element]:
        """SDFormat content the URDF elements cannot hold, kept in ``<gazebo>`` extensions
        the way libsdformat's URDF parser reads them back: robot-level (model plugins,
        ``<self_collide>``...), per link (``<gravity>``, ``<self_collide>``, sensors, lights,
        and each visual's and collision's extra content by its name) and per joint
        (spring stiffness and reference, ``<physics>``, sensors).  What no extension holds
        is reported, naming the element."""
        out: list[etree._Element] = []
        robot = etree.Element("gazebo")
        root = self.document.root
        if isinstance(root, World):
            self._world_leftovers(root)
        for model in self._models():
            if model is not root or self.urdf_xml is None:   # (a URDF's own: copied)
                for message, where in model.extras.get("urdf_unconverted", ()):
                    self.diags.warning(Code.CONVERSION_ERROR, f"{message}: not written "
                                       "(only a URDF document written back keeps it)", where)
            view = self._view(model)
            blobs = self._unwritten(view, "model")
            if model.xml is None and view is not None and view.find("static") is not None:
                # A URDF's robot-level <static>, which its model does not apply: robot-level
                # here it would make the whole robot static.
                self.warn(f"model '{model.name}': the <static> of its URDF <gazebo> extension "
                          "is not written (it would make the whole robot static)", model)
            if blobs and model is not root:
                tags = ", ".join(dict.fromkeys(f"<{c.tag}>" for c in blobs))
                self.warn(f"model '{model.name}': {tags} kept as robot-level <gazebo> "
                          "extension (URDF has no nested models; names inside are not "
                          "rewritten)", model)
            robot.extend(copy.deepcopy(c) for c in blobs)
        if len(robot):
            out.append(robot)
        for link in plan.links:
            gz = self._link_extension(link, plan.names[link.name])
            if gz is not None:
                out.append(gz)
        for j in plan.joints:
            if j.source is not None:
                gz = self._joint_extension(j)
                if gz is not None:
                    out.append(gz)
        return out

    def _world_leftovers(self, world: World) -> None:
        """A URDF is one robot: the world's own content (physics, lights, plugins...) and
        the file's other worlds have no place in it."""
        tags = list(dict.fromkeys(f"<{c.tag}>" for c in self._unwritten(world.xml, "world")))
        if tags:
            self.warn(f"world '{world.name}': {', '.join(tags)} "
                      f"{'has' if len(tags) == 1 else 'have'} no URDF counterpart; left out",
                      world)
        others = [d.root.name for d in self.document.extras.get("other_worlds", ())
                  if d.root is not None]
        if others:
            self.warn(f"the file's other world{'s' if len(others) > 1 else ''} "
                      f"{', '.join(repr(n) for n in others)} cannot be written: a URDF holds "
                      f"one robot (world '{world.name}' is written); left out", world)

    def _models(self) -> list[Model]:
        """The models whose content is written (nested and included ones once each)."""
        seen: set[int] = set()
        out = []
        for node in self.document.nodes(into_includes=True):
            if isinstance(node, Model) and id(node) not in seen:
                seen.add(id(node))
                out.append(node)
        return out

    def _link_extension(self, flat: FlatLink, name: str) -> etree._Element | None:
        link = flat.node
        gz = etree.Element("gazebo", reference=name)
        view = self._view(link)
        gz.extend(copy.deepcopy(c) for c in self._unwritten(view, "link"))
        inertial = view.find("inertial") if view is not None else None
        lost = [f"<{c.tag}>" for c in self._unwritten(inertial, "inertial")]
        if lost:
            self.warn(f"link '{flat.name}': {', '.join(lost)} of its <inertial> "
                      "have no URDF counterpart; left out", link)
        for part in [*link.visuals, *link.collisions]:
            if part.geometry.shape not in URDF_SHAPES:
                continue   # not written (reported, or nothing to lose): nor is its content
            pview = self._view(part)
            kept = self._unwritten(pview, part.kind)
            if isinstance(part, Visual):
                kept = [c for c in kept if c.tag != "material" or not _color_only(c)]
            if kept:
                blob = etree.SubElement(gz, part.kind, name=part.name)
                blob.extend(copy.deepcopy(c) for c in kept)
        return gz if len(gz) else None

    def _joint_extension(self, j: _UrdfJoint) -> etree._Element | None:
        node = j.source.node
        view = self._view(node)
        if view is None:
            return None
        gz = etree.Element("gazebo", reference=j.name)
        lost: list[str] = []
        for c in self._unwritten(view, "joint"):
            gz.append(copy.deepcopy(c))   # <physics>, <sensor>, ...: copied as they are
        for i, axis in enumerate(c for c in view if c.tag in ("axis", "axis2")):
            if i > 0 or j.type not in ("revolute", "continuous", "prismatic"):
                if j.type == URDF_JOINT_TYPES.get(node.type):   # (else: reported as fixed)
                    lost.append(f"<{axis.tag}>")
                continue
            for path, leaf in _leaves(axis):
                if path in _AXIS_WRITTEN:
                    continue
                key = _AXIS_EXTENSIONS.get(path)
                if key is not None:
                    etree.SubElement(gz, key).text = (leaf.text or "").strip()
                else:
                    lost.append(f"<{axis.tag}/{path}>")
        if lost:
            self.warn(f"joint '{j.source.name}': {', '.join(lost)} "
                      f"{'has' if len(lost) == 1 else 'have'} no URDF counterpart; left out",
                      node)
        return gz if len(gz) else None

    def link(self, flat: FlatLink, name: str) -> etree._Element:
        link = flat.node
        el = etree.Element("link", name=name)
        self.inertial(el, flat)
        originals = self._urdf_parts(link)
        for part in [*link.visuals, *link.collisions]:
            geometry = self.geometry(part, flat)
            if geometry is None:
                continue
            part_el = etree.SubElement(el, part.kind)
            if part.name:
                part_el.set("name", part.name)
            _origin(part_el, self._part_pose(part, flat))
            part_el.append(geometry)
            if isinstance(part, Visual):
                material = originals.get(id(part))
                if material is not None:
                    part_el.append(copy.deepcopy(material))
                elif part.color is not None:
                    mat = etree.SubElement(part_el, "material",
                                           name=f"{name}_{part.name or 'visual'}_material")
                    etree.SubElement(mat, "color", rgba=_vec(part.color))
        return el

    def _urdf_parts(self, link: Link) -> dict[int, etree._Element]:
        """Materials of a URDF source's visuals (names, textures), by visual node."""
        if self.urdf_xml is None:
            return {}
        for el in self.urdf_xml.getroot().iter("link"):
            if el.get("name") == link.name:
                visuals = [v for v in el if v.tag == "visual"]
                return {id(node): v.find("material") for node, v in zip(link.visuals, visuals)
                        if v.find("material") is not None}
        return {}

    def _part_pose(self, part: Collision | Visual, flat: FlatLink) -> Pose:
        spec = part.pose
        if spec.relative_to in ("", flat.node.name):
            return spec.value
        from snapframe.core.frames.scope import Unresolved
        try:
            X_SL = flat.scope.pose_of(flat.node.name)
            return X_SL.inverse() @ flat.scope.pose_of(spec.relative_to) @ spec.value
        except Unresolved:
            return spec.value

    def inertial(self, el: etree._Element, flat: FlatLink) -> None:
        if flat.node.inertial is None and _from_urdf(flat.node):
            return   # massless in URDF, as it was read
        mass, X_LC, tensor = self._mass_properties(flat)
        inertial = etree.SubElement(el, "inertial")
        _origin(inertial, X_LC)
        etree.SubElement(inertial, "mass", value=_num(mass))
        etree.SubElement(inertial, "inertia", **{k: _num(v) for k, v in zip(
            ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"), tensor)})

    def _mass_properties(self, flat: FlatLink) -> tuple[float, Pose, tuple]:
        """(mass, X_LC, tensor) to write: the link's, computed for ``auto``, or SDFormat's
        default (mass 1, unit inertia) for a link without ``<inertial>``."""
        inertial: Inertial | None = flat.node.inertial
        if inertial is None:
            return 1.0, IDENTITY, (1.0, 0.0, 0.0, 1.0, 0.0, 1.0)
        if inertial.auto and not inertial.written_inertia:
            computed = self._auto(flat)
            if computed is not None:
                inertial = computed
            else:
                self.warn(f"link '{flat.name}': its automatic inertia cannot be computed; "
                          "written with a unit inertia", flat.node)
        mass = inertial.mass if inertial.mass is not None else 1.0
        return mass, inertial.pose.value, (inertial.ixx, inertial.ixy, inertial.ixz,
                                           inertial.iyy, inertial.iyz, inertial.izz)

    def _auto(self, flat: FlatLink) -> Inertial | None:
        from snapframe.core.inertia import compute_link_inertia
        result = compute_link_inertia(flat.node, static=False,
                                      resolve_pose=lambda c: self._part_pose(c, flat))
        return result.inertial()

    def geometry(self, part: Collision | Visual, flat: FlatLink) -> etree._Element | None:
        g: Geometry = part.geometry
        if g.shape == "empty":
            return None   # nothing to draw or collide with: nothing lost
        if g.shape not in URDF_SHAPES:
            self.warn(f"{part.kind} '{part.name}' of link '{flat.name}' is a {g.shape}, which "
                      "URDF does not have; left out", part)
            return None
        geometry = etree.Element("geometry")
        p = g.params
        if g.shape == "box":
            etree.SubElement(geometry, "box", size=_vec(p.get("size", (1.0, 1.0, 1.0))))
        elif g.shape == "cylinder":
            etree.SubElement(geometry, "cylinder", radius=_num(p.get("radius", 1.0)),
                             length=_num(p.get("length", 1.0)))
        elif g.shape == "sphere":
            etree.SubElement(geometry, "sphere", radius=_num(p.get("radius", 1.0)))
        else:
            mesh = etree.SubElement(geometry, "mesh", filename=self.mesh_uri(part, flat))
            scale = tuple(p.get("scale") or (1.0, 1.0, 1.0))
            if any(abs(s - 1.0) > 0 for s in scale):
                mesh.set("scale", _vec(scale))
            if p.get("submesh"):
                self.warn(f"{part.kind} '{part.name}' of link '{flat.name}' uses submesh "
                          f"'{p['submesh']}'; URDF meshes have no submeshes, the whole mesh "
                          "is written", part)
        return geometry

    def mesh_uri(self, part: Collision | Visual, flat: FlatLink) -> str:
        """``package://`` and web URIs as written; anything found on disk by a path
        relative to the written file."""
        p = part.geometry.params
        uri = str(p.get("uri") or "")
        exported = self.mesh_uris.get(id(p.get("data")))
        if exported is not None:
            return exported
        if uri.startswith(("package://", "http://", "https://")):
            return uri
        resolved = p.get("resolved_path")
        if not resolved and "://" not in uri and uri:
            source = part.source.file or flat.node.source.file
            base = Path(source).resolve().parent if source else None
            if base is not None and (base / uri).is_file():
                resolved = str(base / uri)
        if resolved and self.out_dir is not None:
            try:
                return os.path.relpath(resolved, self.out_dir)
            except ValueError:   # another drive (Windows)
                return str(resolved)
        if "://" in uri:
            self.warn(f"mesh '{uri}' of link '{flat.name}' was not found; written as is, which "
                      "ROS tools cannot resolve unless it is a package:// URI", part)
        return uri


def _reversed(j: FlatJoint) -> FlatJoint:
    """``j`` written from its child to its parent: the same relative motion.  The joint
    frame stays where it is; the axis turns round, so the same joint position gives the
    same pose (X_CP(q) = X_PC(q)^-1 = X_CJ R(-axis, q) X_JP), and the limits stay."""
    x, y, z = j.axis_J
    return replace(j, parent=j.child, child=j.parent, axis_J=(-x, -y, -z))


def _color_only(material: etree._Element) -> bool:
    """Does an SDFormat ``<material>`` say no more than the diffuse colour URDF keeps?"""
    diffuse = material.find("diffuse")
    for c in material:
        if not isinstance(c.tag, str) or c.tag == "diffuse":
            continue
        if c.tag == "ambient" and diffuse is not None and \
                (c.text or "").split() == (diffuse.text or "").split():
            continue   # what the SDFormat writer writes for a colour
        return False
    return True


def _leaves(el: etree._Element, prefix: str = "") -> list[tuple[str, etree._Element]]:
    """(path below ``el``, element) of every leaf element, in document order."""
    out = []
    for c in el:
        if not isinstance(c.tag, str):
            continue
        path = f"{prefix}{c.tag}"
        if any(isinstance(k.tag, str) for k in c):
            out.extend(_leaves(c, path + "/"))
        else:
            out.append((path, c))
    return out


def _from_urdf(link: Link) -> bool:
    """Was ``link`` read from a URDF file (directly or through an include)?"""
    return isinstance(link.parent, Model) and "urdf_xml" in link.parent.extras


def _given(value: float | None, default: float) -> float:
    return value if value is not None and math.isfinite(value) else default


def _offset(point, axis) -> float:
    """Distance from the origin to the line through ``point`` along unit ``axis``."""
    d = sum(p * a for p, a in zip(point, axis))
    return math.sqrt(max(0.0, sum((p - d * a) ** 2 for p, a in zip(point, axis))))


def to_string(document: Document, out_dir: Path | None = None, *,
              mesh_uris: dict | None = None) -> str:
    """The URDF text of ``document``; raises :class:`NotATree` (reported in the document's
    diagnostics too) when its links do not form a tree.  ``mesh_uris`` maps id(MeshData)
    of meshes held in memory to the URIs of the files they are saved as."""
    from snapframe.plugins.nesting import nesting_depth, recursion_headroom
    if document.root is None:
        raise NotATree("the document is empty; there is no robot to write")
    writer = _Writer(document, out_dir, mesh_uris)
    with recursion_headroom(nesting_depth(document.root)):
        flat = flatten(document, writer.diags)
        if not flat.links:
            writer.fail(f"{document.root.kind} '{document.root.name}' has no link; a URDF "
                        "robot needs one", document.root)
        robot = writer.element(writer.plan(flat))
    etree.indent(robot, space="  ")
    return '<?xml version="1.0"?>\n' + etree.tostring(robot, encoding="unicode") + "\n"


def write(document: Document, path: str | Path, **options) -> None:
    """Save ``document`` as URDF at ``path`` (atomically).  What URDF cannot hold is
    reported in ``document.diagnostics``; a document that is not a tree of links raises
    :class:`NotATree` and nothing is written."""
    from snapframe.plugins.sdformat.writer import plan_mesh_exports, write_mesh_exports
    out_dir = Path(path).resolve().parent
    # Meshes a reader holds in memory (params["data"]) become STL files next to the
    # output (as the SDFormat writer does); planned first, written before the file.
    exports = plan_mesh_exports([n for n in document.nodes(into_includes=True)
                                 if isinstance(n, (Visual, Collision))], path)
    text = to_string(document, out_dir, mesh_uris={id(e.data): e.uri for e in exports})
    if exports:
        written = write_mesh_exports(document, exports, path)
        if len(written) < len(exports):
            # the ones not written keep their URIs (warned about; findings repeat once)
            text = to_string(document, out_dir,
                             mesh_uris={id(e.data): e.uri for e in written})
    atomic_write(path, text)
