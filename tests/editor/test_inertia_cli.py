"""`snapframe inertia`: the JSON contract, scoped names through includes, --write."""

import json
import math
import subprocess
import sys

PART = """<sdf version="1.11"><model name="part">
  <link name="body"><pose>5 0 0 0 0 0</pose>
    <inertial auto="true"/>
    <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
  </link></model></sdf>"""

TOP = """<sdf version="1.11"><model name="top">
  <frame name="f"><pose>0 0 1 0 0 0</pose></frame>
  <link name="l">
    <inertial auto="true"><density>2</density></inertial>
    <collision name="box"><pose>0 0 -0.5 0 0 0</pose>
      <geometry><box><size>1 1 1</size></box></geometry></collision>
    <collision name="cyl"><density>4</density><pose relative_to="f">0 0 -0.5 0 0 0</pose>
      <geometry><cylinder><radius>0.5</radius><length>1</length></cylinder></geometry></collision>
  </link>
  <link name="plain"/>
  <include><uri>part.sdf</uri><name>p1</name></include>
  <include><uri>part.sdf</uri><name>p2</name><static>true</static></include>
</model></sdf>"""


def run(*args):
    p = subprocess.run([sys.executable, "-m", "snapframe.editor.cli", *map(str, args)],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_json_for_every_link_at_every_depth(write_files):
    root = write_files({"part.sdf": PART, "top.sdf": TOP})
    code, out, err = run("inertia", root / "top.sdf", "--json")
    data = json.loads(out)
    assert code == 0, err
    links = data["links"]
    # libsdformat Link_TEST ResolveAutoInertialsWithMultipleCollisions: box rho 2 at z=-0.5
    # and cylinder r=0.5 L=1 rho 4 at z=+0.5 (here written relative to frame f at z=1).
    l = links["top::l"]
    assert math.isclose(l["mass"], 2 + math.pi, rel_tol=1e-12)
    assert math.isclose(l["ixx"], 2.013513, rel_tol=1e-6)
    assert math.isclose(l["izz"], 0.72603, rel_tol=1e-5)
    assert l["pose"][:3] == [0.0, 0.0, round(math.pi / 2 / (2 + math.pi) - 1 / (2 + math.pi), 12)]
    # No <inertial>: SDFormat's default.
    assert links["top::plain"] == {"mass": 1.0, "pose": [0.0, 0, 0, 1.0, 0, 0, 0], "ixx": 1.0,
                                   "iyy": 1.0, "izz": 1.0, "ixy": 0.0, "ixz": 0.0, "iyz": 0.0}
    # Included link: a 1 m cube of the default density 1000 (166.667 about each axis).
    assert links["top::p1::body"]["mass"] == 1000.0
    assert math.isclose(links["top::p1::body"]["ixx"], 1000 / 6)
    # A static include skips the computation; the link is listed with what the file says.
    assert links["top::p2::body"]["static"] is True and links["top::p2::body"]["mass"] == 1.0
    assert "static" not in links["top::p1::body"]


def test_write_fills_values_and_keeps_auto(write_files):
    root = write_files({"part.sdf": PART, "top.sdf": TOP})
    out = root / "with_values.sdf"
    code, _, err = run("inertia", root / "top.sdf", "--write", out)
    assert code == 0, err
    text = out.read_text()
    assert '<inertial auto="true">' in text and "<mass>5.14159265358979" in text
    assert "<density>2</density>" in text and "<uri>part.sdf</uri>" in text
    _, again, _ = run("inertia", out, "--json")
    _, before, _ = run("inertia", root / "top.sdf", "--json")
    a, b = json.loads(again)["links"]["top::l"], json.loads(before)["links"]["top::l"]
    assert all(math.isclose(a[k], b[k], rel_tol=1e-12, abs_tol=1e-15)
               for k in ("mass", "ixx", "iyy", "izz"))


def test_invalid_hand_written_inertia_is_an_error(write_files):
    root = write_files({"bad.sdf": """<sdf version="1.11"><model name="m"><link name="l">
      <inertial><mass>2</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>5</izz></inertia></inertial>
      </link></model></sdf>"""})
    code, out, _ = run("inertia", root / "bad.sdf", "--json")
    err = json.loads(out)["errors"][0]
    assert code == 1 and err["code"] == "LINK_INERTIA_INVALID" and err["line"] == 2  # the <inertial>
    assert "triangle inequality" in err["message"]
