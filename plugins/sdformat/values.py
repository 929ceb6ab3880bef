"""Reading SDFormat values: numbers, vectors, colours, booleans and poses.

Numbers follow the XML Schema ``double`` syntax (:func:`snapframe.core.xmlsafe.parse_number`);
what libsdformat reads per value type is kept:

* scalars (``double``, ``float``) accept ``inf``/``-inf``/``nan`` (libsdformat reads them
  with ``std::stod``; joint limits use ``inf``);
* vectors, colours and poses must be finite (libsdformat reads them with a stream, which
  does not accept ``inf``; a pose says so explicitly);
* integers are read as libsdformat 12 reads them (``std::stoi``): the leading digits of
  a number in the syntax above, so ``10.5`` is 10 and ``1e3`` is 1, or hexadecimal after
  ``0x`` (bit masks); an ``int`` must fit 32 bits; a negative ``unsigned int`` is
  refused (the spec's type; libsdformat 12 wraps it around to a huge value);
* booleans are ``true``/``false``/``1``/``0`` in any letter case;
* colour components are between 0 and 1.

:func:`value_problem` says what is wrong with a text for a value type (None when it is
fine), in one sentence shared by every check, so a value is reported once.
"""

from __future__ import annotations

import math
import re

from snapframe.core.pose import IDENTITY, Pose
from snapframe.core.xmlsafe import (parse_number, parse_numbers, unusual_characters, xml_split,
                                   xml_strip)

__all__ = ["parse_pose_text", "value_problem", "parse_bool", "NUMERIC_TYPES", "SCALAR_TYPES"]

#: Vector-like types and how many numbers they hold (None: 3 or 4 for colours).
_VECTOR_SIZES = {"vector3": 3, "vector2d": 2, "quaternion": 4, "color": None}
# Decimal, or hexadecimal with 0x (libsdformat reads integers in base 16 after "0x"; real
# files write bit masks so).
_INTEGER = re.compile(r"[+-]?(?:[0-9]+|0[xX][0-9a-fA-F]+)")
_HEXADECIMAL = re.compile(r"[+-]?0[xX][0-9a-fA-F]+")
# What std::stoi reads of a decimal number: its sign and leading digits.
_LEADING_INTEGER = re.compile(r"[+-]?[0-9]+")
_INT32 = (-2 ** 31, 2 ** 31 - 1)
SCALAR_TYPES = ("double", "float", "int", "unsigned int", "uint64_t", "angle")
NUMERIC_TYPES = SCALAR_TYPES + ("vector3", "vector2d", "vector2i", "quaternion", "color", "pose")


def parse_bool(text: str) -> bool | None:
    """``true``/``1`` -> True, ``false``/``0`` -> False (any case, XML whitespace around
    ignored), else None."""
    value = xml_strip(text).lower()
    if value in ("1", "true"):
        return True
    if value in ("0", "false"):
        return False
    return None


def scalar_value(value_type: str, text: str) -> float:
    """The number a scalar value stands for; raises ``ValueError`` with the reason."""
    token = xml_strip(text)
    if value_type in ("int", "uint64_t", "unsigned int"):
        return float(_integer_value(value_type, token))
    if value_type == "bool":
        b = parse_bool(token)
        if b is None:
            raise ValueError(f"'{token}' is not a boolean (true, false, 1 or 0)")
        return float(b)
    if len(xml_split(token)) != 1:
        raise ValueError(f"'{token}' is not one number")
    return parse_number(token)


def _integer_value(value_type: str, token: str) -> int:
    """An integer value as libsdformat 12 reads it (see the module docstring)."""
    kind = "an integer" if value_type == "int" else "a non-negative integer"
    if _HEXADECIMAL.fullmatch(token):
        value = int(token, 16)
    else:
        try:
            parse_number(token)  # a number in the syntax every value follows
        except ValueError:
            raise ValueError(f"'{token}' is not {kind}") from None
        leading = _LEADING_INTEGER.match(token)  # "10.5" -> 10, as std::stoi reads it
        if leading is None:
            raise ValueError(f"'{token}' is not {kind}")  # ".5", "inf": std::stoi fails
        value = int(leading.group())
    if value_type != "int" and value < 0:
        raise ValueError(f"'{token}' is not {kind}")
    if value_type == "int" and not _INT32[0] <= value <= _INT32[1]:
        raise ValueError(f"'{token}' is out of the range of an int")  # std::stoi throws
    return value


