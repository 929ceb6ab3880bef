"""Random composite SDFormat assemblies (seeded), the libsdformat oracle, pose comparison.

Used by ``test_composite_round_trip.py`` and by hand (``python -m
tests.plugins.composite_assemblies N``) to count how many assemblies each writer keeps
intact.

An assembly is a folder holding a few part files and ``top.sdf``:

* a **part** is a model of one to three links in a chain of revolute, prismatic,
  continuous and fixed joints (poses relative to other links, joint poses relative to
  the child or the parent, axes expressed in the joint frame or the model frame), frames
  attached to links (poses relative to other frames), sometimes a nested model hanging
  on a joint, sometimes a model pose of its own;
* ``top.sdf`` includes parts (some files several times): the first at a pose, each next
  one by ``placement_frame`` at a frame of an earlier include (``relative_to``), with or
  without an offset, and joined to it by a weld or a joint between frames of the two
  includes; sometimes an include is left free, sometimes a nested model groups two
  includes; some assemblies are worlds that include the assembly twice and a static
  ground.

Everything generated is a tree (each link has at most one parent), except the
assemblies with free includes, which are forests.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from snapframe.core.pose import Pose, quat_distance

REPO = Path(__file__).resolve().parents[2]
ORACLE_DIR = REPO / "tests" / "oracle"
ORACLE = ORACLE_DIR / "build" / "sdf_oracle"
#: How close a written file must put every link (metres, and radians of rotation).
TOLERANCE = 1e-6


# -- the oracle -----------------------------------------------------------------------------

def oracle_binary() -> tuple[Path | None, str]:
    """The libsdformat 12.3 oracle, built (``tests/oracle/build.sh``) when missing; None
    and the reason when it cannot be built."""
    if ORACLE.is_file() and os.access(ORACLE, os.X_OK):
        return ORACLE, ""
    try:
        done = subprocess.run(["sh", str(ORACLE_DIR / "build.sh")], capture_output=True,
                              text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"tests/oracle/build.sh could not run: {exc}"
    if done.returncode != 0 or not ORACLE.is_file():
        why = (done.stderr or done.stdout).strip().splitlines()
        return None, ("the libsdformat 12.3 oracle cannot be built (apt-get install "
                      f"libsdformat-dev g++ pkg-config): {why[-1] if why else 'build failed'}")
    return ORACLE, ""


def run_oracle(oracle: Path, path: Path) -> dict:
    """The oracle's JSON for ``path`` (``errors`` and ``frames`` as ``snapframe frames``)."""
    done = subprocess.run([str(oracle), "--path", str(path.parent), str(path)],
                          capture_output=True, text=True, timeout=120)
    if not done.stdout.strip():
        return {"errors": [{"code": "CRASH", "message": done.stderr[-500:]}], "frames": {}}
    return json.loads(done.stdout)


def oracle_poses(result: dict, kind: str = "link") -> dict[str, Pose]:
    return {name: Pose.from_xyz_quat(f["pose"][:3], f["pose"][3:])
            for name, f in result["frames"].items() if f["kind"] == kind}


# -- comparison -----------------------------------------------------------------------------

def pose_error(a: Pose, b: Pose) -> float:
    """Largest of the position distance and the rotation angle between ``a`` and ``b``."""
    dp = math.dist(a.p, b.p)
    return max(dp, quat_distance(a.quat(), b.quat()))


def misplaced(expected: dict[str, Pose], got: dict[str, Pose],
              tolerance: float = TOLERANCE) -> list[str]:
    """Names of ``expected`` that ``got`` lacks or puts elsewhere (with the error)."""
    out = []
    for name, X in expected.items():
        G = got.get(name)
        if G is None:
            out.append(f"{name}: missing")
        elif pose_error(X, G) > tolerance:
            out.append(f"{name}: off by {pose_error(X, G):.3g}")
    return out


def relative_to(poses: dict[str, Pose], reference: str) -> dict[str, Pose]:
    """Every pose expressed in the frame of ``poses[reference]``."""
    X_inv = poses[reference].inverse()
    return {name: X_inv @ X for name, X in poses.items()}


# -- the generator --------------------------------------------------------------------------

@dataclass
class Part:
    """A generated part file: its links, the links without an internal parent, frames."""

    file: str
    model: str
    links: list[str] = field(default_factory=list)
    root_link: str = "L0"
    #: Frames (and links) attached to the root link: what a joint's child may name.
    root_frames: list[str] = field(default_factory=list)
    #: Every frame a placement or a relative_to may name.
    frames: list[str] = field(default_factory=list)


@dataclass
class Assembly:
    """A generated assembly: its folder, the file to open, and facts the test uses."""

    folder: Path
    top: Path
    is_world: bool
    is_tree: bool
    seed: int
    top_name: str = ""


def _rpy(rng: random.Random, scale: float = math.pi) -> tuple[float, float, float]:
    return tuple(rng.uniform(-scale, scale) for _ in range(3))  # type: ignore[return-value]


