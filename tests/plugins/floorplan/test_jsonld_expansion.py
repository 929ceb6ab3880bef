"""JSON-LD processing: pyld is the reference, the contexts are ours, nothing is fetched.

* The fast expansion gives exactly what ``pyld.jsonld.expand`` gives, on every real file.
* The bundled contexts (plugins/floorplan/contexts, written for Snapframe) define the same
  terms as the published ones pinned in tests/data/floorplan/contexts: the processed term
  definitions are equal, and every real file expands the same with either set.
* Unknown remote contexts are a FloorPlanError naming the file and the URL, and no socket
  is ever opened (the socket module is patched to fail).
"""
from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from snapframe.plugins.floorplan.context_loader import CONTEXT_FILES, CONTEXT_FOLDER
from snapframe.plugins.floorplan.errors import FloorPlanError
from snapframe.plugins.floorplan.expansion import Expander, expand, expand_with_pyld
from snapframe.plugins.floorplan.jsonld import load_jsonld
from tests.plugins.floorplan.jsonld_cases import (DATA, EXAMPLES, JSONLD, STUDIO, pinned_contexts,
                                                  studio_with_door)

FILES = sorted([*JSONLD.glob("*/*.json"), *STUDIO.glob("jsonld/*.json"),
                *STUDIO.glob("door-jsonld/*.json")])
XSD_DOUBLE = "http://www.w3.org/2001/XMLSchema#double"


def _doc(path: Path):
    return json.loads(path.read_text())


def test_there_are_real_files_to_compare():
    assert len(FILES) == 5 * 6 + 6 + 3


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fast_expansion_is_pyld_expansion(path):
    base = path.resolve().as_uri()
    fast = expand(_doc(path), path, base)
    reference = expand_with_pyld(_doc(path), path, base)
    assert fast.fast and not reference.fast
    assert fast.nodes == reference.nodes


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bundled_contexts_expand_like_the_published_ones(path):
    base = path.resolve().as_uri()
    published = Expander(pinned_contexts()).expand_with_pyld(_doc(path), path, base)
    assert expand(_doc(path), path, base).nodes == published.nodes


def test_bundled_contexts_define_the_published_terms():
    from pyld import jsonld
    from pyld.context_resolver import ContextResolver

    def processed(document: dict) -> dict:
        def no_loader(url, options=None):
            raise AssertionError(f"a context document names another one: {url}")
        options = {"documentLoader": no_loader, "base": "", "processingMode": "json-ld-1.1",
                   "contextResolver": ContextResolver({}, no_loader)}
        p = jsonld.JsonLdProcessor()
        active = p._process_context(p._get_initial_context(options), document["@context"],
                                    options)
        return {k: {kk: vv for kk, vv in dict(v).items()} if v else v
                for k, v in active["mappings"].items()}

    pinned = pinned_contexts()
    assert set(CONTEXT_FILES) == set(pinned)
    for url, relative in CONTEXT_FILES.items():
        ours = json.loads((CONTEXT_FOLDER / relative).read_text())
        assert processed(ours) == processed(pinned[url]), url


def test_a_term_the_context_does_not_define_is_dropped():
    # floorplan.json links a space to its features by "feature", which the floorplan
    # context does not define (it defines "features"): spec-compliant processing drops it.
    path = STUDIO / "jsonld" / "floorplan.json"
    result = expand(_doc(path), path, path.as_uri())
    assert result.dropped == [("lab", "feature"), ("hall", "feature")]   # @id as written
    space = next(n for n in result.nodes if n["@id"].endswith("/lab"))
    assert not any(k.endswith("feature") or k.endswith("features") for k in space)
    # typed numbers, lists of IRIs relative to @base
    wall = next(n for n in result.nodes if n["@id"].endswith("/lab-wall-0"))
    assert wall["https://secorolab.github.io/metamodels/floorplan/floorplan#thickness"] == \
        [{"@type": XSD_DOUBLE, "@value": 0.2}]


