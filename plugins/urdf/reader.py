"""URDF -> :mod:`snapframe.core.model`: an SDFormat *interface model*.

The SDFormat 1.8 composition proposal (section 1.5) lets ``//include/uri`` name a
non-SDFormat file: a custom model parser hands back the minimum the including file needs
(links posed in the model frame, a canonical link, joints, frames).  This module builds
that as an ordinary :class:`~snapframe.core.model.Model`:

* one :class:`Link` per URDF ``<link>``, posed in the model frame at zero joint positions
  (the joint origins composed from the root link, which sits at the model origin and is
  the canonical link);
* one :class:`Joint` per URDF ``<joint>`` whose type SDFormat has.  URDF puts the joint
  frame on the child link, and so does SDFormat's default (``//joint/pose`` relative to
  the child), so every joint pose is the identity and the axis, given in the joint frame,
  is copied as is with ``expressed_in`` left empty (= the joint frame);
* ``floating`` and ``planar`` joints have no SDFormat equivalent: they are left out with a
  warning and their child link keeps its pose.  An SDFormat link without a joint is a free
  body, which is what ``floating`` means, and is the nearest thing to ``planar``;
* a root link named ``world`` (the ROS idiom for welding a robot to the ground) is not a
  link: joints from it keep ``world`` as their parent, as SDFormat allows.

Nodes keep ``xml`` None on purpose: the SDFormat writer starts from a node's element, and a
URDF element written into an SDFormat file would be wrong.  The parsed URDF tree is in
``model.extras["urdf_xml"]``.

Problems go to the given :class:`~snapframe.core.diagnostics.Diagnostics` with file and
line.  Bad input never raises: the worst outcome is ``None`` plus errors.
"""

from __future__ import annotations

import copy
import math
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from lxml import etree

from snapframe.core.diagnostics import Code, Diagnostics, SourceLocation
from snapframe.core.fileio import read_xml_file
from snapframe.core import limits
from snapframe.core.limits import listed
from snapframe.core.loading import LoadContext
from snapframe.core.model import (Collision, Document, Geometry, Inertial, Joint, JointAxis, Link,
                                  Model, NestedInclude, PoseSpec, Visual)
from snapframe.core.model.names import SEP, WORLD, is_reserved
from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.xmlsafe import (XmlError, parse_number, parse_numbers, parse_xml_bytes,
                                   unusual_characters)

from .gazebo_extensions import (NUMBER_VALUES, add_joint_dynamics, read_joint_extensions,
                                read_link_extensions, read_robot_extension)

__all__ = ["read", "read_string", "parse_include", "JOINT_TYPES"]

#: URDF joint type -> SDFormat joint type.  None: SDFormat has no such joint; the joint is
#: dropped (with a warning) and its child link becomes a free body in its zero pose.
JOINT_TYPES: dict[str, str | None] = {
    "revolute": "revolute",
    "continuous": "continuous",
    "prismatic": "prismatic",
    "fixed": "fixed",
    "floating": None,
    "planar": None,
}
_AXIS_TYPES = ("revolute", "continuous", "prismatic")
_LIMITED_TYPES = ("revolute", "prismatic")  # urdfdom requires <limit> for these


def _split_tag(tag: str) -> tuple[str | None, str]:
    """``"{uri}local"`` -> ``(uri, local)``.  An undeclared prefix (kept as written by the
    lenient parser, e.g. ``"xacro:macro"``) counts as a foreign namespace named by it."""
    if tag.startswith("{"):
        uri, _, local = tag[1:].partition("}")
        return uri, local
    prefix, sep, local = tag.partition(":")
    return (prefix, local) if sep else (None, tag)


@dataclass(eq=False)
class _ParsedJoint:
    """A URDF joint as read, before the tree is known."""

    node: Joint
    urdf_type: str
    origin: Pose
    el: etree._Element
    parent_el: etree._Element | None
    child_el: etree._Element | None
    #: Part of the output model (False for floating/planar and unknown types).
    emit: bool = True

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def parent(self) -> str:
        return self.node.parent_name

    @property
    def child(self) -> str:
        return self.node.child_name