def value_problem(value_type: str, text: str, attributes: dict | None = None) -> str | None:
    """Why ``text`` is not a valid value of ``value_type`` (None if it is, or if the type
    has nothing to check).  ``attributes`` are the element's (a pose reads ``degrees``
    and ``rotation_format``)."""
    stripped = xml_strip(text)
    if not stripped:
        return None  # an empty value means the default (libsdformat)
    try:
        if value_type in SCALAR_TYPES or value_type == "bool":
            scalar_value(value_type, stripped)
        elif value_type == "pose":
            attributes = attributes or {}
            _pose_numbers(stripped, attributes.get("degrees"), attributes.get("rotation_format"))
        elif value_type == "vector2i":
            parts = xml_split(stripped)
            if len(parts) != 2 or not all(_INTEGER.fullmatch(p) for p in parts):
                raise ValueError(f"'{stripped}' is not 2 integers")
        elif value_type in _VECTOR_SIZES:
            values = parse_numbers(stripped)
            size = _VECTOR_SIZES[value_type]
            if size is None:
                if len(values) not in (3, 4):
                    raise ValueError(f"a colour needs 3 or 4 numbers, found {len(values)}")
                if not all(0.0 <= v <= 1.0 for v in values):
                    raise ValueError("colour components must be between 0 and 1")
            elif len(values) != size:
                raise ValueError(f"{size} numbers are needed, found {len(values)}")
            if not all(math.isfinite(v) for v in values):
                raise ValueError("the values must be finite")
    except ValueError as exc:
        return str(exc)
    return None


def parse_pose_text(text: str, degrees: str | None = None,
                    rotation_format: str | None = None) -> Pose:
    """Parse ``<pose>`` text: ``x y z roll pitch yaw`` (or ``x y z qx qy qz qw`` with
    ``rotation_format="quat_xyzw"``); ``degrees="true"`` reads the angles in degrees.
    Raises ``ValueError`` with the reason."""
    values, quaternion, in_degrees = _pose_numbers(text, degrees, rotation_format)
    if not values:
        return IDENTITY
    if quaternion:
        x, y, z, qx, qy, qz, qw = values
        return Pose.from_xyz_quat((x, y, z), (qw, qx, qy, qz))
    x, y, z, r, p, w = values
    if in_degrees:
        r, p, w = math.radians(r), math.radians(p), math.radians(w)
    return Pose.from_xyz_rpy(x, y, z, r, p, w)


def _pose_numbers(text: str, degrees: str | None, rotation_format: str | None
                  ) -> tuple[list[float], bool, bool]:
    """The numbers of a pose text (empty: the identity), whether they end in a quaternion,
    and whether the angles are degrees; ``ValueError`` with the reason if they cannot be a
    pose."""
    parts = xml_split(text)
    if not parts:
        return [], False, False
    try:
        values = [parse_number(p) for p in parts]
    except ValueError:
        raise ValueError(f"'{xml_strip(text)}' is not a list of numbers"
                         f"{unusual_characters(text)}") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"'{xml_strip(text)}' has a non-finite value (pose values must be "
                         "finite)")
    fmt = (rotation_format or "euler_rpy").strip()
    in_degrees = (degrees or "false").strip().lower() in ("true", "1")
    if fmt == "quat_xyzw":
        if len(values) != 7:
            raise ValueError(f"quat_xyzw needs 7 numbers, found {len(values)}")
        if in_degrees:
            raise ValueError("degrees='true' cannot be used with rotation_format='quat_xyzw'")
        if values[3] == values[4] == values[5] == values[6] == 0.0:
            raise ValueError("the quaternion is zero")
        return values, True, False
    if fmt != "euler_rpy":
        raise ValueError(f"unknown rotation_format '{fmt}'")
    if len(values) != 6:
        raise ValueError(f"expected 6 numbers (x y z roll pitch yaw), found {len(values)}")
    return values, False, in_degrees
