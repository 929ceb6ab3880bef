"""Hostile input: nesting thousands of levels deep is reported (at an exact position where
the front end has one), never a Python RecursionError, and files still round-trip."""

from __future__ import annotations

import pytest

from snapframe.plugins.openplx.cli import check, snap_command
from snapframe.plugins.openplx.edit import SourceEditor
from snapframe.plugins.openplx.parser import MAX_EXPR_NESTING, parse

N = 3000


@pytest.mark.parametrize("opening, closing, col", [
    # The value starts in column 16; the error points at the opening one level too deep.
    ("(", ")", 16 + MAX_EXPR_NESTING), ("[", "]", 16 + MAX_EXPR_NESTING),
    ("-", "", 16 + MAX_EXPR_NESTING),
    # Each "Math.Functions.sin(" nests three times ('.', '.', '('): 33 of them make 99
    # levels, the 34th goes too deep at its second '.'.
    ("Math.Functions.sin(", ")", 16 + 33 * 19 + len("Math.Functions")),
])
def test_deeply_nested_expression_is_one_exact_syntax_error(tmp_path, opening, closing,
                                                            col) -> None:
    text = "A is Physics3D.System:\n    x is Real: " + opening * N + "1" + closing * N + "\n"
    source = parse(text, "f.openplx")
    [p] = source.problems
    assert "nested too deeply" in p.message
    assert (p.line, p.col) == (2, col)
    assert source.to_text() == text
    path = tmp_path / "deep.openplx"
    path.write_text(text)
    errors = snap_command(path)["errors"]
    assert len(errors) == 1 and "nested too deeply" in errors[0]["message"]


def test_long_member_chain_is_a_syntax_error_not_a_crash() -> None:
    source = parse("A:\n    x is Real: a" + ".b" * N + "\n")
    [p] = source.problems
    assert "nested too deeply" in p.message and p.line == 2


def test_long_sum_evaluates_without_recursion(tmp_path) -> None:
    path = tmp_path / "sum.openplx"
    path.write_text("A is Physics3D.System:\n    x is Real: 1" + " + 1" * N + "\n"
                    "    v is Math.Vec3: {0, 0, 0}" + " + {1, 0, 0}" * N + "\n")
    from snapframe.plugins.openplx.loader import load_file
    f = load_file(path)
    a = f.instantiate("A")
    assert a.get("x") == N + 1
    assert a.get("v").get("x") == N
    assert f.all_problems() == []


def test_long_reference_chain_is_reported_once(tmp_path) -> None:
    path = tmp_path / "chain.openplx"
    path.write_text("A is Physics3D.System:\n"
                    + "".join(f"    x{i} is Real: x{i + 1}\n" for i in range(N))
                    + f"    x{N} is Real: 1\n")
    errors = check(path).errors
    assert len(errors) == 1 and "nested too deeply" in errors[0].message
    assert errors[0].line == 101      # x99 is Real: x100 (100 values deep)


def test_long_chains_of_bases_and_traits_do_not_crash(tmp_path) -> None:
    bases = tmp_path / "bases.openplx"
    bases.write_text("trait T0:\n    x is Real: 0\n"
                     + "".join(f"trait T{i} is T{i - 1}\n" for i in range(1, N))
                     + f"A is Physics3D.System:\n    with T{N - 1}\n"
                     "    b is Physics3D.Bodies.RigidBody:\n"
                     "        kinematics.local_transform.position.x: x\n")
    out = snap_command(bases)
    assert out["errors"] == []
    assert out["frames"]["A.b"]["pose"][:3] == [0.0, 0.0, 0.0]



def test_deep_expressions_in_a_deep_chain_of_values_hit_the_backstop(tmp_path) -> None:
    # Each limit alone holds (90 brackets, 99 values) but together they need ~10,000
    # Python frames: the evaluator's backstop reports it instead of raising.
    depth = MAX_EXPR_NESTING - 10
    path = tmp_path / "both.openplx"
    path.write_text("A is Physics3D.System:\n" + "".join(
        f"    x{i} is Real: " + "(" * depth + f"x{i + 1}" + ")" * depth + "\n" for i in range(99))
        + "    x99 is Real: 1\n")
    [error] = check(path).errors
    assert "nested too deeply to evaluate" in error.message
    assert snap_command(path)["errors"] == []   # SNAP does not need x0