class _UrdfReader:
    """Reads one URDF file into a :class:`Model` (or reports why it cannot)."""

    def __init__(self, file: str, context: LoadContext, diagnostics: Diagnostics) -> None:
        self.file = file
        self.context = context
        self.diag = diagnostics
        self.base_dir = Path(file).resolve().parent if file else Path.cwd()
        self.robot = ""
        #: Errors this reader reported (the shared collector may hold others' too).
        self.n_errors = 0
        #: Robot-level <material name> -> rgba (None: a texture-only material).
        self.materials: dict[str, tuple[float, float, float, float] | None] = {}
        self.ns: str | None = None
        #: SDFormat ``<model>`` children of robot-level ``<gazebo>`` elements.
        self.robot_extension: etree._Element | None = None

    # -- reporting ----------------------------------------------------------------
    def loc(self, el: etree._Element | None) -> SourceLocation:
        line = el.sourceline if el is not None and el.sourceline else 0
        return SourceLocation(self.file, line)

    def path(self, kind: str = "", name: str = "") -> str:
        """Diagnostic element path: ``/robot[@name="arm"]/joint[@name="elbow"]``."""
        out = f'/robot[@name="{self.robot}"]' if self.robot else "/robot"
        if kind:
            out += f'/{kind}[@name="{name}"]' if name else f"/{kind}"
        return out

    def error(self, code: Code, message: str, el: etree._Element | None, element: str = "") -> None:
        self.n_errors += 1
        self.diag.error(code, message, self.loc(el), element)

    def warning(self, code: Code, message: str, el: etree._Element | None,
                element: str = "") -> None:
        self.diag.warning(code, message, self.loc(el), element)

    # -- XML helpers --------------------------------------------------------------
    def tag(self, el: etree._Element) -> str | None:
        """Local tag name of a URDF element; None for comments and foreign namespaces
        (xacro, gazebo extensions written with a prefix, ...)."""
        if not isinstance(el.tag, str):
            return None
        namespace, local = _split_tag(el.tag)
        if namespace is None or namespace == self.ns:
            return local
        return None

    def children(self, el: etree._Element, tag: str | None = None) -> Iterator[etree._Element]:
        for c in el:
            t = self.tag(c)
            if t is not None and (tag is None or t == tag):
                yield c

    def child(self, el: etree._Element, tag: str) -> etree._Element | None:
        return next(self.children(el, tag), None)

    def floats(self, el: etree._Element, attr: str, count: int, *, required: bool = False,
               default: tuple[float, ...] | None = None) -> tuple[float, ...] | None:
        """``count`` finite numbers from attribute ``attr``; ``default`` if absent or bad
        (bad values and missing required ones are reported)."""
        raw = el.get(attr)
        tag = self.tag(el) or el.tag
        if raw is None:
            if required:
                self.error(Code.ATTRIBUTE_MISSING,
                           f"Required attribute '{attr}' of <{tag}> is missing.", el)
            return default
        try:
            # The XML Schema syntax every XML format reads (no "1_0", no Arabic-Indic or
            # full-width digits, no no-break space between numbers), not Python's float().
            values = tuple(parse_numbers(raw))
        except ValueError:
            self.error(Code.ATTRIBUTE_INVALID, f"Unable to read <{tag} {attr}='{raw.strip()}'> "
                       f"as numbers{unusual_characters(raw)}.", el)
            return default
        if len(values) != count:
            self.error(Code.ATTRIBUTE_INVALID, f"<{tag} {attr}> needs {count} "
                       f"number{'s' if count != 1 else ''}, found {len(values)}: '{raw.strip()}'.",
                       el)
            return default
        if not all(math.isfinite(v) for v in values):
            self.error(Code.ATTRIBUTE_INVALID, f"<{tag} {attr}='{raw.strip()}'> has a non-finite "
                       "value.", el)
            return default
        return values

    def number(self, el: etree._Element, attr: str, *, required: bool = False,
               default: float | None = None) -> float | None:
        values = self.floats(el, attr, 1, required=required)
        return values[0] if values is not None else default

    def origin(self, parent: etree._Element) -> PoseSpec:
        """``<origin xyz rpy>`` of ``parent`` (absent: identity)."""
        el = self.child(parent, "origin")
        if el is None:
            return PoseSpec(source=self.loc(parent))
        xyz = self.floats(el, "xyz", 3, default=(0.0, 0.0, 0.0))
        rpy = self.floats(el, "rpy", 3, default=(0.0, 0.0, 0.0))
        assert xyz is not None and rpy is not None
        return PoseSpec(Pose.from_xyz_rpy(*xyz, *rpy), "", True, self.loc(el))

    def name_of(self, el: etree._Element, kind: str) -> str:
        """``@name`` of a link or joint; reports missing, empty and SDFormat-reserved names."""
        name = el.get("name")
        if name is None:
            self.error(Code.ATTRIBUTE_MISSING,
                       f"Required attribute 'name' of <{kind}> is missing.", el, self.path(kind))
            return ""
        if not name.strip():
            self.error(Code.ATTRIBUTE_INVALID,
                       f"Attribute 'name' of <{kind}> is empty.", el, self.path(kind))
            return ""
        if SEP in name:
            # The interface model's names join SDFormat scopes, where '::' is the delimiter.
            self.error(Code.RESERVED_NAME, f"{kind} name [{name}] contains '::', the SDFormat "
                       "scope delimiter; it cannot be referenced from SDFormat.", el,
                       self.path(kind, name))
        elif is_reserved(name) and not (kind == "link" and name == WORLD):
            self.error(Code.RESERVED_NAME, f"The supplied {kind} name [{name}] is reserved in "
                       "SDFormat.", el, self.path(kind, name))
        return name

    # -- robot --------------------------------------------------------------------
    def robot_model(self, tree: etree._ElementTree) -> Model | None:
        root = tree.getroot()
        namespace, local = _split_tag(root.tag)
        if local != "robot":
            self.error(Code.ELEMENT_INVALID, f"Root element is <{local}>, expected <robot> "
                       "(is this a URDF file?)", root)
            return None
        self.ns = namespace
        name = root.get("name")
        if name is None:
            self.error(Code.ATTRIBUTE_MISSING, "Required attribute 'name' of <robot> is missing.",
                       root, "/robot")
        elif not name.strip():
            self.error(Code.ATTRIBUTE_INVALID, "Attribute 'name' of <robot> is empty.", root,
                       "/robot")
        elif SEP in name or is_reserved(name):
            self.error(Code.RESERVED_NAME, f"The robot name [{name}] is reserved or contains "
                       "'::' and cannot name an SDFormat model.", root, "/robot")
        self.robot = name if name and name.strip() else ""
        if not self.robot:
            return None  # an SDFormat model needs a name; nothing else can be reported sensibly
        self.xacro_hint(root)

        for el in self.children(root, "material"):
            self.global_material(el)

        links: dict[str, Link] = {}
        link_els: dict[str, etree._Element] = {}
        for el in self.children(root, "link"):
            link = self.link(el)
            if link is None:
                continue
            if link.name in links:
                first = link_els[link.name]
                self.error(Code.DUPLICATE_NAME, f"link with name[{link.name}] already exists "
                           f"(first defined at line {first.sourceline}).", el,
                           self.path("link", link.name))
                continue
            links[link.name] = link
            link_els[link.name] = el

        joints: list[_ParsedJoint] = []
        joint_els: dict[str, etree._Element] = {}
        references_ok = True
        for el in self.children(root, "joint"):
            joint = self.joint(el)
            if joint is None:
                references_ok = False
                continue
            if joint.name in joint_els:
                self.error(Code.DUPLICATE_NAME, f"joint with name[{joint.name}] already exists "
                           f"(first defined at line {joint_els[joint.name].sourceline}).", el,
                           self.path("joint", joint.name))
                continue
            joint_els[joint.name] = el
            references_ok &= self.check_references(joint, links)
            joints.append(joint)

        self.apply_gazebo_joint_extensions(root, joints)
        self.keep_joint_dynamics(joints)
        self.apply_gazebo_link_extensions(root, links)

        if not links:
            self.error(Code.MODEL_WITHOUT_LINK, f"URDF robot [{self.robot}] has no <link>; a "
                       "model must have at least one link.", root, self.path())
            return None
        if not references_ok:
            return None  # the tree cannot be built from joints that name unknown links
        tree_result = self.kinematic_tree(links, link_els, joints)
        if tree_result is None:
            return None
        root_link, X_ML, children = tree_result
        return self.assemble(root, tree, links, joints, root_link, X_ML, children)

    def unconverted(self, root: etree._Element, joints: list[_ParsedJoint]
                    ) -> list[tuple[str, SourceLocation]]:
        """(message, where) of the URDF content that has no place in the core model nor in
        the SDFormat it is converted to: transmissions, joint mimic / safety controller /
        calibration, material textures."""
        out = []
        for el in self.children(root, "transmission"):
            out.append((f"<transmission name=\"{el.get('name', '')}\"> of robot "
                        f"[{self.robot}]", self.loc(el)))
        for j in joints:
            for c in self.children(j.el):
                if self.tag(c) in ("mimic", "safety_controller", "calibration"):
                    out.append((f"<{self.tag(c)}> of joint [{j.name}]", self.loc(c)))
        for material in root.iter():
            if self.tag(material) == "material" and self.child(material, "texture") is not None:
                out.append((f"the texture of material [{material.get('name', '')}]",
                            self.loc(material)))
        return out

    def keep_joint_dynamics(self, joints: list[_ParsedJoint]) -> None:
        """``<dynamics damping friction>``: not part of the core model; kept as the SDFormat
        ``//axis/dynamics`` libsdformat makes of it, for the SDFormat writer."""
        for j in joints:
            dynamics = self.child(j.el, "dynamics")
            if dynamics is None:
                continue
            damping, friction = self.number(dynamics, "damping"), self.number(dynamics, "friction")
            merged = add_joint_dynamics(j.node.extras.get("sdformat_elements"), damping,
                                        friction, _number_text)
            if merged is not None:
                j.node.extras["sdformat_elements"] = merged

    def apply_gazebo_link_extensions(self, root: etree._Element, links: dict[str, Link]) -> None:
        """``<gazebo reference="link">`` and robot-level ``<gazebo>`` extensions, kept as the
        SDFormat libsdformat makes of them (see :mod:`.gazebo_extensions`): on the link, on
        each of its collisions and visuals, and (robot level) on the model."""
        gazebo = list(self.children(root, "gazebo"))
        if not gazebo:
            return
        for name, ext in read_link_extensions(gazebo, set(links), self.tag).items():
            link = links[name]
            for node, extra in ((link, ext.link), *((c, ext.collision) for c in link.collisions),
                                *((v, ext.visual) for v in link.visuals)):
                if len(extra):
                    node.extras["sdformat_elements"] = copy.deepcopy(extra)
            parts = {(p.kind, p.name): p for p in (*link.visuals, *link.collisions)}
            for (kind, part_name), extra in ext.named.items():
                part = parts.get((kind, part_name))
                if part is None:
                    self.warning(Code.ELEMENT_INVALID, f"<gazebo reference=\"{name}\"> has a "
                                 f"<{kind} name=\"{part_name}\">, but link [{name}] has no "
                                 f"{kind} of that name; it is ignored.", ext.element,
                                 self.path("link", name))
                    continue
                held = part.extras.setdefault("sdformat_elements", etree.Element(kind))
                held.extend(copy.deepcopy(c) for c in extra)
        robot = read_robot_extension(gazebo, self.robot, self.tag)
        if robot is not None:
            self.robot_extension = robot

    def apply_gazebo_joint_extensions(self, root: etree._Element,
                                      joints: list[_ParsedJoint]) -> None:
        """``<gazebo reference="joint">`` extensions, as libsdformat applies them (see
        :mod:`.gazebo_extensions`)."""
        gazebo = list(self.children(root, "gazebo"))
        if not gazebo:
            return
        extensions = read_joint_extensions(gazebo, {j.name for j in joints}, self.tag)
        for j in joints:
            ext = extensions.get(j.name)
            if ext is None:
                continue
            for name in NUMBER_VALUES:
                if name in ext.values:
                    try:
                        parse_number(ext.values[name])
                    except ValueError as exc:
                        self.error(Code.ELEMENT_INVALID, f"<{name}> of the <gazebo> extension of "
                                   f"joint [{j.name}]: {exc}.", ext.element,
                                   self.path("joint", j.name))
                        del ext.values[name]
            node = j.node
            node.extras["gazebo_extension"] = dict(ext.values)
            node.extras["sdformat_elements"] = ext.sdformat_elements()
            if j.urdf_type == "fixed" and ext.preserve_fixed_joint:
                node.extras["preserve_fixed_joint"] = True
            elif j.urdf_type == "fixed" and ext.fixed_becomes_revolute and j.emit:
                # libsdformat: a revolute joint about z, both limits 0 (backward compatible).
                node.type = "revolute"
                node.axes = [JointAxis(xyz=(0.0, 0.0, 1.0), lower=0.0, upper=0.0,
                                       source=self.loc(ext.element))]

    def xacro_hint(self, root: etree._Element) -> None:
        for el in root.iter():
            namespace, _ = _split_tag(el.tag) if isinstance(el.tag, str) else (None, "")
            if "xacro" in (namespace or ""):
                self.warning(Code.ELEMENT_INVALID, "This file contains xacro elements; URDF "
                             "readers ignore them (run xacro first to expand macros).", el)
                return

    # -- links --------------------------------------------------------------------
    def link(self, el: etree._Element) -> Link | None:
        name = self.name_of(el, "link")
        if not name:
            return None
        link = Link(name=name, source=self.loc(el))
        inertial = self.child(el, "inertial")
        if inertial is not None:
            link.inertial = self.inertial(inertial, name)
        used: dict[str, set[str]] = {"visual": set(), "collision": set()}
        for c in self.children(el):
            kind = self.tag(c)
            if kind not in ("visual", "collision"):
                continue
            part_name = self.part_name(c, kind, name, used[kind])
            pose = self.origin(c)
            geometry = self.geometry(c, f"{kind} [{part_name}] of link [{name}]")
            if kind == "visual":
                visual = Visual(name=part_name, source=self.loc(c), pose=pose, geometry=geometry)
                visual.color = self.visual_color(c)
                visual.parent = link
                link.visuals.append(visual)
            else:
                collision = Collision(name=part_name, source=self.loc(c), pose=pose,
                                      geometry=geometry)
                collision.parent = link
                link.collisions.append(collision)
        return link

    def part_name(self, el: etree._Element, kind: str, link: str, used: set[str]) -> str:
        """A name unique among the link's visuals (or collisions).  URDF names are optional
        but SDFormat needs them: unnamed ones get ``<link>_<kind>``, ``<link>_<kind>_1``..."""
        written = (el.get("name") or "").strip()
        base = written or f"{link}_{kind}"
        name, i = base, 0
        while name in used:
            i += 1
            name = f"{base}_{i}"
        if written and name != written:
            self.warning(Code.DUPLICATE_NAME, f"{kind} with name[{written}] already exists in "
                         f"link [{link}]; renamed to [{name}].", el, self.path("link", link))
        used.add(name)
        return name

    def inertial(self, el: etree._Element, link: str) -> Inertial:
        inertial = Inertial(source=self.loc(el), pose=self.origin(el))
        where = self.path("link", link) + "/inertial"
        mass = self.child(el, "mass")
        if mass is None:
            self.error(Code.ELEMENT_MISSING, f"<inertial> of link [{link}] has no <mass>.", el,
                       where)
        else:
            inertial.mass = self.number(mass, "value", required=True)
            if inertial.mass is not None and inertial.mass < 0:
                self.error(Code.LINK_INERTIA_INVALID, f"Mass of link [{link}] is negative "
                           f"({inertial.mass}).", mass, where)
        tensor = self.child(el, "inertia")
        if tensor is None:
            # urdfdom complains, but libsdformat still converts the file (and keeps the link).
            self.warning(Code.ELEMENT_MISSING, f"<inertial> of link [{link}] has no <inertia>; "
                         "the default tensor is used.", el, where)
        else:
            inertial.written_inertia = True
            # URDF, like SDFormat, stores the tensor entries (ixy = -integral(x y dm)).
            for key in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz"):
                value = self.number(tensor, key, required=True)
                if value is not None:
                    setattr(inertial, key, value)
        return inertial

    def geometry(self, parent: etree._Element, what: str) -> Geometry:
        el = self.child(parent, "geometry")
        if el is None:
            self.error(Code.ELEMENT_MISSING, f"{what} has no <geometry>.", parent)
            return Geometry(source=self.loc(parent))
        shapes = list(self.children(el))
        if not shapes:
            self.error(Code.ELEMENT_MISSING, f"<geometry> of {what} has no shape.", el)
            return Geometry(source=self.loc(el))
        if len(shapes) > 1:
            self.warning(Code.ELEMENT_INVALID, f"<geometry> of {what} has {len(shapes)} shapes; "
                         "only the first is used.", shapes[1])
        shape = shapes[0]
        kind = self.tag(shape)
        geo = Geometry(kind or "empty", {}, self.loc(shape))
        if kind == "box":
            geo.params["size"] = self.floats(shape, "size", 3, required=True,
                                             default=(1.0, 1.0, 1.0))
        elif kind == "cylinder":
            geo.params["radius"] = self.number(shape, "radius", required=True, default=1.0)
            geo.params["length"] = self.number(shape, "length", required=True, default=1.0)
        elif kind == "sphere":
            geo.params["radius"] = self.number(shape, "radius", required=True, default=1.0)
        elif kind == "mesh":
            uri = (shape.get("filename") or "").strip()
            if not uri:
                self.error(Code.ATTRIBUTE_MISSING, f"<mesh> of {what} has no 'filename'.", shape)
            geo.params["uri"] = uri
            geo.params["scale"] = self.floats(shape, "scale", 3, default=(1.0, 1.0, 1.0))
            geo.params["submesh"] = None
            geo.params["center_submesh"] = False
            resolved = self.resolve(uri) if uri else None
            if uri and resolved is None:
                # Not an error: no frame depends on it, and the SDFormat reader does not
                # fail on unresolved meshes either.
                self.warning(Code.URI_LOOKUP, f"Unable to find mesh [{uri}] of {what}.", shape)
            geo.params["resolved_path"] = str(resolved) if resolved else None
        else:
            geo.shape = "empty"
            self.error(Code.ELEMENT_INVALID, f"Unknown URDF geometry <{shape.tag}> in {what}; "
                       "expected box, cylinder, sphere or mesh.", shape)
        return geo

    def resolve(self, uri: str) -> Path | None:
        try:
            found = self.context.resolve_uri(uri, self.base_dir)
        except (OSError, ValueError):  # e.g. a NUL byte in the name
            return None
        return found if found is not None and found.is_file() else None

    # -- materials ----------------------------------------------------------------
    def rgba(self, material: etree._Element) -> tuple[float, float, float, float] | None:
        color = self.child(material, "color")
        if color is None:
            return None
        values = self.floats(color, "rgba", 4, required=True)
        return values if values is None else (values[0], values[1], values[2], values[3])

    def global_material(self, el: etree._Element) -> None:
        name = (el.get("name") or "").strip()
        if not name:
            self.error(Code.ATTRIBUTE_MISSING, "Required attribute 'name' of <material> is "
                       "missing.", el, self.path("material"))
            return
        if name in self.materials:
            self.error(Code.DUPLICATE_NAME, f"material with name[{name}] already exists.", el,
                       self.path("material", name))
            return
        self.materials[name] = self.rgba(el)

    def visual_color(self, visual: etree._Element) -> tuple[float, float, float, float] | None:
        material = self.child(visual, "material")
        if material is None:
            return None
        name = (material.get("name") or "").strip()
        if self.child(material, "color") is not None:
            color = self.rgba(material)  # a bad rgba is reported there; no second warning
            if color is None:
                return None
            if name and name not in self.materials:
                self.materials[name] = color  # urdfdom makes a named local material global
            return color
        if name in self.materials:
            return self.materials[name]
        if name:
            self.warning(Code.ELEMENT_INVALID, f"material [{name}] is not defined; the visual "
                         "has no colour.", material)
        return None

    # -- joints -------------------------------------------------------------------
    def joint(self, el: etree._Element) -> _ParsedJoint | None:
        name = self.name_of(el, "joint")
        if not name:
            return None
        where = self.path("joint", name)
        urdf_type = (el.get("type") or "").strip()
        emit = True
        if not urdf_type:
            self.error(Code.ATTRIBUTE_MISSING, f"Joint [{name}] is missing its 'type' attribute.",
                       el, where)
            emit = False
        elif urdf_type not in JOINT_TYPES:
            self.error(Code.ATTRIBUTE_INVALID, f"Joint [{name}] has unknown type [{urdf_type}]; "
                       f"URDF types are {', '.join(JOINT_TYPES)}.", el, where)
            emit = False
        elif JOINT_TYPES[urdf_type] is None:
            self.warning(Code.ELEMENT_INVALID, f"Joint [{name}] is of type [{urdf_type}], which "
                         "SDFormat does not have; it is left out and its child link is a free "
                         "body placed at the joint origin.", el, where)
            emit = False
        ends: dict[str, tuple[str, etree._Element | None]] = {}
        for tag in ("parent", "child"):
            end = self.child(el, tag)
            link = (end.get("link") or "").strip() if end is not None else ""
            if end is None:
                self.error(Code.ELEMENT_MISSING, f"Joint [{name}] has no <{tag}>.", el, where)
            elif not link:
                self.error(Code.ATTRIBUTE_MISSING, f"<{tag}> of joint [{name}] has no 'link' "
                           "attribute.", end, where)
            ends[tag] = (link, end)
        (parent, parent_el), (child, child_el) = ends["parent"], ends["child"]
        if not parent or not child:
            return None
        node = Joint(name=name, source=self.loc(el), type=JOINT_TYPES.get(urdf_type) or "fixed",
                     parent_name=parent, child_name=child, pose=PoseSpec(source=self.loc(el)),
                     parent_source=self.loc(parent_el), child_source=self.loc(child_el))
        node.extras["urdf_type"] = urdf_type
        if emit and urdf_type in _AXIS_TYPES:
            node.axes.append(self.axis(el, name, urdf_type))
        return _ParsedJoint(node, urdf_type, self.origin(el).value, el, parent_el, child_el, emit)

    def axis(self, el: etree._Element, name: str, urdf_type: str) -> JointAxis:
        """The axis (in the joint frame = the child link frame) and its limits."""
        axis_el = self.child(el, "axis")
        axis = JointAxis(xyz=(1.0, 0.0, 0.0),  # URDF's default axis
                         source=self.loc(axis_el if axis_el is not None else el))
        if axis_el is not None:
            xyz = self.floats(axis_el, "xyz", 3, default=(1.0, 0.0, 0.0))
            assert xyz is not None
            n = math.sqrt(sum(v * v for v in xyz))
            if n == 0.0:
                self.error(Code.ELEMENT_INVALID, f"Axis of joint [{name}] is the zero vector.",
                           axis_el, self.path("joint", name))
            else:
                axis.xyz = (xyz[0] / n, xyz[1] / n, xyz[2] / n)
        limit = self.child(el, "limit")
        if limit is None:
            if urdf_type in _LIMITED_TYPES:
                self.error(Code.ELEMENT_MISSING, f"Joint [{name}] is of type [{urdf_type}] but "
                           "has no <limit>.", el, self.path("joint", name))
            return axis
        if urdf_type in _LIMITED_TYPES:  # continuous joints have no position limits
            axis.lower = self.number(limit, "lower", default=0.0)  # URDF defaults are 0
            axis.upper = self.number(limit, "upper", default=0.0)
        axis.effort = self.number(limit, "effort")
        axis.velocity = self.number(limit, "velocity")
        return axis

    def check_references(self, joint: _ParsedJoint, links: dict[str, Link]) -> bool:
        """Parent and child name known links; reports and returns False otherwise."""
        ok = True
        where = self.path("joint", joint.name)
        if joint.parent not in links:
            self.error(Code.JOINT_PARENT_LINK_INVALID, f"parent link with name[{joint.parent}] "
                       f"specified by joint with name[{joint.name}] not found.", joint.parent_el,
                       where)
            ok = False
        if joint.child == WORLD:
            self.error(Code.JOINT_CHILD_LINK_INVALID, f"Joint with name[{joint.name}] specified "
                       "invalid child link [world].", joint.child_el, where)
            ok = False
        elif joint.child not in links:
            self.error(Code.JOINT_CHILD_LINK_INVALID, f"child link with name[{joint.child}] "
                       f"specified by joint with name[{joint.name}] not found.", joint.child_el,
                       where)
            ok = False
        if ok and joint.parent == joint.child:
            self.error(Code.JOINT_PARENT_SAME_AS_CHILD, f"Joint with name[{joint.name}] must "
                       f"specify different links for parent and child, while [{joint.child}] "
                       "was specified for both.", joint.el, where)
            ok = False
        return ok

    # -- the kinematic tree -------------------------------------------------------
    def kinematic_tree(self, links: dict[str, Link], link_els: dict[str, etree._Element],
                       joints: list[_ParsedJoint]
                       ) -> tuple[str, dict[str, Pose], dict[str, list[_ParsedJoint]]] | None:
        """Check that the joints form one tree; return its root, every link's pose in the
        model frame (root at the origin) and each link's child joints."""
        parent_of: dict[str, _ParsedJoint] = {}
        children: dict[str, list[_ParsedJoint]] = {n: [] for n in links}
        ok = True
        for j in joints:
            first = parent_of.get(j.child)
            if first is not None:
                self.error(Code.JOINT_CHILD_LINK_INVALID, f"link [{j.child}] has two parents: "
                           f"joint [{first.name}] (line {first.el.sourceline}) and joint "
                           f"[{j.name}]; a URDF must be a tree.", j.child_el,
                           self.path("joint", j.name))
                ok = False
                continue
            parent_of[j.child] = j
            children[j.parent].append(j)

        roots = [n for n in links if n not in parent_of]
        # Breadth-first from the roots: no recursion, so deep chains are fine.
        X_ML: dict[str, Pose] = {r: IDENTITY for r in roots}
        queue = deque(roots)
        while queue:
            name = queue.popleft()
            for j in children[name]:
                X_ML[j.child] = X_ML[name] @ j.origin  # URDF: child frame = joint frame
                queue.append(j.child)

        # Every unreached link has a parent, so walking up from it ends in a loop.  `done`
        # keeps the walk linear even for long chains hanging below a loop.
        done: set[str] = set(X_ML)
        for start in links:
            if start in done:
                continue
            path: list[str] = []
            index: dict[str, int] = {}
            cur = start
            while cur not in index and cur not in done:
                index[cur] = len(path)
                path.append(cur)
                cur = parent_of[cur].parent
            done.update(path)
            if cur in index:
                self.report_loop([parent_of[n] for n in path[index[cur]:]])
                ok = False

        if len(roots) > 1:
            extra = roots[1]
            self.error(Code.ELEMENT_INVALID, f"URDF robot [{self.robot}] has {len(roots)} root "
                       f"links [{', '.join(roots)}]; a URDF must have exactly one (connect the "
                       "others with joints).", link_els[extra], self.path("link", extra))
            ok = False
        if not ok or not roots:
            return None
        return roots[0], X_ML, children

    def report_loop(self, cycle: list[_ParsedJoint]) -> None:
        # Report once, at the joint written first, listing the loop in parent->child order.
        cycle = list(reversed(cycle))
        start = min(range(len(cycle)), key=lambda i: cycle[i].el.sourceline or 0)
        cycle = cycle[start:] + cycle[:start]
        # A loop may run through thousands of joints: the message names the first few.
        chain = listed([cycle[0].parent, *(j.child for j in cycle)], most=12, separator=" -> ")
        self.error(Code.ELEMENT_INVALID, f"Kinematic loop through joints "
                   f"[{listed(j.name for j in cycle)}] (links {chain}); a URDF must be a tree.",
                   cycle[0].el, self.path("joint", cycle[0].name))

    # -- the interface model ------------------------------------------------------
    def assemble(self, root_el: etree._Element, tree: etree._ElementTree, links: dict[str, Link],
                 joints: list[_ParsedJoint], root_link: str, X_ML: dict[str, Pose],
                 children: dict[str, list[_ParsedJoint]]) -> Model | None:
        model = Model(name=self.robot, source=self.loc(root_el),
                      pose=PoseSpec(source=self.loc(root_el)))
        canonical = root_link
        if root_link == WORLD:
            # ROS idiom: a "world" root link means "welded to the world".  The world frame
            # is not a link of the model; the first link hanging from it is canonical.
            if not children[WORLD]:
                self.error(Code.MODEL_WITHOUT_LINK, f"URDF robot [{self.robot}] has only the "
                           "link [world]; a model must have at least one link.", root_el,
                           self.path())
                return None
            canonical = children[WORLD][0].child
        for name, link in links.items():
            if name == WORLD:
                continue
            X = X_ML[name]
            link.pose = PoseSpec(X, "", not X.is_identity(), link.source)
            model.add(link)

        taken = set(links)
        skipped: list[str] = []
        for j in joints:
            if not j.emit:
                skipped.append(j.name)
                continue
            joint = j.node
            if joint.name in taken:
                # SDFormat puts links and joints in one namespace; URDF does not.
                new = f"{joint.name}_joint"
                i = 0
                while new in taken:
                    i += 1
                    new = f"{joint.name}_joint_{i}"
                self.warning(Code.DUPLICATE_NAME, f"Joint [{joint.name}] has the name of a link; "
                             f"it is renamed to [{new}] (SDFormat names must be unique in a "
                             "model).", j.el, self.path("joint", joint.name))
                joint.extras["urdf_name"] = joint.name
                joint.name = new
            taken.add(joint.name)
            model.add(joint)

        model.canonical_link = canonical
        # X_LM (interface API): the model frame in the canonical link's frame.
        model.interface_pose_in_canonical = X_ML[canonical].inverse()
        model.extras["urdf_xml"] = tree
        # What neither the core model nor SDFormat holds: other formats' writers report it.
        model.extras["urdf_unconverted"] = self.unconverted(root_el, joints)
        if self.robot_extension is not None:
            model.extras["sdformat_elements"] = self.robot_extension
        model.extras["urdf_version"] = (root_el.get("version") or "").strip()
        if skipped:
            model.extras["urdf_skipped_joints"] = skipped
        return model


