"""The preferences store: defaults, checked values, what a settings file holds, units."""

from __future__ import annotations

import math

import pytest
from PySide6 import QtCore

from snapframe.editor.desktop.settings import PREFERENCES, Preferences
from snapframe.editor.desktop.units import angle_scale, length_decimals, length_scale


@pytest.fixture
def ini(tmp_path):
    return str(tmp_path / "settings.ini")


def store(ini: str) -> Preferences:
    return Preferences(QtCore.QSettings(ini, QtCore.QSettings.Format.IniFormat))


def test_unset_preferences_read_as_their_defaults(qapp, ini):
    prefs = store(ini)
    assert prefs.length_unit == "m" and prefs.angle_unit == "deg"
    assert prefs.theme == "system" and prefs.search_paths == []
    assert prefs.autosave_seconds == 5 and prefs.triad_scale == 1.0
    assert prefs.reload_silently is False


def test_values_persist_in_the_settings_file(qapp, ini, tmp_path):
    prefs = store(ini)
    changed: list[str] = []
    prefs.changed.connect(changed.append)
    a, b = tmp_path / "a", tmp_path / "b"
    for name, value in (("length_unit", "mm"), ("angle_unit", "rad"), ("theme", "dark"),
                        ("search_paths", [str(a)]), ("autosave_seconds", 30),
                        ("triad_percent", 250), ("reload_silently", True)):
        prefs.set(name, value)
    prefs.set("length_unit", "mm")                 # the same again: no change
    assert changed == ["length_unit", "angle_unit", "theme", "search_paths",
                       "autosave_seconds", "triad_percent", "reload_silently"]
    again = store(ini)                              # another process, the same file
    assert again.length_unit == "mm" and again.angle_unit == "rad" and again.theme == "dark"
    assert again.search_paths == [a] and again.autosave_seconds == 30
    assert again.triad_scale == 2.5 and again.reload_silently is True
    prefs.set("search_paths", [str(a), str(b), str(a)])   # order kept, no duplicate
    assert store(ini).search_paths == [a, b]
    prefs.set("search_paths", [])
    assert store(ini).search_paths == []


@pytest.mark.parametrize("name, value", [("length_unit", "inch"), ("angle_unit", "grad"),
                                         ("theme", "purple"), ("autosave_seconds", -1),
                                         ("autosave_seconds", 100000), ("triad_percent", 5),
                                         ("triad_percent", "lots"),
                                         ("autosave_seconds", float("inf"))])
def test_values_a_preference_cannot_hold_are_refused(qapp, ini, name, value):
    prefs = store(ini)
    with pytest.raises(ValueError):
        prefs.set(name, value)
    assert prefs.get(name) == PREFERENCES[name].default


def test_a_hand_edited_settings_file_never_stops_the_editor(qapp, tmp_path):
    path = tmp_path / "broken.ini"
    path.write_text("[preferences]\nlength_unit=furlong\nautosave_seconds=soon\n"
                    "triad_percent=1e309\nreload_silently=perhaps\ntheme=\n")
    prefs = store(str(path))
    assert prefs.length_unit == "m" and prefs.autosave_seconds == 5
    assert prefs.triad_scale == 1.0 and prefs.reload_silently is False
    assert prefs.theme == "system"


def test_autosave_zero_means_off(qapp, ini):
    prefs = store(ini)
    prefs.set("autosave_seconds", 0)
    assert prefs.autosave_seconds == 0


def test_unit_tables():
    assert length_scale("m") == 1.0 and length_scale("mm") == 1000.0
    assert math.isclose(angle_scale("deg") * math.pi, 180.0) and angle_scale("rad") == 1.0
    # a micrometre either way
    assert 10.0 ** -length_decimals("m") == pytest.approx(1e-6)
    assert 10.0 ** -length_decimals("mm") / length_scale("mm") == pytest.approx(1e-6)
    with pytest.raises(ValueError):
        length_scale("ft")
