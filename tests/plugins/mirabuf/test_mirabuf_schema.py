"""The committed mirabuf modules are exactly what protoc makes from our ``.proto`` files."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = ROOT / "plugins" / "mirabuf"
GENERATED = PLUGIN / "generated"
PROTOS = ("assembly", "joint", "material", "motor", "signal", "types")


def _generate_script():
    spec = importlib.util.spec_from_file_location("_mirabuf_generate", PLUGIN / "proto" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_six_mirabuf_proto_files_are_there():
    assert sorted(p.stem for p in (PLUGIN / "proto").glob("*.proto")) == sorted(PROTOS)


def test_regenerating_gives_the_committed_modules_byte_for_byte(tmp_path):
    # grpcio-tools is in the `test` extra at the version the committed modules came from;
    # another version writes another header, so this fails rather than skips.
    import grpc_tools  # noqa: F401

    written = _generate_script().generate(tmp_path)
    committed = sorted(p.name for p in GENERATED.glob("*_pb2.py"))
    assert sorted(p.name for p in written) == committed == sorted(f"{n}_pb2.py" for n in PROTOS)
    drifted = [p.name for p in written if p.read_bytes() != (GENERATED / p.name).read_bytes()]
    assert not drifted, (
        f"{drifted} differ from what plugins/mirabuf/proto/generate.py writes: rerun it "
        "(with the grpcio-tools version pinned in pyproject's test extra) and commit the result")


def test_generated_modules_import_each_other_relatively():
    for name in PROTOS:
        text = (GENERATED / f"{name}_pb2.py").read_text()
        assert "\nimport " not in text.replace("\nimport google", "")  # no bare sibling imports
        assert f"'snapframe.plugins.mirabuf.generated.{name}_pb2'" in text


def test_generated_modules_need_only_protobuf_at_run_time():
    for name in PROTOS:
        text = (GENERATED / f"{name}_pb2.py").read_text()
        assert "grpc" not in text


def test_messages_live_in_mirabufs_packages_with_mirabufs_numbers():
    from snapframe.plugins.mirabuf.generated import assembly_pb2, joint_pb2, motor_pb2

    assert assembly_pb2.Assembly.DESCRIPTOR.full_name == "mirabuf.Assembly"
    assert assembly_pb2.Assembly.__module__ == "snapframe.plugins.mirabuf.generated.assembly_pb2"
    files = {d.file.name: d.file.package for d in (
        assembly_pb2.Assembly.DESCRIPTOR, assembly_pb2.Parts.DESCRIPTOR.fields_by_name[
            "user_data"].message_type, joint_pb2.Joint.DESCRIPTOR, motor_pb2.Motor.DESCRIPTOR)}
    assert files == {"assembly.proto": "mirabuf", "types.proto": "mirabuf",
                     "joint.proto": "mirabuf.joint", "motor.proto": "mirabuf.motor"}
    fields = assembly_pb2.AssemblyData.DESCRIPTOR.fields_by_name
    assert fields["materials"].message_type.full_name == "mirabuf.material.Materials"
    assert fields["signals"].message_type.full_name == "mirabuf.signal.Signals"
    # the irregular names and numbers readers trip over
    joint = joint_pb2.Joint.DESCRIPTOR
    assert joint.fields_by_name["joint_motion_type"].number == 3
    assert [f.name for f in joint.oneofs_by_name["JointMotion"].fields] == ["rotational", "prismatic", "custom"]
    dc = motor_pb2.DCMotor.DESCRIPTOR.fields_by_name
    assert (dc["maximum_effeciency"].number, dc["advanced"].number) == (6, 16)
    assert joint_pb2.DOF.DESCRIPTOR.fields_by_name["pivotDirection"].enum_type.full_name == "mirabuf.Axis"


@pytest.mark.parametrize("name", PROTOS)
def test_each_proto_is_proto3_in_a_mirabuf_package(name):
    text = (PLUGIN / "proto" / f"{name}.proto").read_text()
    assert 'syntax = "proto3";' in text
    expected = "mirabuf" if name in ("assembly", "types") else f"mirabuf.{name}"
    assert f"package {expected};" in text