# -- entry points -------------------------------------------------------------------
def _parse(path: Path, data: bytes | None, context: LoadContext,
           diagnostics: Diagnostics) -> tuple[Model | None, int]:
    """Read and build; returns the model (None if it cannot be built) and the number of
    errors reported."""
    file = str(path) if str(path) not in ("", ".") else ""
    reader = _UrdfReader(file, context, diagnostics)
    if data is None:
        try:
            data = read_xml_file(path)  # no FIFOs, devices or oversized files
        except OSError as exc:
            reader.error(Code.FILE_READ, f"Unable to read file:{file}: {exc.strerror or exc}",
                         None)
            return None, reader.n_errors
    warnings: list[tuple[str, int]] = []
    try:
        tree = parse_xml_bytes(data, file or None, warnings)
    except XmlError as exc:
        # FILE_READ: libsdformat's code for a file it cannot parse.
        reader.n_errors += 1
        where = f"line {exc.line}, column {exc.column}" if exc.column else f"line {exc.line}"
        name = file or "<string>"
        diagnostics.error(Code.FILE_READ, f"Unable to read file:{name}: XML error at {where}: "
                          f"{exc}", SourceLocation(file, exc.line))
        return None, reader.n_errors
    for message, line in warnings:
        diagnostics.warning(Code.WARNING, message, SourceLocation(file, line))
    # Refused before a model of millions of nodes is built (see snapframe.core.limits).
    count = int(tree.xpath("count(/robot/link | /robot/joint | /robot/link/visual | "
                           "/robot/link/collision)"))
    if count > limits.MAX_ELEMENT_INSTANCES:
        reader.error(Code.RESOURCE_LIMIT, limits.budget_message(
            f"[{file or '<string>'}]", f"{count:,}"), tree.getroot())
        return None, reader.n_errors
    model = reader.robot_model(tree)
    return model, reader.n_errors


