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
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from lxml import etree

__all__ = ["JointExtension", "read_joint_extensions", "NUMBER_VALUES"]

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
