"""``//include/experimental:params`` reaches into the includes of the included file
(review 8, item 7).

libsdformat applies the changes to the included model with its own includes expanded, so
``inn::il`` names the link ``il`` of the model the included file includes as ``inn``.
Expected values: libsdformat 12.3 (tests/oracle/sdf_oracle) on the same files.
"""

from __future__ import annotations

import pytest

from snapframe.core.diagnostics import Code

NS = 'xmlns:experimental="http://sdformat.org/schemas/experimental"'
FILES = {
    "core.sdf": '<sdf version="1.9"><model name="core"><link name="cl"><pose>0 0 2 0 0 0</pose>'
                "</link></model></sdf>",
    "inner.sdf": '<sdf version="1.9"><model name="inner"><link name="il"><pose>0 0 1 0 0 0'
                 "</pose></link><include><uri>core.sdf</uri><name>cor</name></include>"
                 "</model></sdf>",
    "mid.sdf": f'<sdf version="1.9"><model name="mid"><link name="ml"/><include>'
               f"<uri>inner.sdf</uri><name>inn</name><experimental:params {NS}>"
               '<link element_id="il" action="modify"><pose>0 0 7 0 0 0</pose></link>'
               "</experimental:params></include><include><uri>inner.sdf</uri></include>"
               "</model></sdf>",
}


def _top(changes: str) -> str:
    return (f'<sdf version="1.9"><world name="w"><include><uri>mid.sdf</uri>'
            f"<experimental:params {NS}>{changes}</experimental:params></include>"
            "</world></sdf>")


def _z(doc) -> dict[str, float]:
    return {f.name: round(f.pose.p[2], 9) for f in doc.frames.frames()}


def test_the_reviews_reproduction(load_text):
    # top includes mid, mid includes inner as inn; the change names inn::il.
    doc = load_text(_top('<link element_id="inn::il" action="modify">'
                         "<pose>0 0 5 0 0 0</pose></link>"), files=FILES)
    assert doc.diagnostics.errors == []
    z = _z(doc)
    assert z["mid::inn::il"] == 5.0      # libsdformat: [0, 0, 5]
    assert z["mid::inner::il"] == 1.0    # the other include of the same file is untouched


def test_changes_through_two_includes_and_on_top_of_the_included_files_own(load_text):
    doc = load_text(_top(
        '<link element_id="inn::cor::cl" action="modify"><pose>0 0 9 0 0 0</pose></link>'
        '<link element_id="inner::cor::cl" action="remove"/>'
        '<link element_id="inn" action="add" name="added"><pose>0 1 0 0 0 0</pose></link>'),
        files=FILES)
    z = _z(doc)
    # libsdformat 12.3: il keeps mid's own change (7), cl moves to 9, "added" is in inn,
    # and inner::cor loses its only link (MODEL_WITHOUT_LINK).
    assert z["mid::inn::il"] == 7.0 and z["mid::inn::cor::cl"] == 9.0
    assert "mid::inn::added" in z and "mid::inner::cor::cl" not in z
    assert [str(d.code) for d in doc.diagnostics.errors] == ["MODEL_WITHOUT_LINK"]
    # The files themselves are untouched: another include of mid is read as written.
    assert {f.name for f in doc.frames.frames()} >= {"mid::inner::cor"}


def test_a_missing_element_inside_a_nested_include_is_reported_with_its_written_id(load_text):
    doc = load_text(_top('<link element_id="inn::nothere" action="modify">'
                         "<pose>0 0 9 0 0 0</pose></link>"), files=FILES)
    [error] = doc.diagnostics.errors
    assert error.code == Code.ELEMENT_MISSING
    assert "element_id='inn::nothere'" in error.message   # libsdformat's wording
    assert error.file.endswith("main.sdf") and error.line == 1


@pytest.mark.parametrize("action", ["remove", "replace"])
def test_a_nested_include_as_a_whole_can_be_removed_or_replaced(load_text, action):
    body = ' name="rep"><link name="ml2"/></model>' if action == "replace" else "/>"
    doc = load_text(_top(f'<model element_id="inn" action="{action}"{body}'), files=FILES)
    assert doc.diagnostics.errors == []
    names = {f.name for f in doc.frames.frames()}
    # libsdformat 12.3: mid::inn is gone; replaced, mid::rep and mid::rep::ml2 are there.
    assert not any(n == "mid::inn" or n.startswith("mid::inn::") for n in names)
    if action == "replace":
        assert {"mid::rep", "mid::rep::ml2"} <= names
    assert "mid::inner::il" in names


def test_modifying_a_nested_included_model_itself_reports_as_libsdformat(load_text):
    # The expanded <model> of the include has no <pose>: libsdformat reports
    # ELEMENT_MISSING "Could not find element [pose]" and keeps the model as it was.
    doc = load_text(_top('<model element_id="inn" action="modify"><pose>0 0 3 0 0 0</pose>'
                         "</model>"), files=FILES)
    [error] = doc.diagnostics.errors
    assert error.code == Code.ELEMENT_MISSING
    assert error.message.startswith("Could not find element [pose]")
    assert _z(doc)["mid::inn::il"] == 7.0
