#!/usr/bin/env python3
"""Regenerate ``plugins/sdformat/spec_table.py`` from libsdformat's element descriptions.

The descriptions (``sdf/<version>/*.sdf`` in gazebosim/sdformat, Apache-2.0) say, for every
SDFormat element and attribute, its value type and any ``min``/``max``.  Snapframe checks
element values against them (``snapframe.plugins.sdformat.spec_values``).  Only facts are
taken: names, types and limits.

Usage::

    python tests/plugins/sdformat/make_spec_table.py DESCRIPTIONS_DIR
    python tests/plugins/sdformat/make_spec_table.py DESCRIPTIONS_DIR --check

``DESCRIPTIONS_DIR`` holds one folder per version (``1.4`` ... ``1.12``), each with the
``*.sdf`` description files of that version.  The project's table was made from
libsdformat 12.3.0 (tag ``sdformat12_12.3.0``) for 1.4 to 1.9 -- what the oracle checks --
and from ``main`` at 2ace5362 for 1.10 to 1.12.

The description graph is cyclic (a model holds models); equivalent nodes of all versions
are merged by partition refinement, so the table stays small.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lxml import etree

HERE = Path(__file__).resolve()
TARGET = HERE.parents[3] / "plugins" / "sdformat" / "spec_table.py"
VERSIONS = ("1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12")
ANY = "*"  # copy_data: children are free-form (plugins)


class _Node:
    __slots__ = ("type", "min", "max", "children", "attrs")

    def __init__(self) -> None:
        self.type = ""
        self.min = ""
        self.max = ""
        self.children: dict[str, _Node] = {}
        self.attrs: dict[str, tuple[str, str, str]] = {}


def _load_version(folder: Path) -> _Node:
    roots: dict[str, _Node] = {}

    def file_root(name: str) -> _Node:
        if name not in roots:
            node = _Node()
            roots[name] = node
            el = etree.parse(str(folder / name)).getroot()
            fill(node, el)
        return roots[name]

    def fill(node: _Node, el: etree._Element) -> None:
        node.type = el.get("type", "")
        node.min = el.get("min", "")
        node.max = el.get("max", "")
        for c in el:
            if not isinstance(c.tag, str):
                continue
            if c.tag == "attribute":
                node.attrs[c.get("name")] = (c.get("type", ""), c.get("min", ""), c.get("max", ""))
            elif c.tag == "element":
                if c.get("copy_data"):
                    node.type = node.type or ANY
                    continue
                ref = c.get("ref")
                if ref:
                    node.children[c.get("name")] = file_root(f"{ref}.sdf")
                    continue
                child = _Node()
                fill(child, c)
                node.children[c.get("name")] = child
            elif c.tag == "include":
                target = file_root(c.get("filename"))
                tag = etree.parse(str(folder / c.get("filename"))).getroot().get("name")
                node.children[tag] = target

    return file_root("root.sdf")


def _all_nodes(roots: list[_Node]) -> list[_Node]:
    seen: dict[int, _Node] = {}
    stack = list(roots)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen[id(n)] = n
        stack.extend(n.children.values())
    return list(seen.values())


def _minimise(nodes: list[_Node]) -> dict[int, int]:
    """Class number of each node: nodes with the same class check values identically."""
    def local(n: _Node) -> tuple:
        return (n.type, n.min, n.max, tuple(sorted(n.attrs.items())), tuple(sorted(n.children)))
    keys = {id(n): local(n) for n in nodes}
    classes = {k: i for i, k in enumerate(sorted(set(keys.values())))}
    cls = {id(n): classes[keys[id(n)]] for n in nodes}
    while True:
        sig = {id(n): (cls[id(n)], tuple((k, cls[id(c)]) for k, c in sorted(n.children.items())))
               for n in nodes}
        numbering = {s: i for i, s in enumerate(sorted(set(sig.values())))}
        new = {i: numbering[sig[i]] for i in sig}
        if len(set(new.values())) == len(set(cls.values())):
            return new
        cls = new


def build(descriptions: Path) -> str:
    roots = {v: _load_version(descriptions / v) for v in VERSIONS if (descriptions / v).is_dir()}
    nodes = _all_nodes(list(roots.values()))
    cls = _minimise(nodes)
    rep: dict[int, _Node] = {}
    for n in nodes:
        rep.setdefault(cls[id(n)], n)
    order = sorted(rep)
    index = {c: i for i, c in enumerate(order)}
    nodes = []
    for c in order:
        n = rep[c]
        children = {k: index[cls[id(v)]] for k, v in sorted(n.children.items())}
        attrs = {k: list(v) for k, v in sorted(n.attrs.items())}
        nodes.append([n.type, n.min, n.max, children, attrs])
    data = json.dumps({"nodes": nodes, "roots": {v: index[cls[id(r)]] for v, r in roots.items()}},
                      separators=(",", ":"))
    # One string constant parsed with json at import: fast to compile and to load (a
    # literal of hundreds of dicts takes tens of milliseconds to compile).
    return "\n".join([
        '"""SDFormat element value types and limits, per version (generated; do not edit).',
        "",
        "Made by ``tests/plugins/sdformat/make_spec_table.py`` from libsdformat's element",
        "descriptions (gazebosim/sdformat ``sdf/<version>/*.sdf``, Apache-2.0): 1.4-1.9 from",
        "libsdformat 12.3.0, 1.10-1.12 from main at 2ace5362.  ``NODES[i]`` is",
        "``(value type, min, max, {child element: node}, {attribute: (type, min, max)})``;",
        'a value type of "*" means free-form children (``<plugin>``).  ``ROOTS[version]`` is',
        "the node of ``<sdf>``.",
        '"""',
        "",
        "import json",
        "",
        "__all__ = [\"NODES\", \"ROOTS\"]",
        "",
        "_DATA = (",
        *(f"    {data[i:i + 96]!r}" for i in range(0, len(data), 96)),
        ")",
        "",
        "",
        "def _load() -> tuple[tuple, dict[str, int]]:",
        "    data = json.loads(_DATA)",
        "    nodes = tuple((t, low, high, children, {k: tuple(v) for k, v in attrs.items()})",
        "                  for t, low, high, children, attrs in data[\"nodes\"])",
        "    return nodes, data[\"roots\"]",
        "",
        "",
        "NODES, ROOTS = _load()",
        ""])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("descriptions", type=Path)
    ap.add_argument("--check", action="store_true", help="compare with the table; write nothing")
    args = ap.parse_args(argv)
    text = build(args.descriptions)
    if args.check:
        same = TARGET.exists() and TARGET.read_text() == text
        print("spec_table.py is up to date" if same else "spec_table.py differs")
        return 0 if same else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
