"""Checks libsdformat's ``Root::Load`` makes on elements Snapframe's model does not hold.

They need the XML (the model keeps no materials or sensors), so they run in the reader:

* ``//visual/material/script`` without a non-empty ``<uri>`` (``ELEMENT_INVALID``) or
  ``<name>`` (``ELEMENT_MISSING``); a ``<shader type>`` libsdformat does not know
  (``ELEMENT_INVALID``) and a normal-map shader without ``<normal_map>``
  (``ELEMENT_MISSING``) -- ``sdf::Material::Load``;
* a ``//link/sensor`` or ``//joint/sensor`` whose ``type`` is not a sensor type of the
  file's SDFormat version (``ATTRIBUTE_INVALID``) -- ``sdf::Sensor::Load``; ``air_speed``
  is SDFormat 1.10 and later.
* a ``<light>`` (of the world, of a link, or alone in a file, included or not) whose
  ``type`` is not ``point``, ``spot`` or ``directional`` (``ATTRIBUTE_INVALID``, letter
  case counts) -- ``sdf::Light::Load``.

Messages are libsdformat's, with the element named.
"""

from __future__ import annotations

from typing import Iterator

from lxml import etree

from snapframe.core.diagnostics import Code

__all__ = ["element_problems", "sensor_types", "Problem"]

#: (code, message, element)
Problem = tuple[Code, str, etree._Element]

# sdf::Sensor::Load of libsdformat 12 (SDFormat 1.9); aliases included.
_SENSOR_TYPES = frozenset((
    "air_pressure", "altimeter", "camera", "contact", "custom", "depth", "depth_camera",
    "rgbd", "rgbd_camera", "thermal", "thermal_camera", "segmentation", "segmentation_camera",
    "boundingbox", "boundingbox_camera", "wideanglecamera", "wide_angle_camera",
    "force_torque", "navsat", "gps", "gpu_ray", "gpu_lidar", "imu", "logical_camera",
    "magnetometer", "multicamera", "ray", "lidar", "rfid", "rfidtag", "sonar",
    "wireless_receiver", "wireless_transmitter"))
# Sensor types and the SDFormat version that introduced them.
_NEWER_SENSOR_TYPES = {"air_speed": (1, 10)}
_SHADER_TYPES = frozenset(("pixel", "vertex", "normal_map_objectspace", "normal_map_object_space",
                           "normal_map_tangentspace", "normal_map_tangent_space"))


def sensor_types(version: tuple[int, int]) -> frozenset[str]:
    """The sensor ``type`` values a file of SDFormat ``version`` may use."""
    return _SENSOR_TYPES | {t for t, since in _NEWER_SENSOR_TYPES.items() if version >= since}


def _child(el: etree._Element, tag: str) -> etree._Element | None:
    for c in el:
        if c.tag == tag:
            return c
    return None


def _text(el: etree._Element | None) -> str:
    text = (el.text or "").strip() if el is not None else ""
    return "" if text == "__default__" else text


def _material_problems(material: etree._Element) -> Iterator[Problem]:
    script = _child(material, "script")
    if script is not None:
        if not _text(_child(script, "uri")):
            yield (Code.ELEMENT_INVALID, "A <script> element is missing a child <uri> element, "
                   "or the <uri> element is empty.", script)
        if not _text(_child(script, "name")):
            yield (Code.ELEMENT_MISSING, "A <script> element is missing a child <name> element, "
                   "or the <name> element is empty.", script)
    shader = _child(material, "shader")
    if shader is not None:
        kind = (shader.get("type") or "pixel").strip()
        if kind not in _SHADER_TYPES:
            yield (Code.ELEMENT_INVALID, f"The value[{kind}] for a <shader><type> element is "
                   "not supported", shader)
        elif kind.startswith("normal_map") and not _text(_child(shader, "normal_map")):
            yield (Code.ELEMENT_MISSING, "A normal map shader type has been specified, but a "
                   "normal_map has not.", shader)


def _sensor_problem(sensor: etree._Element, allowed: frozenset[str],
                    version: tuple[int, int]) -> Iterator[Problem]:
    kind = (sensor.get("type") or "").strip()
    if kind in allowed:
        return
    since = _NEWER_SENSOR_TYPES.get(kind)
    why = (f" (type [{kind}] is SDFormat {since[0]}.{since[1]}; this file is "
           f"{version[0]}.{version[1]})" if since else
           f" (type [{kind}])" if kind else "")
    yield (Code.ATTRIBUTE_INVALID, "Attempting to load a Sensor, but the provided sensor type "
           f"is missing or invalid{why}.", sensor)


_LIGHT_TYPES = frozenset(("point", "spot", "directional"))


def _light_problem(light: etree._Element) -> Iterator[Problem]:
    kind = light.get("type")
    if kind is not None and kind.strip() and kind.strip() not in _LIGHT_TYPES:
        # An empty or missing type is the spec check's (a required attribute).
        yield (Code.ATTRIBUTE_INVALID, f"Invalid light type with a value of [{kind.strip()}].",
               light)


def _free_form(el: etree._Element) -> bool:
    """Inside a plugin or a custom (namespaced) element: content libsdformat does not load."""
    for a in el.iterancestors():
        tag = a.tag
        if tag == "plugin" or ":" in tag or tag.startswith("{"):
            return True
    return False


def element_problems(sdf: etree._Element, version: tuple[int, int]) -> Iterator[Problem]:
    """The problems above, for everything below ``<sdf>`` that libsdformat loads (plugin
    contents and custom namespaced elements are skipped), in document order."""
    allowed = sensor_types(version)
    for el in sdf.iter("material", "sensor", "light"):
        parent = el.getparent()
        if parent is None:
            continue
        if el.tag == "light":
            if parent.tag in ("sdf", "world", "link") and not _free_form(el):
                yield from _light_problem(el)
        elif el.tag == "material":
            if parent.tag == "visual" and not _free_form(el):
                yield from _material_problems(el)
        elif parent.tag in ("link", "joint") and not _free_form(el):
            yield from _sensor_problem(el, allowed, version)
