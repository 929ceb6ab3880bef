"""The five real Synthesis exports decode with our schema, with the counts their notes list."""

from __future__ import annotations

import collections
import gzip
import hashlib
from pathlib import Path

import pytest
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from snapframe.plugins.mirabuf.generated import assembly_pb2, joint_pb2

DATA = Path(__file__).resolve().parents[2] / "data" / "mirabuf"

# sha256 and gzip per tests/data/mirabuf/README.md
FILES = {
    "Dozer_v2.mira": ("83ec2f2dc52d13b98c75e025b9dbc5fa08f2df94e81b390a194cdb7753bb4f23", False),
    "FRC_Field_2018_v14.mira": ("ae485958304ef48ef7499a7655d06d97d729286d5beb4b976291f465d1cfe09f", True),
    "HingeTestFission_v1.mira": ("9c517ef306378fc6ada05df058b9742beb5a98e2067989f50426590f59d96679", True),
    "SliderTestFission_v2.mira": ("78e1c65b59db255dad0327dbd30d217868ffd6cc4a62e74c70cd6a81d05d1c50", True),
    "TestCube_v1.mira": ("e222569ea6e7ad656fa21fddd26a6abacd9903091c30534f523a8fb86a59502e", False),
}

# The counts of tests/data/mirabuf/README.md.  "types" counts joint definitions other than
# "grounded" by motion type; "limited" says whether those joints have a non-empty range.
EXPECTED = {
    "Dozer_v2.mira": dict(dynamic=True, part_definitions=11, part_instances=12, bodies=11,
                          bodies_with_mesh=10, joint_instances=7, types={"REVOLUTE": 6},
                          limited=False, wheels=6, rigid_groups=0, appearances=9,
                          physical_materials=3, signals=6, motors=6),
    "FRC_Field_2018_v14.mira": dict(dynamic=False, part_definitions=239, part_instances=981,
                                    bodies=184, bodies_with_mesh=184, joint_instances=2,
                                    types={"REVOLUTE": 1}, limited=True, wheels=0, rigid_groups=3,
                                    appearances=38, physical_materials=7, signals=1, motors=0),
    "HingeTestFission_v1.mira": dict(dynamic=True, part_definitions=3, part_instances=5, bodies=2,
                                     bodies_with_mesh=2, joint_instances=4, types={"REVOLUTE": 3},
                                     limited=True, wheels=0, rigid_groups=0, appearances=5,
                                     physical_materials=2, signals=3, motors=3),
    "SliderTestFission_v2.mira": dict(dynamic=True, part_definitions=4, part_instances=4, bodies=3,
                                      bodies_with_mesh=3, joint_instances=3, types={"SLIDER": 2},
                                      limited=True, wheels=0, rigid_groups=0, appearances=6,
                                      physical_materials=2, signals=2, motors=2),
    "TestCube_v1.mira": dict(dynamic=True, part_definitions=2, part_instances=2, bodies=1,
                             bodies_with_mesh=1, joint_instances=1, types={}, limited=None,
                             wheels=0, rigid_groups=0, appearances=2, physical_materials=2,
                             signals=0, motors=0),
}

_cache: dict[str, bytes] = {}


def _payload(name: str) -> bytes:
    """The file's protobuf bytes: inflated when it starts with the gzip magic."""
    if name not in _cache:
        raw = (DATA / name).read_bytes()
        _cache[name] = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    return _cache[name]


def _decode(name: str) -> assembly_pb2.Assembly:
    return assembly_pb2.Assembly.FromString(_payload(name))


def _unknown_field_paths(message: Message, path: str = "Assembly") -> list[str]:
    found = [path] if len(UnknownFieldSet(message)) else []
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["value"].message_type is not None:
                found += [p for k, v in value.items()
                          for p in _unknown_field_paths(v, f"{path}.{field.name}[{k[:20]!r}]")]
        elif field.is_repeated:
            found += [p for i, v in enumerate(value)
                      for p in _unknown_field_paths(v, f"{path}.{field.name}[{i}]")]
        else:
            found += _unknown_field_paths(value, f"{path}.{field.name}")
    return found


