"""A save that only reports what it did besides (an INFO note: files written next to the
output) is as faithful as a silent one; a warning still is not."""

from __future__ import annotations

import sys
import types

import pytest

from snapframe.core.diagnostics import Code, Diagnostic, Severity
from snapframe.core.formats import FormatDescriptor, FormatRegistry
from snapframe.core.model import Document, Model
from snapframe.core.model.edits import SetField


def _registry(severity: Severity) -> FormatRegistry:
    module = types.ModuleType("fake_notes_format")

    def write(document, path, **_options):
        path.write_text("saved")
        document.diagnostics.add(Diagnostic(severity, Code.FILES_WRITTEN, "wrote extra files"))
    module.write = write
    sys.modules["fake_notes_format"] = module
    reg = FormatRegistry()
    reg.register(FormatDescriptor("fake", "Fake", (".fake",), "fake_notes_format",
                                  can_write=True))
    return reg


@pytest.mark.parametrize("severity,faithful", [(Severity.INFO, True),
                                               (Severity.WARNING, False)])
def test_only_warnings_make_a_save_an_export(tmp_path, severity, faithful):
    doc = Document(root=Model(name="m"), path=str(tmp_path / "a.fake"), format="fake")
    doc.commands.push(SetField(doc, doc.root, "static", True))     # an unsaved edit
    assert not doc.commands.is_clean
    notes = doc.save(tmp_path / "a.fake", registry=_registry(severity))
    assert [d.code for d in notes] == [Code.FILES_WRITTEN]      # reported either way
    assert doc.commands.is_clean is faithful                   # saved, or only exported
    assert (tmp_path / "a.fake").read_text() == "saved"