def test_deeply_nested_blocks_round_trip_and_edit() -> None:
    n = 1500  # deeper than Python's recursion limit; the indentation alone is ~1 MB
    text = "A is Physics3D.System:\n" + "".join(
        " " * (i + 4) + f"a{i}:\n" for i in range(n)) + " " * (n + 4) + "x: 1\n"
    source = parse(text)
    assert source.problems == []
    assert source.to_text() == text
    editor = SourceEditor(source, text)
    [found] = editor.find(source.statements[0], ("a0",))
    editor.remove(found)
    assert editor.text() == "A is Physics3D.System\n"


def test_deep_but_finite_system_nesting_is_not_called_recursive(tmp_path) -> None:
    from snapframe.plugins.openplx.physics import MAX_SYSTEM_DEPTH
    n = MAX_SYSTEM_DEPTH + 10
    path = tmp_path / "tower.openplx"
    path.write_text("M0 is Physics3D.System\n" + "".join(
        f"M{i} is Physics3D.System:\n    s is M{i - 1}\n" for i in range(1, n)))
    [error] = snap_command(path)["errors"]
    assert "contains itself" not in error["message"]
    assert f"nested more than {MAX_SYSTEM_DEPTH} systems deep" in error["message"]


def test_symlink_loops_and_folders_are_reported_not_raised(tmp_path) -> None:
    (tmp_path / "a.openplx").symlink_to(tmp_path / "b.openplx")
    (tmp_path / "b.openplx").symlink_to(tmp_path / "a.openplx")
    (tmp_path / "dir.openplx").mkdir()
    path = tmp_path / "main.openplx"
    path.write_text('import "a.openplx"\nimport "dir.openplx"\n'
                    "A is Physics3D.System:\n"
                    "    b is Physics3D.Bodies.RigidBody:\n"
                    "        kinematics.local_transform.position.x: 0\n"
                    "        mesh is Physics3D.Geometries.ExternalTriMeshGeometry:\n"
                    '            path: @"a.openplx"\n')
    errors = [(e.line, e.message) for e in check(path).errors]
    assert errors[0][0] == 1 and "imported file unreadable" in errors[0][1]
    assert errors[1][0] == 2 and "imported file unreadable" in errors[1][1]
    assert len(errors) == 2
    from snapframe.plugins.openplx import format as openplx_format
    doc = openplx_format.read(path)   # evaluates the at-string too
    assert [d.line for d in doc.diagnostics.errors] == [1, 2]


def test_broken_bundle_path_falls_back_or_is_reported(tmp_path, monkeypatch) -> None:
    pytest.importorskip("openplxbundles")
    path = tmp_path / "rig.openplx"
    path.write_text("Rig is Physics3D.System:\n    a is Physics3D.Bodies.RigidBody:\n"
                    "        kinematics.local_transform.position.x: 1\n")
    # openplxbundles.bundle_path() asserts on a wrong OPENPLX_BUNDLE_PATH: warn, fall back.
    monkeypatch.setenv("OPENPLX_BUNDLE_PATH", str(tmp_path / "nowhere"))
    out = snap_command(path)
    assert out["errors"] == []
    [w] = out["warnings"]
    assert "OPENPLX_BUNDLE_PATH" in w["message"] and "installed openplx-bundles" in w["message"]
    assert out["frames"]["Rig.a"]["pose"][0] == 1.0
    # No bundles at all: one error saying so comes first.
    import sys
    monkeypatch.setitem(sys.modules, "openplxbundles", None)
    out = snap_command(path)
    assert "the OpenPLX bundles are not available" in out["errors"][0]["message"]