def _pose_text(rng: random.Random, scale: float = 1.0, rot: bool = True) -> str:
    xyz = [rng.uniform(-scale, scale) for _ in range(3)]
    rpy = list(_rpy(rng)) if rot else [0.0, 0.0, 0.0]
    return " ".join(f"{v:.6f}" for v in [*xyz, *rpy])


def _unit(rng: random.Random) -> str:
    v = [rng.gauss(0, 1) for _ in range(3)]
    n = math.sqrt(sum(c * c for c in v)) or 1.0
    return " ".join(f"{c / n:.6f}" for c in v)


def _inertial(rng: random.Random) -> str:
    a, b, c = (rng.uniform(0.1, 0.2) for _ in range(3))
    return (f"<inertial><pose>{_pose_text(rng, 0.1)}</pose><mass>{rng.uniform(0.5, 3):.4f}</mass>"
            f"<inertia><ixx>{a:.5f}</ixx><iyy>{b:.5f}</iyy><izz>{c:.5f}</izz>"
            "<ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>")


def _link(rng: random.Random, name: str, pose: str) -> str:
    return (f'<link name="{name}">{pose}{_inertial(rng)}'
            f'<visual name="v"><pose>{_pose_text(rng, 0.1)}</pose><geometry><box><size>0.1 0.2 0.3'
            '</size></box></geometry></visual>'
            f'<collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry>'
            '</collision></link>')


def _joint(rng: random.Random, name: str, parent: str, child: str, kind: str) -> str:
    pose = ""
    r = rng.random()
    if r < 0.4:
        pose = f"<pose>{_pose_text(rng, 0.2)}</pose>"
    elif r < 0.6:
        pose = f'<pose relative_to="{parent}">{_pose_text(rng, 0.2)}</pose>'
    axis = ""
    if kind != "fixed":
        expressed = ' expressed_in="__model__"' if rng.random() < 0.3 else ""
        limit = ("<limit><lower>-1</lower><upper>1.5</upper><effort>10</effort>"
                 "<velocity>2</velocity></limit>") if kind in ("revolute", "prismatic") else ""
        axis = f"<axis><xyz{expressed}>{_unit(rng)}</xyz>{limit}</axis>"
    return (f'<joint name="{name}" type="{kind}">{pose}<parent>{parent}</parent>'
            f"<child>{child}</child>{axis}</joint>")


def make_part(rng: random.Random, index: int) -> tuple[Part, str]:
    """A part model and its SDFormat text."""
    part = Part(file=f"part_{index}.sdf", model=f"part_{index}")
    body = []
    n = rng.randint(1, 3)
    for i in range(n):
        name = f"L{i}"
        if i == 0:
            pose = f"<pose>{_pose_text(rng, 0.3)}</pose>" if rng.random() < 0.5 else ""
        elif rng.random() < 0.5:
            pose = f'<pose relative_to="L{i - 1}">{_pose_text(rng, 0.5)}</pose>'
        else:
            pose = f"<pose>{_pose_text(rng, 0.5)}</pose>"
        body.append(_link(rng, name, pose))
        part.links.append(name)
    for i in range(1, n):
        kind = rng.choice(["revolute", "prismatic", "continuous", "fixed"])
        body.append(_joint(rng, f"J{i}", f"L{i - 1}", f"L{i}", kind))
    part.root_frames.append("L0")
    part.frames.extend(part.links)
    for k in range(rng.randint(1, 3)):
        link = rng.choice(part.links)
        rel = rng.choice([link, *part.links])
        pose = (f'<pose relative_to="{rel}">{_pose_text(rng, 0.4)}</pose>' if rel != link
                else f"<pose>{_pose_text(rng, 0.4)}</pose>")
        body.append(f'<frame name="F{k}" attached_to="{link}">{pose}</frame>')
        part.frames.append(f"F{k}")
        if link == "L0":
            part.root_frames.append(f"F{k}")
    if rng.random() < 0.4:
        rel = rng.choice(part.frames)
        body.append(f'<model name="sub"><pose relative_to="{rel}">{_pose_text(rng, 0.3)}</pose>'
                    + _link(rng, "S", f"<pose>{_pose_text(rng, 0.2)}</pose>")
                    + f'<frame name="tip" attached_to="S"><pose>{_pose_text(rng, 0.1)}</pose>'
                    "</frame></model>")
        body.append(_joint(rng, "JS", rng.choice(part.links), "sub::S",
                           rng.choice(["revolute", "fixed"])))
        part.frames.extend(["sub", "sub::S", "sub::tip"])
    model_pose = f"<pose>{_pose_text(rng, 1.0)}</pose>" if rng.random() < 0.3 else ""
    text = (f'<?xml version="1.0"?>\n<sdf version="1.9"><model name="{part.model}">'
            f"{model_pose}{''.join(body)}</model></sdf>\n")
    return part, text


def _include(name: str, part: Part, placement: str, pose: str) -> str:
    pf = f"<placement_frame>{placement}</placement_frame>" if placement else ""
    return f"<include><uri>file://{part.file}</uri><name>{name}</name>{pf}{pose}</include>"