def _counts(assembly: assembly_pb2.Assembly) -> dict:
    data = assembly.data
    bodies = [b for d in data.parts.part_definitions.values() for b in d.bodies]
    moving = {k: j for k, j in data.joints.joint_definitions.items() if k != "grounded"}
    freedoms = []
    for joint in moving.values():
        kind = joint.WhichOneof("JointMotion")
        if kind == "rotational":
            freedoms.append(joint.rotational.rotational_freedom)
        elif kind == "prismatic":
            freedoms.append(joint.prismatic.prismatic_freedom)
    limited = {f.limits.upper - f.limits.lower > 1e-3 for f in freedoms}
    assert len(limited) <= 1, "some joints limited, some not"
    return dict(
        dynamic=assembly.dynamic,
        part_definitions=len(data.parts.part_definitions),
        part_instances=len(data.parts.part_instances),
        bodies=len(bodies),
        bodies_with_mesh=sum(b.triangle_mesh.HasField("mesh") for b in bodies),
        joint_instances=len(data.joints.joint_instances),
        types=dict(collections.Counter(joint_pb2.JointMotion.Name(j.joint_motion_type)
                                       for j in moving.values())),
        limited=limited.pop() if limited else None,
        wheels=sum(j.user_data.data.get("wheel") == "true" for j in moving.values()),
        rigid_groups=len(data.joints.rigid_groups),
        appearances=len(data.materials.appearances),
        physical_materials=len(data.materials.physicalMaterials),
        signals=len(data.signals.signal_map),
        motors=len(data.joints.motor_definitions),
    )


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_copy_is_the_original(name):
    sha, gzipped = FILES[name]
    raw = (DATA / name).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == sha
    assert (raw[:2] == b"\x1f\x8b") == gzipped


@pytest.mark.parametrize("name", sorted(FILES))
def test_decodes_with_no_unknown_fields(name):
    assembly = _decode(name)
    assert len(UnknownFieldSet(assembly)) == 0
    assert _unknown_field_paths(assembly) == []
    assert assembly.info.version == 5


def test_the_unknown_field_check_sees_unknown_fields():
    # field 99 (varint 1) appended at the top level, then inside the first part definition
    top = assembly_pb2.Assembly.FromString(_payload("TestCube_v1.mira") + b"\x98\x06\x01")
    assert _unknown_field_paths(top) == ["Assembly"]
    nested = _decode("TestCube_v1.mira")
    key = next(iter(nested.data.parts.part_definitions))
    definition = nested.data.parts.part_definitions[key]
    definition.MergeFromString(b"\x98\x06\x01")
    assert [p.split("[")[0] for p in _unknown_field_paths(nested)] == ["Assembly.data.parts.part_definitions"]


@pytest.mark.parametrize("name", sorted(FILES))
def test_counts_match_the_data_notes(name):
    assert _counts(_decode(name)) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(FILES))
def test_grounded_joint_is_rigid_and_present(name):
    joints = _decode(name).data.joints
    assert "grounded" in joints.joint_instances and "grounded" in joints.joint_definitions
    assert joints.joint_definitions["grounded"].joint_motion_type == joint_pb2.RIGID


def test_field_details_from_the_notes():
    field = _decode("FRC_Field_2018_v14.mira")
    assert sorted(len(g.occurrences) for g in field.data.joints.rigid_groups) == [2, 44, 70]
    assert [d.info.name for d in field.data.parts.part_definitions.values() if d.dynamic] == ["block"]
    assert len(_payload("FRC_Field_2018_v14.mira")) == 3_139_267


@pytest.mark.parametrize("name", sorted(FILES))
def test_decode_encode_decode_is_equal(name):
    first = _decode(name)
    again = assembly_pb2.Assembly.FromString(first.SerializeToString())
    assert again == first
    # deterministic encoding is stable, and re-encoding the re-decoded message gives the same bytes
    encoded = first.SerializeToString(deterministic=True)
    assert again.SerializeToString(deterministic=True) == encoded
    assert len(encoded) == len(_payload(name))  # same fields, only map order may differ
