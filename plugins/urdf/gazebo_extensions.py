"""URDF ``<gazebo reference="JOINT">`` extensions, applied as libsdformat's URDF parser does.

libsdformat (``parser_urdf.cc``) reads these children of a ``<gazebo>`` element that
names a joint and writes them into the SDFormat joint it makes:

=========================== ======================================================
``provideFeedback``          ``//joint/physics/provide_feedback`` and
                             ``//joint/physics/ode/provide_feedback``
``implicitSpringDamper``     ``//joint/physics/ode/implicit_spring_damper`` (and the
(``cfmDamping``, deprecated) transitional ``cfm_damping``)
``stopCfm``, ``stopErp``     ``//joint/physics/ode/limit/cfm``, ``.../erp``
``fudgeFactor``              ``//joint/physics/ode/fudge_factor``
``springReference``,         ``//joint/axis/dynamics/spring_reference``,
``springStiffness``          ``.../spring_stiffness``
``preserveFixedJoint``       the fixed joint is kept (not lumped into its parent)
``disableFixedJointLumping`` the fixed joint becomes a ``revolute`` joint with both
                             limits 0 (unless ``preserveFixedJoint`` is also set)
anything else                copied into the joint as SDFormat (a ``<sensor>``, say)
=========================== ======================================================

Booleans are true for ``true``, ``yes`` or ``1`` (any case); a value is the element's
text or its ``value`` attribute.  Snapframe never lumps fixed joints (every URDF link
stays a link that other files can refer to), so ``preserveFixedJoint`` only records the
request.  The joint keeps what it got in ``joint.extras``:

* ``"gazebo_extension"``: ``{name: value}`` as written;
* ``"sdformat_elements"``: a ``<joint>`` element holding the SDFormat children the
  extension adds, for a writer to merge into the joint it writes.

Link and robot extensions (``<gazebo reference="LINK">``, ``<gazebo>``) are kept the same
way, as the SDFormat libsdformat makes of them (:func:`read_link_extensions`,
:func:`read_robot_extension`): on the link (``<gravity>``/``turnGravityOff``,
``selfCollide``, ``dampingFactor``, and sensors, lights and anything else as they are), on
each of its collisions (``mu1``, ``mu2``, ``fdir1``, ``kp``, ``kd``, ``maxVel``,
``minDepth``, ``maxContacts``, ``laserRetro``, an unnamed ``<collision>`` blob), on each of
its visuals (``<material>`` as a Gazebo material script, an unnamed ``<visual>`` blob) and,
named ``<visual name>``/``<collision name>`` blobs, on the part of that name; robot-level
ones on the model (``<static>``, plugins).  The URDF writer writes SDFormat content back
into these extensions, so a document survives SDFormat -> URDF -> SDFormat.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from lxml import etree

__all__ = ["JointExtension", "LinkExtension", "read_joint_extensions", "read_link_extensions",
           "read_robot_extension", "add_joint_dynamics", "NUMBER_VALUES"]

_BOOLEAN = ("provideFeedback", "implicitSpringDamper", "cfmDamping", "preserveFixedJoint",
            "disableFixedJointLumping")
#: Extension values that are numbers.
NUMBER_VALUES = ("stopCfm", "stopErp", "fudgeFactor", "springReference", "springStiffness")
# Extension children libsdformat reads for links or collisions, not joints.
_LINK_ONLY = ("material", "static", "turnGravityOff", "gravity", "dampingFactor", "maxVel",
              "minDepth", "mu1", "mu2", "fdir1", "kp", "kd", "selfCollide", "maxContacts",
              "laserRetro", "visual", "collision", "canonicalBody", "enable_wind")


def _value(el: etree._Element) -> str:
    text = (el.text or "").strip()
    return text if text else (el.get("value") or "").strip()


def _true(value: str) -> bool:
    return value.lower() in ("true", "yes", "1")


@dataclass
class JointExtension:
    """What the ``<gazebo reference>`` elements of one joint say (later ones win)."""

    values: dict[str, str] = field(default_factory=dict)
    #: Children libsdformat copies into the joint as they are.
    blobs: list[etree._Element] = field(default_factory=list)
    #: Where it was written (the first ``<gazebo>`` element), for diagnostics.
    element: etree._Element | None = None

    def flag(self, name: str) -> bool | None:
        return _true(self.values[name]) if name in self.values else None

    @property
    def preserve_fixed_joint(self) -> bool:
        return bool(self.flag("preserveFixedJoint"))

    @property
    def fixed_becomes_revolute(self) -> bool:
        """``disableFixedJointLumping`` without ``preserveFixedJoint`` (which wins)."""
        return bool(self.flag("disableFixedJointLumping")) and not self.preserve_fixed_joint

    def sdformat_elements(self) -> etree._Element:
        """A ``<joint>`` holding the SDFormat children this extension adds."""
        joint = etree.Element("joint")
        physics = etree.Element("physics")
        ode = etree.Element("ode")
        limit = etree.Element("limit")
        dynamics = etree.Element("dynamics")

        def add(parent: etree._Element, tag: str, text: str) -> None:
            etree.SubElement(parent, tag).text = text

        v = self.values
        if "stopCfm" in v:
            add(limit, "cfm", v["stopCfm"])
        if "stopErp" in v:
            add(limit, "erp", v["stopErp"])
        if "springReference" in v:
            add(dynamics, "spring_reference", v["springReference"])
        if "springStiffness" in v:
            add(dynamics, "spring_stiffness", v["springStiffness"])
        feedback = self.flag("provideFeedback")
        if feedback is not None:
            add(physics, "provide_feedback", str(feedback).lower())
            add(ode, "provide_feedback", str(feedback).lower())
        damper = self.flag("implicitSpringDamper")
        if damper is None:
            damper = self.flag("cfmDamping")
        if damper is not None:
            add(ode, "implicit_spring_damper", str(damper).lower())
            add(ode, "cfm_damping", str(damper).lower())
        if "fudgeFactor" in v:
            add(ode, "fudge_factor", v["fudgeFactor"])
        if len(limit):
            ode.append(limit)
        if len(ode):
            physics.append(ode)
        if len(dynamics):
            axis = etree.SubElement(joint, "axis")
            axis.append(dynamics)
        if len(physics):
            joint.append(physics)
        for blob in self.blobs:
            joint.append(copy.deepcopy(blob))
        return joint


def read_joint_extensions(gazebo_elements: list[etree._Element], joint_names: set[str],
                          tag_of) -> dict[str, JointExtension]:
    """The extensions of every joint in ``joint_names`` that a ``<gazebo reference>``
    names.  ``tag_of(el)`` is the URDF local tag of a child (None for foreign ones)."""
    out: dict[str, JointExtension] = {}
    for gazebo in gazebo_elements:
        reference = (gazebo.get("reference") or "").strip()
        if reference not in joint_names:
            continue
        ext = out.setdefault(reference, JointExtension(element=gazebo))
        for child in gazebo:
            tag = tag_of(child)
            if tag is None:
                continue
            if tag in _BOOLEAN or tag in NUMBER_VALUES:
                ext.values[tag] = _value(child)
            elif tag not in _LINK_ONLY:
                ext.blobs.append(child)
    return out


# -- links and the robot (model) -------------------------------------------------------------
#: Link extension values and where libsdformat's URDF parser puts them in each collision
#: of the link (``InsertSDFExtensionCollision``).
_COLLISION_VALUES = {"mu1": "surface/friction/ode/mu", "mu2": "surface/friction/ode/mu2",
                     "fdir1": "surface/friction/ode/fdir1", "kp": "surface/contact/ode/kp",
                     "kd": "surface/contact/ode/kd", "maxVel": "surface/contact/ode/max_vel",
                     "minDepth": "surface/contact/ode/min_depth",
                     "maxContacts": "max_contacts", "laserRetro": "laser_retro"}
#: Joint-only extension values: libsdformat ignores them under a link reference.
_JOINT_ONLY = frozenset(_BOOLEAN) | frozenset(NUMBER_VALUES)
#: The script file of Gazebo's named materials (``<material>Gazebo/Red</material>``).
GAZEBO_MATERIAL_SCRIPT = "file://media/materials/scripts/gazebo.material"


@dataclass
class LinkExtension:
    """What the ``<gazebo reference="LINK">`` elements of one link add, as SDFormat: the
    children of the ``<link>``, and of each of its ``<collision>`` and ``<visual>``."""

    link: etree._Element = field(default_factory=lambda: etree.Element("link"))
    collision: etree._Element = field(default_factory=lambda: etree.Element("collision"))
    visual: etree._Element = field(default_factory=lambda: etree.Element("visual"))
    #: ``<visual name>`` / ``<collision name>`` blobs: for the one part of that name.
    named: dict[tuple[str, str], etree._Element] = field(default_factory=dict)
    element: etree._Element | None = None


def _set_path(root: etree._Element, path: str, text: str) -> None:
    """Set the text of ``root/path`` (each step made when missing)."""
    el = root
    for tag in path.split("/"):
        found = el.find(tag)
        el = found if found is not None else etree.SubElement(el, tag)
    el.text = text


def read_link_extensions(gazebo_elements: list[etree._Element], link_names: set[str],
                         tag_of) -> dict[str, LinkExtension]:
    """The SDFormat each link named by a ``<gazebo reference>`` gets, as libsdformat's URDF
    parser makes it: gravity, self-collision, velocity decay, the collisions' surface
    values, the visuals' Gazebo material; anything else (sensors, lights, ...) is copied
    into the link as it is."""
    out: dict[str, LinkExtension] = {}
    for gazebo in gazebo_elements:
        reference = (gazebo.get("reference") or "").strip()
        if reference not in link_names:
            continue
        ext = out.setdefault(reference, LinkExtension(element=gazebo))
        for child in gazebo:
            tag = tag_of(child)
            if tag is None or tag in _JOINT_ONLY or tag in ("static", "canonicalBody"):
                continue   # what libsdformat does not apply to a link either
            value = _value(child)
            if tag in _COLLISION_VALUES:
                _set_path(ext.collision, _COLLISION_VALUES[tag], value)
            elif tag == "turnGravityOff":
                _set_path(ext.link, "gravity", "false" if _true(value) else "true")
            elif tag == "gravity" and not len(child):
                _set_path(ext.link, "gravity", "true" if _true(value) else "false")
            elif tag == "selfCollide":
                _set_path(ext.link, "self_collide", "true" if _true(value) else "false")
            elif tag == "dampingFactor":
                _set_path(ext.link, "velocity_decay/linear", value)
                _set_path(ext.link, "velocity_decay/angular", value)
            elif tag == "material" and not len(child):
                _set_path(ext.visual, "material/script/uri", GAZEBO_MATERIAL_SCRIPT)
                _set_path(ext.visual, "material/script/name", value)
            elif tag in ("visual", "collision"):
                # unnamed: for every visual (collision) of the link; named: for that one
                name = child.get("name")
                target = (ext.visual if tag == "visual" else ext.collision) if name is None \
                    else ext.named.setdefault((tag, name), etree.Element(tag))
                for c in child:
                    if isinstance(c.tag, str):
                        target.append(copy.deepcopy(c))
            else:
                ext.link.append(copy.deepcopy(child))
    return out


def read_robot_extension(gazebo_elements: list[etree._Element], robot: str,
                         tag_of) -> etree._Element | None:
    """The ``<model>`` children the robot-level ``<gazebo>`` elements (no reference, or the
    robot's name) add: ``<static>``, plugins and anything else, copied as they are."""
    model = etree.Element("model")
    for gazebo in gazebo_elements:
        reference = (gazebo.get("reference") or "").strip()
        if reference and reference != robot:
            continue
        for child in gazebo:
            tag = tag_of(child)
            if tag is None:
                continue
            if tag == "static" and not len(child):
                _set_path(model, "static", "true" if _true(_value(child)) else "false")
            else:
                model.append(copy.deepcopy(child))
    return model if len(model) else None


def add_joint_dynamics(sdformat: etree._Element | None, damping: float | None,
                       friction: float | None, number_text) -> etree._Element | None:
    """``<joint><axis><dynamics>`` damping and friction of a URDF ``<dynamics>`` added to a
    joint's SDFormat elements (as libsdformat converts them); returns the element."""
    if damping is None and friction is None:
        return sdformat
    joint = sdformat if sdformat is not None else etree.Element("joint")
    for tag, value in (("damping", damping), ("friction", friction)):
        if value is not None:
            _set_path(joint, f"axis/dynamics/{tag}", number_text(value))
    return joint