def test_other_json_ld_shapes_go_through_pyld(tmp_path):
    # An embedded node object is outside the flat shape the fast walk handles.
    document = {
        "@context": ["https://comp-rob2b.github.io/metamodels/geometry/structural-entities.json"],
        "@graph": [{"@id": "https://example.org/f", "@type": "Frame",
                    "origin": {"@id": "https://example.org/o", "@type": "Point"}}]}
    result = expand(document, tmp_path / "x.json")
    assert not result.fast
    assert result.nodes == expand_with_pyld(document, tmp_path / "x.json").nodes
    origin = result.nodes[0]["https://comp-rob2b.github.io/metamodels/geometry/"
                             "structural-entities#origin"]
    assert origin[0]["@id"] == "https://example.org/o"


def test_unknown_remote_context_names_file_and_url(tmp_path):
    folder = tmp_path / "plan"
    folder.mkdir()
    document = _doc(STUDIO / "jsonld" / "floorplan.json")
    url = "https://example.org/contexts/floorplan-v9.json"
    document["@context"].append(url)
    (folder / "floorplan.json").write_text(json.dumps(document))
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(folder)
    assert caught.value.file == str(folder / "floorplan.json")
    assert caught.value.element == url and url in str(caught.value)


def test_unknown_context_inside_a_node_is_found_too(tmp_path):
    url = "https://example.org/nested.json"
    document = {"@context": "https://comp-rob2b.github.io/metamodels/qudt.json",
                "@graph": [{"@context": url, "@id": "https://example.org/n", "unit": "M"}]}
    with pytest.raises(FloorPlanError) as caught:
        expand(document, tmp_path / "n.json")
    assert caught.value.element == url


def test_the_old_v1_dialect_is_refused_by_its_context(tmp_path):
    # v1 outputs name hbrs-sesame contexts, which are not bundled (a different metamodel).
    with pytest.raises(FloorPlanError) as caught:
        load_jsonld(DATA / "fpm-v1" / "hbrs-jsonld-v1")
    assert "hbrs-sesame.github.io" in caught.value.element
    assert caught.value.file.endswith(".json")


@pytest.fixture
def no_network(monkeypatch):
    """Every way to reach the network fails the test (after pyld is imported: urllib3
    binds one socket to ::1 at import, see the next test)."""
    import pyld.jsonld  # noqa: F401
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise AssertionError(f"network access attempted: {args!r}")

    for name in ("connect", "connect_ex", "sendto", "sendmsg"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "gethostbyname", refuse)
    return calls


def test_no_network_is_ever_used(no_network, tmp_path):
    for name in EXAMPLES:
        load_jsonld(JSONLD / name)
    plan = load_jsonld(studio_with_door(tmp_path))
    assert len(plan.doors) == 1
    for path in FILES[:6]:
        expand_with_pyld(_doc(path), path, path.as_uri())
    # an unknown context is refused, not fetched
    document = {"@context": "https://example.org/remote.json", "@graph": []}
    with pytest.raises(FloorPlanError):
        expand(document, tmp_path / "remote.json")
    with pytest.raises(FloorPlanError):
        expand_with_pyld(document, tmp_path / "remote.json")
    assert no_network == []


def test_importing_pyld_and_reading_a_plan_makes_no_network_call():
    # pyld's imports (requests, urllib3, its aiohttp loader module) must not connect
    # anywhere: a fresh interpreter whose sockets refuse every connection and name lookup
    # imports it and reads the hospital folder.  (urllib3 creates one IPv6 socket at import
    # and binds it to ::1 to probe IPv6 support: local, no traffic, so creating and binding
    # sockets is allowed here.)
    import subprocess
    import sys
    code = (
        "import os, socket\n"
        "def refuse(*a, **k):\n"
        "    print('network access attempted', a); os._exit(3)\n"
        "for name in ('connect', 'connect_ex', 'sendto', 'sendmsg'):\n"
        "    setattr(socket.socket, name, refuse)\n"
        "socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "socket.gethostbyname = refuse\n"
        "import pyld.jsonld\n"
        "from snapframe.plugins.floorplan.jsonld import load_jsonld\n"
        f"plan = load_jsonld({str(JSONLD / 'hospital')!r})\n"
        "print(len(plan.walls))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "18"
