"""The pose table names the model node of every key: the node the document's own walk
(``subtree_keys``, through includes) reaches under that key, an included file's nodes
serving each of its instances."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapframe.core.live.keys import ROOT, subtree_keys
from snapframe.core.loading import LoadContext, load
from snapframe.core.model import Include

EXAMPLES = Path(__file__).resolve().parents[3] / "resources" / "examples"


@pytest.mark.parametrize("path", ["arm_gripper/arm_and_gripper.sdf",
                                  "flanges/super_armio_bros.sdf",
                                  "openplx/clock.openplx"])
def test_every_key_names_the_node_the_document_walk_reaches(path):
    doc = load(EXAMPLES / path, LoadContext())
    table = doc.live.poses
    walked = dict(subtree_keys(doc.root, ROOT))
    keys = [k for k in table.keys if k != ROOT]
    assert keys
    for key in keys:
        node = table.node(key)
        if key in walked and not isinstance(walked[key], Include):
            assert node is walked[key], key
        assert node is not None


def test_instances_of_one_included_file_share_its_nodes():
    doc = load(EXAMPLES / "flanges/super_armio_bros.sdf", LoadContext())
    table = doc.live.poses
    by_node: dict[int, list[str]] = {}
    for key in table.keys:
        node = table.node(key)
        if node is not None:
            by_node.setdefault(id(node), []).append(key)
            # and keys_of, the inverse, lists the key under the node's id
            assert key in table.keys_of(node.id)
    assert any(len(keys) > 1 for keys in by_node.values())
