"""A small, seeded fuzz run over real files (issue 8, item 5): the bundled examples and
openplx-bundles files, mutated line by line and with hostile snippets, go through what
``check`` and ``snap`` do.  No exception may escape and every run must end quickly.

The run is bounded in time (a few seconds), so the number of cases depends on the
machine; the seed fixes which mutations are tried, in which order.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from snapframe.plugins.openplx import format as openplx_format
from snapframe.plugins.openplx.cli import snap_command

from .conftest import EXAMPLES

SEED = 8
BUDGET_S = 6.0        # the whole run
PER_CASE_S = 5.0      # one file through read + snap
MIN_CASES = 12

#: Hostile snippets inserted as lines (the issue's cases, and their neighbours).
SNIPPETS = [
    "    x is Real: " + "9" * 5000,
    "    y is Int: " + "9" * 300 + " * " + "9" * 300,
    'import "parts\x00.openplx"',
    'import "/dev/zero"',
    "    self_again is {model}",
    "{model}2 is {model}:\n    a is {model}2\n    b is {model}2",
    "    deep is Real: " + "(" * 150 + "1" + ")" * 150,
    "    s is String: @\"a\x00b\"",
    "    q is Math.Quat: {0, 0, 0, 0}",
    "    v is Math.Vec3: Math.Vec3.from_xyz(1, 2)",
    "    r is Real: 1 / 0",
    "\t\tmixed is Real: 1",
    "    n is Real: x" + ".y" * 200,
    "Fan is Physics3D.System:\n" + "".join(f"    s{i} is {{model}}\n" for i in range(8)),
]


def _corpus(bundle_files: list[Path], rng: random.Random) -> list[tuple[str, str]]:
    files = sorted(EXAMPLES.glob("*.openplx"))
    systems = [f for f in bundle_files if "System" in f.read_text(errors="replace")]
    files += rng.sample(systems, min(10, len(systems)))
    files += rng.sample(bundle_files, 10)
    return [(f.name, f.read_text(encoding="utf-8", errors="surrogateescape")) for f in files]


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    models = [ln.split()[0] for ln in lines if ln[:1].isalpha() and " is " in ln] or ["M"]
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(lines) + 1)
        op = rng.randrange(7)
        if op == 0 and lines:
            del lines[min(k, len(lines) - 1)]
        elif op == 1 and lines:
            lines.insert(k, lines[min(k, len(lines) - 1)])
        elif op == 2 and len(lines) > 1:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and lines:
            i = min(k, len(lines) - 1)
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif op == 4 and lines:
            i = min(k, len(lines) - 1)
            lines[i] = " " * rng.choice((0, 2, 4, 8, 12)) + lines[i].lstrip()
        elif op == 5:
            lines.insert(k, rng.choice(SNIPPETS).replace("{model}", rng.choice(models)))
        else:
            i = min(k, max(len(lines) - 1, 0))
            if lines and lines[i]:
                c = rng.randrange(len(lines[i]))
                lines[i] = lines[i][:c] + rng.choice("()[]{}:.,+-*/\"'#@$0 \t") + lines[i][c:]
    return "\n".join(lines)


def test_mutated_examples_and_bundle_files_end_quickly_without_exceptions(
        bundle_files: list[Path], tmp_path: Path) -> None:
    rng = random.Random(SEED)
    corpus = _corpus(bundle_files, rng)
    start = time.monotonic()
    cases = 0
    slowest = (0.0, "")
    while cases < MIN_CASES or time.monotonic() - start < BUDGET_S:
        name, text = rng.choice(corpus)
        mutated = _mutate(text, rng)
        path = tmp_path / f"case{cases}_{name}"
        path.write_text(mutated, encoding="utf-8", errors="surrogateescape")
        t0 = time.monotonic()
        try:
            doc = openplx_format.read(path)          # what check, frames and convert do
            out = snap_command(path)
        except Exception as exc:  # noqa: BLE001 - the point: report the case that escaped
            raise AssertionError(f"{type(exc).__name__} on case {cases} ({name}):\n"
                                 f"{mutated[:3000]}") from exc
        elapsed = time.monotonic() - t0
        slowest = max(slowest, (elapsed, f"case {cases} ({name})"))
        assert elapsed < PER_CASE_S, (slowest, mutated[:3000])
        assert isinstance(out["frames"], dict) and doc is not None
        cases += 1
        if cases >= 400:
            break
    assert cases >= MIN_CASES
