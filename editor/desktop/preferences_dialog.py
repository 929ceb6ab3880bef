"""Edit ▸ Preferences: units, theme, model search paths, autosave, triads, reloading.

Every change is stored and applied at once (there is no Apply step): the window listens
to :attr:`Preferences.changed`.  A number typed in a spin box is taken when it is
confirmed (Enter, leaving the box) or stepped, not at every keystroke: a triad size
rebuilds the scene.  *Restore Defaults* puts every preference back.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtWidgets

from .settings import (MAX_AUTOSAVE_SECONDS, MAX_TRIAD_PERCENT, MIN_TRIAD_PERCENT, THEMES,
                       Preferences)
from .units import ANGLE_UNITS, LENGTH_UNITS

__all__ = ["PreferencesDialog"]


class PreferencesDialog(QtWidgets.QDialog):
    """The preferences of ``prefs``, each widget an attribute (``length_unit``,
    ``angle_unit``, ``theme``, ``search_paths``, ``path_edit``, ``add_path_button``,
    ``remove_path_button``, ``autosave_seconds``, ``triad_percent``, ``reload_silently``)
    so that tests drive them as a user does."""

    def __init__(self, prefs: Preferences, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.prefs = prefs
        self.setWindowTitle("Preferences")
        self.setObjectName("preferencesDialog")
        self._filling = False
        form = QtWidgets.QFormLayout()
        self.length_unit = self._combo(LENGTH_UNITS, "length_unit")
        self.angle_unit = self._combo(ANGLE_UNITS, "angle_unit")
        self.theme = self._combo(THEMES, "theme")
        form.addRow("&Lengths in", self.length_unit)
        form.addRow("&Angles in", self.angle_unit)
        form.addRow("&Theme", self.theme)

        self.search_paths = QtWidgets.QListWidget(self)
        self.search_paths.setToolTip("Folders searched for model:// and relative includes, "
                                     "before SDF_PATH and GZ_SIM_RESOURCE_PATH; used when a "
                                     "file is opened")
        self.search_paths.setMinimumHeight(90)
        self.path_edit = QtWidgets.QLineEdit(self)
        self.path_edit.setPlaceholderText("a folder of models")
        self.path_edit.returnPressed.connect(self.add_typed_path)
        self.add_path_button = QtWidgets.QPushButton("&Add", self)
        self.add_path_button.clicked.connect(self.add_typed_path)
        self.browse_button = QtWidgets.QPushButton("&Browse…", self)
        self.browse_button.clicked.connect(self._browse)
        self.remove_path_button = QtWidgets.QPushButton("&Remove", self)
        self.remove_path_button.clicked.connect(self.remove_selected_path)
        self.path_error = QtWidgets.QLabel(self)
        self.path_error.setStyleSheet("color: #d9433a;")
        self.path_error.setWordWrap(True)
        self.path_error.hide()
        adding = QtWidgets.QHBoxLayout()
        adding.addWidget(self.path_edit, 1)
        adding.addWidget(self.add_path_button)
        adding.addWidget(self.browse_button)
        adding.addWidget(self.remove_path_button)
        paths = QtWidgets.QVBoxLayout()
        paths.addWidget(self.search_paths)
        paths.addLayout(adding)
        paths.addWidget(self.path_error)
        # (a row of a layout gets a label with no buddy, which shows the "&" as it is:
        # the buddy set, Alt+P goes to the list; Alt+S is Autosave's)
        paths_label = QtWidgets.QLabel("Model search &paths", self)
        paths_label.setBuddy(self.search_paths)
        form.addRow(paths_label, paths)

        self.autosave_seconds = QtWidgets.QSpinBox(self)
        self.autosave_seconds.setRange(0, MAX_AUTOSAVE_SECONDS)
        self.autosave_seconds.setSuffix(" s")
        self.autosave_seconds.setSpecialValueText("off")
        self.autosave_seconds.setKeyboardTracking(False)   # "300" is not 3, then 30
        self.autosave_seconds.setToolTip("A recovery copy of each document with unsaved "
                                         "changes this long after a change (0: off)")
        self.autosave_seconds.valueChanged.connect(
            lambda v: self._store("autosave_seconds", v))
        form.addRow("Auto&save after", self.autosave_seconds)

        self.triad_percent = QtWidgets.QSpinBox(self)
        self.triad_percent.setRange(MIN_TRIAD_PERCENT, MAX_TRIAD_PERCENT)
        self.triad_percent.setSingleStep(25)
        self.triad_percent.setSuffix(" %")
        self.triad_percent.setKeyboardTracking(False)
        self.triad_percent.setToolTip("Frame triads in the 3D view, relative to the size "
                                      "chosen for the scene")
        self.triad_percent.valueChanged.connect(lambda v: self._store("triad_percent", v))
        form.addRow("T&riad size", self.triad_percent)

        self.reload_silently = QtWidgets.QCheckBox(
            "Reload files changed on disk &without asking when they have no unsaved "
            "changes", self)
        self.reload_silently.toggled.connect(lambda on: self._store("reload_silently", on))
        form.addRow(self.reload_silently)

        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Close
            | QtWidgets.QDialogButtonBox.StandardButton.RestoreDefaults, self)
        buttons.rejected.connect(self.close)
        self.close_button = buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self.close)
        self.defaults_button = buttons.button(
            QtWidgets.QDialogButtonBox.StandardButton.RestoreDefaults)
        self.defaults_button.clicked.connect(self.restore_defaults)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.fill()
        prefs.changed.connect(self._on_changed)

    def _combo(self, choices: dict[str, str], name: str) -> QtWidgets.QComboBox:
        combo = QtWidgets.QComboBox(self)
        for value, label in choices.items():
            combo.addItem(label, value)
        combo.currentIndexChanged.connect(
            lambda i, c=combo, n=name: self._store(n, c.itemData(i)))
        return combo

    # -- showing ------------------------------------------------------------------------
    def fill(self) -> None:
        """Show the stored preferences."""
        self._filling = True
        try:
            for combo, name in ((self.length_unit, "length_unit"),
                                (self.angle_unit, "angle_unit"), (self.theme, "theme")):
                combo.setCurrentIndex(max(combo.findData(self.prefs.get(name)), 0))
            self.search_paths.clear()
            self.search_paths.addItems(self.prefs.get("search_paths"))
            self.autosave_seconds.setValue(self.prefs.autosave_seconds)
            self.triad_percent.setValue(self.prefs.get("triad_percent"))
            self.reload_silently.setChecked(self.prefs.reload_silently)
        finally:
            self._filling = False

    def _on_changed(self, _name: str) -> None:
        if not self._filling:
            self.fill()

    # -- editing -----------------------------------------------------------------------
    def _store(self, name: str, value) -> None:
        if self._filling:
            return
        self.prefs.set(name, value)

    def add_path(self, folder: str) -> bool:
        """Add a search path (a folder that exists); False, with the reason shown, if not."""
        folder = folder.strip()
        if not folder:
            return False
        path = Path(folder).expanduser()
        if not path.is_dir():
            self.path_error.setText(f"{folder} is not a folder")
            self.path_error.show()
            return False
        self.path_error.hide()
        current = self.prefs.get("search_paths")
        self.prefs.set("search_paths", [*current, str(path.resolve())])
        return True

    def add_typed_path(self) -> None:
        if self.add_path(self.path_edit.text()):
            self.path_edit.clear()

    def remove_selected_path(self) -> None:
        rows = sorted({i.row() for i in self.search_paths.selectedIndexes()})
        if not rows:
            return
        current = self.prefs.get("search_paths")
        self.prefs.set("search_paths", [p for i, p in enumerate(current) if i not in rows])

    def _browse(self) -> None:
        folder = QtWidgets.QFileDialog.getExistingDirectory(self, "Model search path")
        if folder:
            self.add_path(folder)

    def restore_defaults(self) -> None:
        self.prefs.reset()
        self.fill()
