"""What the floor plan JSON-LD, door, world and format tests share: the data folders, a
studio folder with its door next to the plan, and the libsdformat joint reader."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "floorplan"
JSONLD = DATA / "jsonld"
STUDIO = DATA / "studio"
#: The pinned published contexts (tests only: the secorolab ones are GPL-3.0).
PINNED = DATA / "contexts"
EXAMPLES = ("square", "hospital", "kitchen", "office", "hbrs")

#: (spaces, walls, features, openings) as floorplan.json lists and types them (counted
#: by hand from the files: FloorPlan.spaces, Wall, Column + Divider, FloorPlan.openings).
COUNTS = {"square": (1, 4, 0, 0), "hospital": (4, 18, 9, 6), "kitchen": (3, 12, 1, 3),
          "office": (8, 31, 0, 9), "hbrs": (3, 12, 2, 3), "studio": (2, 8, 1, 2)}

_JOINTS_SOURCE = Path(__file__).with_name("sdf_joints.cc")
_JOINTS_BINARY = ROOT / "tests" / "oracle" / "build" / "sdf_joints"


def studio_with_door(tmp: Path) -> Path:
    """A JSON-LD folder: the studio plan, its door models in ``doors/``."""
    folder = tmp / "studio"
    shutil.copytree(STUDIO / "jsonld", folder)
    shutil.copytree(STUDIO / "door-jsonld", folder / "doors")
    return folder


def copy_example(tmp: Path, name: str) -> Path:
    folder = tmp / name
    shutil.copytree(JSONLD / name if name != "studio" else STUDIO / "jsonld", folder)
    for f in folder.rglob("*"):
        f.chmod(0o644 if f.is_file() else 0o755)
    return folder


def pinned_contexts() -> dict[str, dict]:
    """URL -> the published context as pinned in tests/data (url-map.json)."""
    table = json.loads((PINNED / "url-map.json").read_text())
    return {url: json.loads((PINNED / rel).read_text())
            for url, rel in table.items() if not url.startswith("_")}


def yaw(X: np.ndarray) -> float:
    return math.atan2(X[1, 0], X[0, 0])


def joints_binary() -> tuple[Path | None, str]:
    """``sdf_joints`` (built from sdf_joints.cc when missing or older), or None and why."""
    b = _JOINTS_BINARY
    if b.is_file() and os.access(b, os.X_OK) and b.stat().st_mtime >= _JOINTS_SOURCE.stat().st_mtime:
        return b, ""
    try:
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sdformat12"],
                               capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"pkg-config cannot run: {exc}"
    if flags.returncode != 0:
        return None, "libsdformat 12 is not installed (apt-get install libsdformat-dev)"
    b.parent.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run([os.environ.get("CXX", "g++"), "-O1", "-o", str(b),
                               str(_JOINTS_SOURCE), *flags.stdout.split()],
                              capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"sdf_joints could not be built: {exc}"
    if done.returncode != 0:
        return None, f"sdf_joints could not be built: {done.stderr[-300:]}"
    return b, ""


def read_joints(binary: Path, path: Path) -> dict:
    done = subprocess.run([str(binary), str(path)], capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout)