def _connected_includes(rng: random.Random, parts: list[Part], names: list[str],
                        allow_free: bool) -> tuple[list[str], bool]:
    """Include elements for ``names`` (each placed on an earlier one and joined to it, or
    left free) and whether they form one tree."""
    out: list[str] = []
    placed: list[tuple[str, Part]] = []
    tree = True
    for name in names:
        part = rng.choice(parts)
        if not placed:
            pose = f"<pose>{_pose_text(rng, 1.0)}</pose>" if rng.random() < 0.8 else ""
            out.append(_include(name, part, "", pose))
            placed.append((name, part))
            continue
        prev_name, prev = rng.choice(placed)
        free = allow_free and rng.random() < 0.2
        rel = rng.choice(prev.frames)
        offset = _pose_text(rng, 0.3) if rng.random() < 0.5 else ""
        placement = rng.choice(part.frames if free else part.root_frames)
        pose = f'<pose relative_to="{prev_name}::{rel}">{offset}</pose>'
        out.append(_include(name, part, placement, pose))
        if free:
            tree = False
        elif not offset and rel != "sub" and rng.random() < 0.6:
            out.append(_joint(rng, f"weld_{name}", f"{prev_name}::{rel}",
                              f"{name}::{placement}", "fixed"))
        else:
            kind = rng.choice(["revolute", "prismatic", "fixed", "continuous"])
            child = rng.choice(part.root_frames)
            parent = rng.choice([f for f in prev.frames if f != "sub"])   # 12.3: no models
            out.append(_joint(rng, f"joint_{name}", f"{prev_name}::{parent}",
                              f"{name}::{child}", kind))
        placed.append((name, part))
    return out, tree


def make_assembly(folder: Path, seed: int) -> Assembly:
    """Write one random assembly into ``folder`` (created) and describe it."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    for k in range(3):
        part, text = make_part(rng, k)
        (folder / part.file).write_text(text)
        parts.append(part)
    names = [f"inst_{i}" for i in range(rng.randint(2, 4))]
    body, tree = _connected_includes(rng, parts, names, allow_free=True)
    if rng.random() < 0.4:
        # A nested model grouping two includes, joined to the first include.
        inner, inner_tree = _connected_includes(rng, parts, ["g0", "g1"], allow_free=False)
        body.append(f'<model name="group"><pose relative_to="inst_0">{_pose_text(rng, 1.0)}'
                    f"</pose>{''.join(inner)}</model>")
        first = next(p for p in parts if f"file://{p.file}</uri><name>g0<" in inner[0])
        body.append(_joint(rng, "group_joint", f"inst_0::{rng.choice(parts[0].links[:1])}",
                           f"group::g0::{rng.choice(first.root_frames)}", "revolute"))
        tree = tree and inner_tree
    top = folder / "top.sdf"
    top.write_text('<?xml version="1.0"?>\n<sdf version="1.9"><model name="top">'
                   + "".join(body) + "</model></sdf>\n")
    if rng.random() < 0.25:
        (folder / "ground.sdf").write_text(
            '<?xml version="1.0"?>\n<sdf version="1.9"><model name="ground"><static>true</static>'
            + _link(rng, "slab", "") + "</model></sdf>\n")
        world = folder / "world.sdf"
        world.write_text(
            '<?xml version="1.0"?>\n<sdf version="1.9"><world name="lab">'
            f"<include><uri>file://ground.sdf</uri><pose>{_pose_text(rng, 2.0)}</pose></include>"
            f"<include><uri>file://top.sdf</uri><name>asm_a</name><pose>{_pose_text(rng, 2.0)}"
            "</pose></include>"
            "<include><uri>file://top.sdf</uri><name>asm_b</name>"
            f"<placement_frame>inst_0::L0</placement_frame><pose relative_to='asm_a::inst_0'>"
            f"{_pose_text(rng, 1.0)}</pose></include></world></sdf>\n")
        return Assembly(folder, world, True, False, seed, "lab")
    return Assembly(folder, top, False, tree, seed, "top")


# -- by hand: the figures ---------------------------------------------------------------------

def _main(count: int) -> None:   # pragma: no cover - a report, run by hand
    import tempfile
    sys.path.insert(0, str(REPO))
    from tests.plugins.test_composite_round_trip import check_assembly
    oracle, why = oracle_binary()
    if oracle is None:
        sys.exit(why)
    totals: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(count):
            asm = make_assembly(Path(tmp) / f"a{seed}", seed)
            for writer, problems in check_assembly(asm, oracle).items():
                ok, n = totals.setdefault(writer, [0, 0])
                totals[writer] = [ok + (not problems), n + 1]
                if problems:
                    print(f"seed {seed} {writer}: {problems[:3]}")
    for writer, (ok, n) in totals.items():
        print(f"{writer}: {ok} of {n} assemblies place every link")


if __name__ == "__main__":   # pragma: no cover
    _main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
