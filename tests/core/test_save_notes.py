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


def _registry_with_read_only(severity: Severity | None, code: Code = Code.CONVERSION_ERROR
                             ) -> FormatRegistry:
    """The fake writable format of :func:`_registry` (its writer reporting one finding of
    ``severity``, or none) next to a format that only reads, as a floor plan's."""
    module = types.ModuleType("fake_target_format")

    def write(document, path, **_options):
        path.write_text("saved")
        if severity is not None:
            document.diagnostics.add(Diagnostic(severity, code, "about this save"))
    module.write = write
    sys.modules["fake_target_format"] = module
    reg = FormatRegistry()
    reg.register(FormatDescriptor("plan", "Plan", (".plan",), "fake_target_format"))
    reg.register(FormatDescriptor("fake", "Fake", (".fake",), "fake_target_format",
                                  can_write=True))
    return reg


@pytest.mark.parametrize("severity,code,bound", [
    (None, Code.CONVERSION_ERROR, True),
    (Severity.INFO, Code.FILES_WRITTEN, True),
    (Severity.WARNING, Code.NOT_PORTABLE, True),         # other tools', not a loss
    (Severity.WARNING, Code.CONVERSION_ERROR, False)])   # a loss: an export
def test_a_read_only_format_becomes_the_file_a_lossless_save_writes(tmp_path, severity, code,
                                                                     bound):
    reg = _registry_with_read_only(severity, code)
    doc = Document(root=Model(name="m"), path=str(tmp_path / "a.plan"), format="plan",
                   extras={"source_files": [str(tmp_path / "door.json")]})
    doc.commands.push(SetField(doc, doc.root, "static", True))     # an unsaved edit
    doc.save(tmp_path / "b.fake", registry=reg)
    assert doc.commands.is_clean is bound
    if bound:     # the new file and format are the document's; the plan's files are not
        assert (doc.path, doc.format) == (str(tmp_path / "b.fake"), "fake")
        assert "source_files" not in doc.extras
    else:
        assert (doc.path, doc.format) == (str(tmp_path / "a.plan"), "plan")


def test_a_writable_format_keeps_its_rule_other_formats_are_exports(tmp_path):
    reg = _registry_with_read_only(None)
    reg.register(FormatDescriptor("other", "Other", (".other",), "fake_target_format",
                                  can_write=True))
    doc = Document(root=Model(name="m"), path=str(tmp_path / "a.fake"), format="fake")
    doc.commands.push(SetField(doc, doc.root, "static", True))
    doc.save(tmp_path / "b.other", registry=reg)        # another format: an export
    assert not doc.commands.is_clean and doc.format == "fake"
    doc.save(tmp_path / "c.fake", registry=reg)         # its own: saved there
    assert doc.commands.is_clean and doc.path == str(tmp_path / "c.fake")