def parse_include(nested: NestedInclude, context: LoadContext) -> Model | None:
    """Custom model parser for ``//include`` of a ``.urdf`` file.

    Returns the interface model (named after the robot; the core applies the include's
    name, pose and placement frame), or None with errors in ``context.diagnostics``.
    Declines (None, no diagnostics) for files that are not ``.urdf``.
    """
    path = Path(nested.resolved_file_name)
    if path.suffix.lower() != ".urdf":
        return None
    model, n_errors = _parse(path, None, context, context.diagnostics)
    # Spec 1.5: a parser that reported errors must not return a model.
    return model if n_errors == 0 else None


def read(path: str | Path, context: LoadContext | None = None) -> Document:
    """Read a URDF file as a document whose root is the robot's model, then run the frame
    graph checks.  The model is kept when element-level errors still let it be built (so
    a view can show it next to the errors)."""
    return _read(Path(path), None, context or LoadContext())


def read_string(text: str | bytes, context: LoadContext | None = None, path: str = "") -> Document:
    """Read URDF text; ``path`` names the file for diagnostics and relative mesh names."""
    data = text.encode() if isinstance(text, str) else text
    return _read(Path(path) if path else Path(), data, context or LoadContext())


def _read(path: Path, data: bytes | None, context: LoadContext) -> Document:
    file = str(path) if str(path) not in ("", ".") else ""
    doc = Document(path=file, format="urdf")
    model, _ = _parse(path, data, context, doc.diagnostics)
    doc.root = model
    if model is not None:
        doc.extras["urdf_version"] = model.extras.get("urdf_version", "")
        from snapframe.core.frames import check_document  # local: frames imports the model
        check_document(doc)
    return doc


def _number_text(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text
