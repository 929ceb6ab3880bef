"""Review of the floor plan editor part (issue 12): failing tests for bugs found.

Each test names the bug it shows; they use the bundled example (flat.fpm with its door,
whose start state is half open, 0.8 rad) driven as tests/editor/test_floorplan.py does.
"""
from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from tests.editor.test_floorplan import (HINGE, START, example, open_flat,  # noqa: E402,F401
                                         studio_folder, window)

pytestmark = pytest.mark.usefixtures("no_modal_dialogs")


def test_undoing_add_door_keeps_the_other_door_at_its_start_state(qtbot, window, example):
    """Add door keeps the other doors where the overlay shows them (editor/floorplan.py
    add_door restores them), but undoing that very edit snaps the kitchen door shut: the
    edit resets the joint overlay and nothing shows the start states again, so after
    Add door + Undo the document is as opened but the view is not."""
    from snapframe.editor.floorplan import add_door
    session, view = open_flat(qtbot, window, example)
    assert session.live.joints.position(HINGE) == START
    assert add_door(session, "kitchen_hall") is not None
    assert session.live.joints.position(HINGE) == START      # kept by add_door
    session.undo()
    assert session.document.element("kitchen_hall_door") is None
    assert session.live.joints.position(HINGE) == pytest.approx(START)


def test_a_floor_plan_reloaded_from_disk_shows_its_doors_at_their_start_states(
        qtbot, window, example):
    """Opening the plan shows each door at its start state (main_window add_session ->
    show_door_start_states); reloading it when it changed on disk (desktop/file_watch.py
    reload) shows the same plan with the kitchen door closed: the start states are not
    shown again."""
    session, view = open_flat(qtbot, window, example)
    assert session.live.joints.position(HINGE) == START
    failed = window.desktop.watcher.reload([session.document])
    assert failed == []
    assert session.document.element(HINGE) is not None
    assert session.live.joints.position(HINGE) == pytest.approx(START)


# -- the fixes, further ------------------------------------------------------------------

def test_a_door_the_user_moved_is_left_as_the_edit_leaves_it(qtbot, window, example):
    """Only doors shown at their start states go back there after an edit: the kitchen
    door moved to 1.2 rad, Add door keeps it there (add_door restores what the overlay
    showed), and its undo resets it as any edit resets the overlay: closed, as written."""
    from snapframe.editor.floorplan import add_door
    session, view = open_flat(qtbot, window, example)
    session.live.joints.set_position(HINGE, 1.2)
    assert add_door(session, "kitchen_hall") is not None
    assert session.live.joints.position(HINGE) == pytest.approx(1.2)
    session.undo()
    assert session.live.joints.position(HINGE) == 0.0
    session.redo()                              # the added door is new again: closed
    assert session.live.joints.position("kitchen_hall_door::hinge") == 0.0


def test_a_start_state_beyond_the_limits_shows_at_the_limit_with_a_warning(
        qtbot, window, monkeypatch, studio_folder):
    """The studio door's ajar state set to 2.5 rad, beyond its upper limit of 1.57 rad
    (door-jsonld/object-door.json): the door opens at 1.57 rad, and the diagnostics panel
    lists the warning naming the states file and the joint."""
    import json
    from tests.editor.test_floorplan import open_folder
    states = studio_folder / "doors" / "object-door-states.json"
    document = json.loads(states.read_text())
    for node in document["@graph"]:
        if node.get("@id") == "door:joint-position-ajar":
            node["value"] = 2.5
    states.write_text(json.dumps(document))
    session, view = open_folder(qtbot, window, monkeypatch, studio_folder)
    hinge = "door-instance-1::joint-hinge"
    assert session.live.joints.position(hinge) == pytest.approx(1.57)
    rows = [d for d in window.diagnostics.diagnostics() if "start state" in d.message]
    assert [(d.file, d.element) for d in rows] == [(str(states), "joint-hinge")]
    assert "2.5 rad, beyond its upper limit 1.57 rad" in rows[0].message


def test_a_plan_fixed_on_disk_and_reloaded_shows_its_doors_at_their_start_states(
        qtbot, window, example):
    """flat.fpm opened with a syntax error (nothing to show), then fixed on disk and
    reloaded: the kitchen door is shown half open, as when the plan opens whole."""
    plan = example / "flat.fpm"
    good = plan.read_text()
    plan.write_text(good.replace("Space", "Spaec", 1))
    session = window.open(plan)
    assert session is not None and session.document.root is None
    assert session.document.diagnostics.errors
    plan.write_text(good)
    assert window.desktop.watcher.reload([session.document]) == []
    assert session.live.joints.position(HINGE) == pytest.approx(START)
