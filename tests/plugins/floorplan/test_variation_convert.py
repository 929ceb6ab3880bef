"""``snapframe convert plan.variation OUT_DIR --count N --seed S``: N floor plan
variations, each as ``.fpm`` text and as an SDFormat world, the same for the same seed."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from snapframe.core.loading import load
from snapframe.editor.cli import main
from snapframe.plugins.floorplan.dsl import load_fpm

FPM = Path(__file__).resolve().parents[2] / "data" / "floorplan" / "fpm"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_variations_become_worlds(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["convert", str(FPM / "kitchen.variation"), str(out), "--count", "3",
                 "--seed", "5"]) == 0
    names = sorted(p.name for p in out.iterdir() if p.is_file())
    assert names == ["kitchen_5.fpm", "kitchen_5.sdf", "kitchen_6.fpm", "kitchen_6.sdf",
                     "kitchen_7.fpm", "kitchen_7.sdf"]
    printed = capsys.readouterr().out.split()
    assert printed == [str(out / f"kitchen_{s}.sdf") for s in (5, 6, 7)]
    for seed in (5, 6, 7):
        plan = load_fpm(out / f"kitchen_{seed}.fpm")
        assert len(plan.walls) == 12 and len(plan.openings) == 3
        doc = load(out / f"kitchen_{seed}.sdf")
        assert not doc.diagnostics.has_errors(), [d.format() for d in doc.diagnostics]
    # the corridor's width varies between the worlds
    texts = {(out / f"kitchen_{s}.sdf").read_text() for s in (5, 6, 7)}
    assert len(texts) == 3


def test_same_seed_same_files_other_seed_other_files(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder, seed in ((a, "9"), (b, "9"), (c, "10")):
        assert main(["convert", str(FPM / "hospital.variation"), str(folder), "--count", "2",
                     "--seed", seed]) == 0
    assert _files(a) == _files(b)
    assert _files(a) != _files(c)
    # seeds 9, 10 and 10, 11 share the variation of seed 10
    assert (a / "hospital_10.fpm").read_bytes() == (c / "hospital_10.fpm").read_bytes()


def test_hbrs_with_positive_thicknesses(tmp_path):
    folder = tmp_path / "plans"
    folder.mkdir()
    shutil.copy(FPM / "hbrs.fpm", folder)
    shutil.copy(FPM / "hbrs_positive_thickness.variation", folder)
    out = tmp_path / "out"
    assert main(["convert", str(folder / "hbrs_positive_thickness.variation"), str(out)]) == 0
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["hbrs_0.fpm", "hbrs_0.sdf"]


def test_a_bad_variation_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["convert", str(FPM / "hbrs.variation"), str(out), "--count", "2"]) == 1
    err = capsys.readouterr().err
    assert f"{FPM / 'hbrs.variation'}:7:31:" in err and "must be positive" in err
    assert not out.exists()


@pytest.mark.parametrize("extra, words", [
    (["--count", "0"], "at least 1"),
    (["--seed", "-1"], "must not be negative"),
])
def test_usage_errors(tmp_path, capsys, extra, words):
    assert main(["convert", str(FPM / "kitchen.variation"), str(tmp_path / "o"), *extra]) == 2
    assert words in capsys.readouterr().err


def test_output_must_be_a_folder(tmp_path, capsys):
    target = tmp_path / "file.sdf"
    target.write_text("")
    assert main(["convert", str(FPM / "kitchen.variation"), str(target)]) == 2
    assert "is a file" in capsys.readouterr().err


def test_count_and_seed_only_for_variations(tmp_path, capsys):
    assert main(["convert", str(FPM / "kitchen.fpm"), str(tmp_path / "k.sdf"),
                 "--seed", "3"]) == 2
    assert ".variation" in capsys.readouterr().err


@pytest.mark.oracle
def test_libsdformat_loads_a_variation_world(tmp_path):
    from tests.plugins.composite_assemblies import oracle_binary, run_oracle
    oracle, why = oracle_binary()
    if oracle is None:
        pytest.skip(why)
    out = tmp_path / "out"
    assert main(["convert", str(FPM / "hospital.variation"), str(out), "--seed", "3"]) == 0
    result = run_oracle(oracle, out / "hospital_3.sdf")
    assert result["errors"] == []
    assert any(f["kind"] == "link" for f in result["frames"].values())
