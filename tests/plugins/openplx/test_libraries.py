"""A library is valid (issue 8, item 3).

A file that declares models but no ``Physics3D.System`` (most of openplx-bundles), or any
file of a bundle (a folder with a ``config.openplx``), is a library: ``check`` reports its
real problems (syntax, names, types, evaluation) and nothing about values its models leave
for their users; ``read`` gives a document without a root model and no error; ``snap``
says there is nothing to assemble and exits 2 (a usage error: the file is fine, the
command does not apply).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapframe.core.diagnostics import Code, Severity
from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.cli import EXIT_NOTHING_TO_ASSEMBLE, check, snap_command


def _main(*args: str) -> int:
    from snapframe.editor.cli import main
    return main([str(a) for a in args])


def test_every_bundle_file_is_valid(bundle_files: list[Path]) -> None:
    # The official bundles are what the reference runtime loads: none has a real problem.
    # `snapframe check` prints what `read` reports and exits 1 only on an error.
    failing = {}
    for f in bundle_files:
        errors = [d for d in openplx_format.read(f).diagnostics if d.is_error]
        if errors:
            failing[f.name] = errors[0].format()
    assert failing == {}


def test_check_exits_0_on_library_files_of_every_kind(bundle_root: Path, capsys) -> None:
    # A type library, a bundle config, a file using a runtime type (Blob), a template
    # System with parameters left to its users, and one whose values need them.
    for name in ("Physics3D/Interactions/Hinge.openplx", "Math/config.openplx",
                 "Sensors/Signals/SensorOutputSignal.openplx",
                 "Robotics/Robots/SixAxisSerialManipulator.openplx",
                 "DriveTrain/MeanValueEngine.openplx"):
        assert _main("check", bundle_root / name) == 0, capsys.readouterr().out
        assert capsys.readouterr().out.endswith("valid\n")


def test_reading_a_library_gives_no_root_and_no_error(bundle_root: Path) -> None:
    doc = openplx_format.read(bundle_root / "Physics3D" / "Interactions" / "Hinge.openplx")
    assert doc.root is None
    assert not doc.diagnostics.has_errors()


def test_snap_on_a_library_says_nothing_to_assemble(bundle_root: Path, capsys) -> None:
    path = bundle_root / "Physics3D" / "Interactions" / "Hinge.openplx"
    out = snap_command(path)
    assert out["errors"] == [] and out["frames"] == {}
    [warning] = out["warnings"]
    assert warning["code"] == "MODEL_WITHOUT_LINK"
    assert warning["message"].startswith("nothing to assemble: the file declares 1 model "
                                         "(Hinge) but no Physics3D.System")
    assert _main("snap", path) == EXIT_NOTHING_TO_ASSEMBLE == 2
    assert "nothing to assemble" in capsys.readouterr().err
    assert _main("snap", path, "--json") == 2
    assert json.loads(capsys.readouterr().out) == out


def test_a_user_library_of_templates_is_valid(tmp_path: Path) -> None:
    # Parameters without values, and values computed from them: the models are templates.
    path = tmp_path / "parts.openplx"
    path.write_text("Link is Physics3D.Bodies.RigidBody:\n"
                    "    length is Real\n"
                    "    end is Physics3D.Interactions.MateConnector:\n"
                    "        position.x: length * 2\n"
                    "Pair is Physics3D.Interactions.Hinge:\n"
                    "    links is Link[]\n"
                    "    connectors: [links[0].end, links[1].end]\n")
    assert list(check(path)) == []
    doc = openplx_format.read(path)
    assert doc.root is None and list(doc.diagnostics) == []


@pytest.mark.parametrize("text, line, message", [
    ("Link is Physics3D.Bodies.RigidBdy\n", 1, "unknown type 'Physics3D.Bodies.RigidBdy'"),
    ("Link is Physics3D.Bodies.RigidBody:\n    mass_x is Real: 1 + \"a\"\n", 2,
     "operator '+' is not defined for Int and String"),
    ("Link is Physics3D.Bodies.RigidBody:\n    nope: 1\n", 2,
     "'Link' has no attribute 'nope'"),
    ("Link is Physics3D.Bodies.RigidBody:\n    x is Real: 1 +\n", 2, "expected a value"),
])
def test_a_library_still_reports_its_real_problems(tmp_path: Path, text, line, message) -> None:
    path = tmp_path / "lib.openplx"
    path.write_text(text)
    [error] = check(path).errors
    assert (error.line, message in error.message) == (line, True), error.format()
    assert openplx_format.read(path).diagnostics.has_errors()
    assert _main("check", path) == 1


def test_a_template_beside_the_assembly_is_not_held_to_completeness(tmp_path: Path) -> None:
    # J leaves 'links' to its users; Arm assembles it with links: only Arm must be
    # complete.  Before, check reported 'only arrays can be indexed' at J's line 5.
    path = tmp_path / "arm.openplx"
    path.write_text("Link is Physics3D.Bodies.RigidBody:\n"
                    "    c is Physics3D.Interactions.MateConnector\n"
                    "J is Physics3D.System:\n"
                    "    links is Link[]\n"
                    "    mate is Physics3D.Interactions.Hinge:\n"
                    "        connectors: [links[0].c, links[1].c]\n"
                    "Arm is Physics3D.System:\n"
                    "    a is Link:\n"
                    "        kinematics.local_transform.position.x: 0\n"
                    "    b is Link\n"
                    "    j is J:\n"
                    "        links: [a, b]\n")
    assert check(path).errors == []
    assert snap_command(path)["errors"] == []


def test_the_assembled_model_must_still_be_complete(tmp_path: Path) -> None:
    path = tmp_path / "rig.openplx"
    path.write_text("Rig is Physics3D.System:\n"
                    "    gain is Real\n"
                    "    twice is Real: gain * 2\n")
    d = check(path)
    assert [(x.line, x.severity) for x in d] == [(2, Severity.WARNING), (3, Severity.ERROR)]
    assert "declared without a value" in d.warnings[0].message


def test_a_bundle_config_is_checked_against_the_runtime_type(tmp_path: Path) -> None:
    bundle = tmp_path / "Parts"
    bundle.mkdir()
    (bundle / "config.openplx").write_text('config is BundleConfig:\n    name: "Parts"\n'
                                           '    version: "1.0"\n    colour: "red"\n')
    [error] = check(bundle / "config.openplx").errors
    assert (error.line, error.code) == (4, Code.ATTRIBUTE_INVALID)
    assert "'Parts.config' has no attribute 'colour'" in error.message
