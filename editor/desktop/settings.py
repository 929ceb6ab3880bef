"""The user's preferences, kept per user in the window's ``QSettings``.

:class:`Preferences` reads and writes them under ``preferences/`` and says which one
changed (:attr:`Preferences.changed`), so the window applies a change at once.  A value
that cannot be one (a hand-edited settings file, another version's) reads as the default:
a bad settings file never keeps the editor from starting.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6 import QtCore

from .units import ANGLE_UNITS, LENGTH_UNITS

__all__ = ["Preferences", "PREFERENCES", "THEMES", "MIN_AUTOSAVE_SECONDS",
           "MAX_AUTOSAVE_SECONDS", "MIN_TRIAD_PERCENT", "MAX_TRIAD_PERCENT"]

#: Theme choices: id -> label.
THEMES = {"system": "Follow the system", "light": "Light", "dark": "Dark"}
#: Autosave interval bounds in seconds (0 turns autosave off).
MIN_AUTOSAVE_SECONDS, MAX_AUTOSAVE_SECONDS = 1, 600
#: Frame triads from a quarter to four times their automatic size.
MIN_TRIAD_PERCENT, MAX_TRIAD_PERCENT = 25, 400
_GROUP = "preferences"


@dataclass(frozen=True)
class _Preference:
    default: Any
    kind: type
    choices: tuple = ()
    low: float | None = None
    high: float | None = None

    def clean(self, value: Any) -> Any:
        """``value`` as this preference holds it; ValueError when it cannot be."""
        if self.kind is bool:
            if isinstance(value, str):
                if value.lower() in ("true", "1", "yes", "on"):
                    return True
                if value.lower() in ("false", "0", "no", "off"):
                    return False
                raise ValueError(f"not a yes/no value: {value!r}")
            return bool(value)
        if self.kind is int:
            try:
                number = int(float(value))
            except OverflowError:
                raise ValueError(f"not a whole number: {value!r}") from None
            in_range = self.low is None or self.low <= number <= self.high
            if not in_range and number not in self.choices:
                raise ValueError(f"{number} is outside {self.low}..{self.high}")
            return number
        if self.kind is list:
            if value is None or value == "":
                return []
            items = [value] if isinstance(value, str) else list(value)
            return list(dict.fromkeys(str(Path(str(v)).expanduser()) for v in items if str(v)))
        text = str(value)
        if self.choices and text not in self.choices:
            raise ValueError(f"{text!r} is not one of {', '.join(self.choices)}")
        return text


#: Every preference: name -> what it holds.
PREFERENCES: dict[str, _Preference] = {
    "length_unit": _Preference("m", str, tuple(LENGTH_UNITS)),
    "angle_unit": _Preference("deg", str, tuple(ANGLE_UNITS)),
    "theme": _Preference("system", str, tuple(THEMES)),
    "search_paths": _Preference([], list),
    # 0: off (an allowed value outside the range)
    "autosave_seconds": _Preference(5, int, (0,), MIN_AUTOSAVE_SECONDS, MAX_AUTOSAVE_SECONDS),
    "triad_percent": _Preference(100, int, (), MIN_TRIAD_PERCENT, MAX_TRIAD_PERCENT),
    "reload_silently": _Preference(False, bool),
}


class Preferences(QtCore.QObject):
    """Typed access to the preferences in ``settings``.

    ``changed(name)`` after :meth:`set` changed a value (not when it was already that).
    """

    changed = QtCore.Signal(str)

    def __init__(self, settings: QtCore.QSettings, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings

    def get(self, name: str) -> Any:
        """The value of preference ``name`` (its default when unset or unreadable)."""
        spec = PREFERENCES[name]
        raw = self.settings.value(f"{_GROUP}/{name}", None)
        if raw is None:
            return list(spec.default) if spec.kind is list else spec.default
        try:
            return spec.clean(raw)
        except (TypeError, ValueError):
            return list(spec.default) if spec.kind is list else spec.default

    def set(self, name: str, value: Any) -> None:
        """Store ``value`` (ValueError with the reason if preference ``name`` cannot hold
        it) and emit :attr:`changed` if it differs from what was there."""
        spec = PREFERENCES[name]
        clean = spec.clean(value)
        if clean == self.get(name) and self.settings.contains(f"{_GROUP}/{name}"):
            return
        # (an empty list would be read back as None by some QSettings formats)
        self.settings.setValue(f"{_GROUP}/{name}", clean if clean != [] else "")
        self.settings.sync()
        self.changed.emit(name)

    def reset(self) -> None:
        """Every preference back to its default."""
        for name, spec in PREFERENCES.items():
            self.set(name, spec.default)

    # -- typed shortcuts ------------------------------------------------------------
    @property
    def length_unit(self) -> str:
        return self.get("length_unit")

    @property
    def angle_unit(self) -> str:
        return self.get("angle_unit")

    @property
    def theme(self) -> str:
        return self.get("theme")

    @property
    def search_paths(self) -> list[Path]:
        return [Path(p) for p in self.get("search_paths")]

    @property
    def autosave_seconds(self) -> int:
        return self.get("autosave_seconds")

    @property
    def triad_scale(self) -> float:
        return self.get("triad_percent") / 100.0

    @property
    def reload_silently(self) -> bool:
        return self.get("reload_silently")
