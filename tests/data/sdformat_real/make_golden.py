#!/usr/bin/env python3
"""Record libsdformat 12.3's answers for the files of this folder (``golden/``).

Usage (from anywhere)::

    tests/oracle/build.sh                                  # once (libsdformat-dev needed)
    python3 tests/data/sdformat_real/make_golden.py        # runs the oracle, writes golden/
    python3 tests/data/sdformat_real/make_golden.py --check

Every ``*.sdf`` and ``*.urdf`` below this folder (except ``golden/``) is loaded by
``tests/oracle/build/sdf_oracle`` with ``sdformat/test/integration/model`` as its model
path (libsdformat's own tests set the same), under a 2 GB address-space limit.  Its JSON
(Snapframe's ``frames --json`` contract) goes to ``golden/<path with / as __>.json``;
``golden/MANIFEST.json`` lists, per file, whether 12.3 accepted it, its error codes and
its root codes (without the derived ``*_GRAPH_ERROR`` codes and wrapper messages).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ORACLE = REPO / "tests" / "oracle" / "build" / "sdf_oracle"
GOLDEN = HERE / "golden"
MODEL_PATH = HERE / "sdformat" / "test" / "integration" / "model"
DERIVED = {"FRAME_ATTACHED_TO_GRAPH_ERROR", "POSE_RELATIVE_TO_GRAPH_ERROR"}
WRAPPERS = ("Error reading element", "Failed to load a world", "Unable to read file",
            "Unable to parse sdf element", "Errors were found when checking")


def corpus() -> list[str]:
    files = [p for p in HERE.rglob("*")
             if p.suffix in (".sdf", ".urdf") and GOLDEN not in p.parents]
    return sorted(p.relative_to(HERE).as_posix() for p in files)


def golden_name(rel: str) -> str:
    return rel.replace("/", "__") + ".json"


def root_codes(errors: list[dict]) -> list[str]:
    codes = [e["code"] for e in errors]
    roots = [e["code"] for e in errors
             if e["code"] not in DERIVED and not e["message"].startswith(WRAPPERS)]
    return list(dict.fromkeys(roots or codes[:1]))


def run_oracle(rel: str) -> dict:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    out = subprocess.run([str(ORACLE), "--path", str(MODEL_PATH), "--relative-to", str(HERE),
                          str(HERE / rel)], capture_output=True, text=True, timeout=300,
                         preexec_fn=limit)
    if out.returncode not in (0, 1):
        raise RuntimeError(f"{rel}: the oracle failed ({out.returncode}): {out.stderr[-500:]}")
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare only; write nothing")
    args = ap.parse_args(argv)
    if not ORACLE.exists():
        print(f"{ORACLE} is not built (run tests/oracle/build.sh)", file=sys.stderr)
        return 2
    GOLDEN.mkdir(exist_ok=True)
    manifest, problems = {}, []
    for rel in corpus():
        data = run_oracle(rel)
        manifest[rel] = {"accepted": not data["errors"],
                         "error_codes": [e["code"] for e in data["errors"]],
                         "root_error_codes": root_codes(data["errors"]),
                         "golden": golden_name(rel)}
        target = GOLDEN / golden_name(rel)
        text = json.dumps(data, indent=1, sort_keys=True) + "\n"
        if args.check:
            if not target.exists() or json.loads(target.read_text()) != data:
                problems.append(f"{rel}: the oracle's answer differs from {target.name}")
        else:
            target.write_text(text)
    text = json.dumps({"oracle": "libsdformat 12.3.0 (tests/oracle/sdf_oracle)",
                       "model_path": MODEL_PATH.relative_to(HERE).as_posix(),
                       "files": manifest}, indent=1, sort_keys=True) + "\n"
    if args.check:
        if json.loads((GOLDEN / "MANIFEST.json").read_text()) != json.loads(text):
            problems.append("MANIFEST.json differs")
    else:
        (GOLDEN / "MANIFEST.json").write_text(text)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(manifest)} files, {sum(e['accepted'] for e in manifest.values())} accepted by "
          f"libsdformat 12.3" + (f"; {len(problems)} differ" if args.check else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
