"""Display units of the editor's number fields.

The core keeps SI values (metres, radians) everywhere; only the fields the user reads and
types in convert.  No Qt here: the inspector and the tests share these tables.
"""

from __future__ import annotations

import math

__all__ = ["LENGTH_UNITS", "ANGLE_UNITS", "length_scale", "angle_scale", "length_decimals",
           "length_step", "angle_step", "angle_decimals", "unit_symbol"]

#: Length units offered: id -> label.
LENGTH_UNITS = {"m": "metres (m)", "mm": "millimetres (mm)"}
#: Angle units offered: id -> label.
ANGLE_UNITS = {"deg": "degrees (°)", "rad": "radians (rad)"}

_LENGTH_SCALE = {"m": 1.0, "mm": 1000.0}
#: Digits after the point: a micrometre either way.
_LENGTH_DECIMALS = {"m": 6, "mm": 3}
#: What an arrow key adds: a centimetre, as the fields always did, or a millimetre.
_LENGTH_STEP = {"m": 0.01, "mm": 1.0}
_ANGLE_SCALE = {"rad": 1.0, "deg": 180.0 / math.pi}
#: What an arrow key adds to an angle: a degree, or a hundredth of a radian (0.57°).
_ANGLE_STEP = {"deg": 1.0, "rad": 0.01}
#: Digits after the point where an angle is shown briefly (the Joints panel): a tenth of
#: a degree, or a thousandth of a radian.
_ANGLE_DECIMALS = {"deg": 1, "rad": 3}
#: How a value's unit is written after it.
_SYMBOL = {"m": "m", "mm": "mm", "deg": "°", "rad": "rad"}


def length_scale(unit: str) -> float:
    """Shown value per metre (``mm``: 1000); ValueError for an unknown unit."""
    try:
        return _LENGTH_SCALE[unit]
    except KeyError:
        raise ValueError(f"unknown length unit {unit!r} (known: m, mm)") from None


def angle_scale(unit: str) -> float:
    """Shown value per radian (``deg``: 180/pi); ValueError for an unknown unit."""
    try:
        return _ANGLE_SCALE[unit]
    except KeyError:
        raise ValueError(f"unknown angle unit {unit!r} (known: deg, rad)") from None


def length_decimals(unit: str) -> int:
    length_scale(unit)
    return _LENGTH_DECIMALS[unit]


def length_step(unit: str) -> float:
    length_scale(unit)
    return _LENGTH_STEP[unit]


def angle_step(unit: str) -> float:
    """What an arrow key adds to an angle shown in ``unit``."""
    angle_scale(unit)
    return _ANGLE_STEP[unit]


def angle_decimals(unit: str) -> int:
    """Digits after the point of a briefly shown angle in ``unit``."""
    angle_scale(unit)
    return _ANGLE_DECIMALS[unit]


def unit_symbol(unit: str) -> str:
    """The symbol written after a value in ``unit`` (``°`` for degrees)."""
    try:
        return _SYMBOL[unit]
    except KeyError:
        raise ValueError(f"unknown unit {unit!r}") from None
