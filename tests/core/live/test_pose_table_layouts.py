"""The pose table of composed assemblies (seeded, with includes repeated, nested models and
free includes) holds, for every key, the pose the frame graph resolves: in particular when
the last of several instances of one include ends the table (a strided write that would
run past its end)."""

from __future__ import annotations

import numpy as np
import pytest

from snapframe.core.loading import LoadContext, load
from tests.plugins.composite_assemblies import make_assembly


@pytest.mark.parametrize("seed", [22, 0, 3, 9])
def test_every_row_is_the_frame_graph_pose(tmp_path, seed):
    asm = make_assembly(tmp_path / f"a{seed}", seed)
    doc = load(asm.top, LoadContext(search_paths=[asm.folder], use_environment=False))
    table = doc.live.poses
    top = "" if asm.is_world else f"{asm.top_name}::"
    frames = {f.name[len(top):]: f.pose for f in doc.frames.frames()
              if f.name.startswith(top) and f.kind in ("link", "joint", "frame")}
    checked = 0
    for name, X in frames.items():
        if name in table:
            assert np.allclose(table.pose(name), X.matrix(), atol=1e-9), name
            checked += 1
    assert checked > 0.9 * len(frames)
