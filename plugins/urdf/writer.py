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
* refuses a document that is not a tree: a kinematic loop, or a link with two parent
  joints, is an error naming the joint, and nothing is written (:class:`NotATree`).

Documents read from URDF keep what the reader set aside: their ``floating`` and
``planar`` joints, joint ``<dynamics>``/``<mimic>``/``<safety_controller>``/
``<calibration>``, visual materials, ``<transmission>`` and ``<gazebo>`` elements.  Fixed
joints of other documents get Gazebo's ``preserveFixedJoint`` extension, so that
libsdformat does not merge the links they join.
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from snapframe.core.diagnostics import Code, Diagnostics
from snapframe.core.fileio import atomic_write
from snapframe.core.model import Collision, Document, Geometry, Inertial, Link, Model, Visual
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
    def __init__(self, document: Document, out_dir: Path | None) -> None:
        self.document = document
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
        """The joint each link hangs from (document order); a second parent or a loop is
        an error (:class:`NotATree`)."""
        parent_of: dict[str, FlatJoint] = {}
        for j in flat.joints:
            if j.child == WORLD or j.child == j.parent:
                what = "the world as its child" if j.child == WORLD else "one link at both ends"
                self.warn(f"joint '{j.name}' has {what}; URDF cannot write that, left out",
                          j.node)
                continue
            if j.child not in by_name or (j.parent != WORLD and j.parent not in by_name):
                continue   # an end whose pose could not be resolved (reported)
            first = parent_of.get(j.child)
            if first is not None:
                self.fail(f"joint '{j.name}' gives link '{j.child}' a second parent (joint "
                          f"'{first.name}' is the first); URDF needs a tree of links, so "
                          "nothing is written", j.node)
            parent_of[j.child] = j
        self._check_loops(parent_of, by_name)
        return parent_of

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

    def _check_loops(self, parent_of: dict[str, FlatJoint], by_name: dict[str, FlatLink]) -> None:
        """Every link has at most one parent here: a loop is a cycle of parents."""
        order = {id(j): i for i, j in enumerate(parent_of.values())}
        done: set[str] = set()
        for start in by_name:
            path: list[str] = []
            on_path: set[str] = set()
            cur: str | None = start
            while cur is not None and cur not in done and cur not in on_path:
                on_path.add(cur)
                path.append(cur)
                j = parent_of.get(cur)
                cur = j.parent if j is not None else None
            if cur is not None and cur in on_path:
                loop = [parent_of[n] for n in path[path.index(cur):]]
                last = max(loop, key=lambda j: order[id(j)])
                names = ", ".join(j.name for j in sorted(loop, key=lambda j: order[id(j)]))
                self.fail(f"joint '{last.name}' closes a kinematic loop (joints {names}); URDF "
                          "needs a tree of links, so nothing is written", last.node)
            done.update(path)

    @staticmethod
    def _tree_root(link: str, parent_of: dict[str, FlatJoint]) -> str:
        """The root of the tree ``link`` is in (no loops are left at this point)."""
        while link in parent_of:
            link = parent_of[link].parent
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

    @staticmethod
    def _dynamics(j: FlatJoint) -> dict[str, str]:
        """``<axis><dynamics>`` damping and friction of an SDFormat joint."""
        xml = j.node.xml
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


def _from_urdf(link: Link) -> bool:
    """Was ``link`` read from a URDF file (directly or through an include)?"""
    return isinstance(link.parent, Model) and "urdf_xml" in link.parent.extras


def _given(value: float | None, default: float) -> float:
    return value if value is not None and math.isfinite(value) else default


def _offset(point, axis) -> float:
    """Distance from the origin to the line through ``point`` along unit ``axis``."""
    d = sum(p * a for p, a in zip(point, axis))
    return math.sqrt(max(0.0, sum((p - d * a) ** 2 for p, a in zip(point, axis))))


def to_string(document: Document, out_dir: Path | None = None) -> str:
    """The URDF text of ``document``; raises :class:`NotATree` (reported in the document's
    diagnostics too) when its links do not form a tree."""
    from snapframe.plugins.nesting import nesting_depth, recursion_headroom
    if document.root is None:
        raise NotATree("the document is empty; there is no robot to write")
    writer = _Writer(document, out_dir)
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
    out_dir = Path(path).resolve().parent
    atomic_write(path, to_string(document, out_dir))
