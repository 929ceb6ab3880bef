#!/usr/bin/env python3
"""Regenerate ``golden/*.json`` and ``golden/MANIFEST.json`` with the libsdformat 12.3 oracle.

Usage (from anywhere)::

    tests/oracle/build.sh                        # once: needs apt-get install libsdformat-dev
    python3 tests/data/sdformat/make_golden.py   # runs the oracle on every corpus file
    python3 tests/data/sdformat/make_golden.py --check   # only compare, write nothing

For every ``*.sdf`` below ``valid/``, ``invalid/`` and ``models/`` the oracle is run with
``tests/data/sdformat/models`` as its model path, and its JSON (Snapframe's ``frames``
contract) is stored as ``golden/<path with / replaced by __>.json``.  File paths in errors
are relative to this folder.  The manifest records, per file, whether libsdformat 12.3
accepts it, the error codes it returned, anything it printed on its console, crashes,
the catalogue number (sdformat.md section 1.2) and -- where 12.3 is older than the spec
the project follows -- a ``spec_differs`` reason with the spec's answer.

Each run is limited to 2 GB of address space: libsdformat 12.3 recurses without end on an
include cycle and otherwise grows to ~20 GB before it dies.

The script also checks the hand-derived numbers of the catalogue (``EXPECTED_POSES``)
against the oracle output and exits non-zero if one disagrees.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ORACLE = REPO / "tests" / "oracle" / "build" / "sdf_oracle"
GOLDEN = HERE / "golden"
MODELS = HERE / "models"
MEMORY_LIMIT = 2 * 1024 ** 3
TIMEOUT_S = 120

PI = math.pi
HALF_PI = math.pi / 2

# ---------------------------------------------------------------------------------------
# Where each file comes from, and what the spec says where 12.3 disagrees.
# "catalogue": numbers of /work/shared/reference/sdformat.md section 1.2 ("P" = the
# SDFormat 1.8 composition proposal, with its section).  Files not listed get "-".
INFO: dict[str, dict] = {
    # --- valid -------------------------------------------------------------------------
    "valid/placement/world_placement_frame.sdf": {"catalogue": "#1"},
    "valid/placement/model_placement_frame_attribute.sdf": {"catalogue": "#7"},
    "valid/placement/world_include_placement_attribute.sdf": {"catalogue": "#7"},
    "valid/placement/world_include_nested_placement_attribute.sdf": {"catalogue": "#6"},
    "valid/nested/model_relative_to_nested_reference.sdf": {"catalogue": "#2"},
    "valid/nested/world_relative_to_nested_reference.sdf": {"catalogue": "#3"},
    "valid/nested/nested_model_with_frames.sdf": {"catalogue": "#4"},
    "valid/nested/nested_model_with_sibling_frames.sdf": {"catalogue": "#5"},
    "valid/nested/two_level_include.sdf": {"catalogue": "#4 (include of an include)"},
    "valid/nested/model_nested_model_relative_to.sdf": {"catalogue": "#8"},
    "valid/nested/nested_model.sdf": {"catalogue": "#9"},
    "valid/nested/multi_nested_model.sdf": {"catalogue": "#9"},
    "valid/nested/static_frame_only_include.sdf": {"catalogue": "#13"},
    "valid/canonical/nested_canonical_link.sdf": {"catalogue": "#10"},
    "valid/canonical/nested_explicit_canonical_link.sdf": {"catalogue": "#10"},
    "valid/canonical/model_canonical_link.sdf": {"catalogue": "#10"},
    "valid/canonical/static_model_without_links.sdf": {"catalogue": "#33, section 2 (static)"},
    "valid/frames/model_frame_attached_to.sdf": {"catalogue": "#20"},
    "valid/frames/model_frame_attached_to_joint.sdf": {"catalogue": "#20"},
    "valid/frames/model_frame_attached_to_nested_model.sdf": {"catalogue": "#20"},
    "valid/frames/world_frame_attached_to.sdf": {"catalogue": "#20"},
    "valid/frames/model_frame_relative_to.sdf": {"catalogue": "#21"},
    "valid/frames/world_frame_relative_to.sdf": {"catalogue": "#21"},
    "valid/frames/model_frame_relative_to_joint.sdf": {"catalogue": "#21"},
    "valid/joints/joint_parent_frame.sdf": {"catalogue": "#23"},
    "valid/joints/joint_child_frame.sdf": {"catalogue": "#23"},
    "valid/joints/joint_nested_parent_child.sdf": {"catalogue": "#24 (J1-J5)"},
    "valid/joints/joint_nested_model_frame.sdf": {
        "catalogue": "#24 (J6, J7)",
        "spec_differs": "M1::__model__ as joint parent/child is valid from libsdformat 12.4 "
                        "(sdformat.md section 0 item 3); 12.3 reports "
                        "JOINT_PARENT_LINK_INVALID / JOINT_CHILD_LINK_INVALID.",
        "spec": {"accepted": True}},
    "valid/joints/joint_parent_model_frame.sdf": {
        "catalogue": "#25",
        "spec_differs": "__model__ as joint parent is valid from libsdformat 12.4; 12.3 "
                        "reports JOINT_PARENT_LINK_INVALID.",
        "spec": {"accepted": True}},
    "valid/joints/joint_child_model_frame.sdf": {
        "catalogue": "#25",
        "spec_differs": "__model__ as joint child is valid from libsdformat 12.4; 12.3 "
                        "reports JOINT_CHILD_LINK_INVALID.",
        "spec": {"accepted": True}},
    "valid/world/world_frames.sdf": {"catalogue": "#3, #20, #21 (world frames)"},
    "valid/world/world_joint.sdf": {
        "catalogue": "#26, P 1.2.4",
        "spec_differs": "//world/joint is SDFormat 1.10 (libsdformat 13): 12.3 prints "
                        "'Unable to convert from SDF version 1.10 to 1.9', returns no error "
                        "and silently drops the world joints, so they are missing from "
                        "the frames listing.",
        "spec": {"accepted": True, "extra_frames": ["top_model_weld", "hinge"]}},
    "valid/scoping/proposal_model_scoping.sdf": {"catalogue": "P 1.3.2 (model example)"},
    "valid/scoping/proposal_world_scoping.sdf": {"catalogue": "P 1.3.2 (world example)"},
    "valid/scoping/include_custom_name.sdf": {"catalogue": "P 1.4.2"},
    "valid/scoping/include_placement_mug_on_table.sdf": {"catalogue": "P 1.4.3, 1.4.4"},
    "valid/composition/arm_gripper/arm.sdf": {"catalogue": "P Examples 1.1"},
    "valid/composition/arm_gripper/gripper.sdf": {"catalogue": "P Examples 1.1"},
    "valid/composition/arm_gripper/arm_and_gripper.sdf": {"catalogue": "P Examples 1.1"},
    "valid/composition/flanges/arm.sdf": {"catalogue": "P Examples 2"},
    "valid/composition/flanges/flange_electric.sdf": {"catalogue": "P Examples 2"},
    "valid/composition/flanges/flange_pneumatic.sdf": {"catalogue": "P Examples 2"},
    "valid/composition/flanges/gripper.sdf": {"catalogue": "P Examples 2"},
    "valid/composition/flanges/super_armio_bros.sdf": {"catalogue": "P Examples 2"},
    # --- models (include targets, also checked standalone) ------------------------------
    "models/model_with_frames/model.sdf": {"catalogue": "#1, #4 (include target)"},
    "models/model_with_nested_placement_frame/model.sdf": {"catalogue": "#6"},
    "models/model_with_frames_assembly/model.sdf": {"catalogue": "#4 (include of an include)"},
    "models/frame_only_model/model.sdf": {"catalogue": "#13"},
    "models/box_without_config/model.sdf": {"catalogue": "#16 (include target)"},
    "models/mid_model/model.sdf": {"catalogue": "P 1.4.2"},
    "models/mug/model.sdf": {"catalogue": "P 1.4.3, 1.4.4"},
    "models/table/model.sdf": {"catalogue": "P 1.4.4"},
    # --- invalid: proposal scoping ERROR lines ------------------------------------------
    **{f"invalid/scoping/{n}.sdf": {"catalogue": "P 1.3.2 (model example, ERROR line)"} for n in (
        "model_link_pose_unknown_frame", "model_link_pose_own_model_scope",
        "model_mid_link_pose_parent_scope", "model_bottom_link_pose_parent_scope",
        "model_bottom_link_pose_parent_scoped_name", "model_bottom_link_pose_grandparent_scope",
        "model_bottom_frame_attached_own_scope", "model_mid_frame_attached_parent_scope",
        "model_mid_frame_attached_bad_scope", "model_mid_frame_attached_own_scope")},
    **{f"invalid/scoping/{n}.sdf": {"catalogue": "P 1.3.2 (world example, ERROR line)"} for n in (
        "world_frame_attached_world_scope", "world_model_frame_attached_world_frame",
        "world_link_pose_own_model_scope")},
    "invalid/scoping/world_joint_child_unscoped.sdf": {
        "catalogue": "P 1.3.2 (world example, INVALID //world/joint line)",
        "spec_differs": "SDFormat 1.10 world joints are dropped by 12.3 without an error "
                        "(console only), so the bad child name is never checked.",
        "spec": {"accepted": False, "codes": ["JOINT_CHILD_LINK_INVALID"]}},
    "invalid/scoping/include_name_original_scope.sdf": {"catalogue": "P 1.4.2 (INVALID line)"},
    "invalid/scoping/include_pose_into_included_scope.sdf": {"catalogue": "P 1.4.3 (ERROR line)"},
    "invalid/scoping/bad_gripper_with_weld.sdf": {"catalogue": "P Examples 1.2"},
    "invalid/scoping/bad_arm_and_gripper.sdf": {
        "catalogue": "P Examples 1.2",
        "spec_differs": "12.3 checks joint parent/child names only for top-level models "
                        "(parser.cc checkJointParentChildNames); the included gripper's "
                        "joint parent arm::body is never checked, so the file loads. The "
                        "proposal requires the error (each file is standalone).",
        "spec": {"accepted": False, "codes": ["JOINT_PARENT_LINK_INVALID"]}},
    # --- invalid: names ----------------------------------------------------------------
    "invalid/names/duplicate_link.sdf": {"catalogue": "section 2 (names), #35"},
    "invalid/names/duplicate_joint.sdf": {"catalogue": "section 2 (names)"},
    "invalid/names/name_collision_link_frame.sdf": {"catalogue": "section 2 (names), #32"},
    "invalid/names/name_collision_link_nested_model.sdf": {"catalogue": "section 2 (names)"},
    "invalid/names/duplicate_world_model.sdf": {"catalogue": "section 2 (names)"},
    "invalid/names/duplicate_include_name.sdf": {"catalogue": "#30 (name collision)"},
    "invalid/names/reserved_link_name.sdf": {"catalogue": "section 2 (reserved names)"},
    "invalid/names/reserved_frame_name.sdf": {"catalogue": "section 2 (reserved names)"},
    "invalid/names/reserved_model_name.sdf": {"catalogue": "section 2 (reserved names)"},
    "invalid/names/world_named_link.sdf": {"catalogue": "section 2 (reserved names)"},
    "invalid/names/world_named_frame.sdf": {"catalogue": "section 2 (reserved names)"},
    "invalid/names/double_colon_link_name.sdf": {"catalogue": "#35 (DoubleColonNameAttrError), P 1.3.1"},
    "invalid/names/double_colon_model_name.sdf": {"catalogue": "P 1.3.1"},
    "invalid/names/double_colon_frame_name.sdf": {"catalogue": "P 1.3.1"},
    # --- invalid: canonical link -------------------------------------------------------
    "invalid/canonical/canonical_link_not_found.sdf": {"catalogue": "#35, section 4.2"},
    "invalid/canonical/canonical_link_is_frame.sdf": {
        "catalogue": "section 4.2",
        "note": "12.3 reports this as FRAME_ATTACHED_TO_CYCLE (the model frame is attached "
                "to F, which is attached to the model frame), not as an invalid canonical "
                "link."},
    "invalid/canonical/canonical_link_nested_not_found.sdf": {"catalogue": "#10 (negative)"},
    "invalid/canonical/model_without_link.sdf": {"catalogue": "section 4.2"},
    "invalid/canonical/nested_without_links.sdf": {"catalogue": "#11"},
    "invalid/canonical/world_model_without_link.sdf": {"catalogue": "section 4.2"},
    # --- invalid: frames ---------------------------------------------------------------
    "invalid/frames/attached_to_unknown.sdf": {"catalogue": "#22"},
    "invalid/frames/attached_to_self.sdf": {"catalogue": "#22"},
    "invalid/frames/attached_to_cycle.sdf": {"catalogue": "#22"},
    "invalid/frames/world_frame_attached_to_unknown.sdf": {"catalogue": "#22"},
    "invalid/frames/world_frame_attached_to_scope.sdf": {"catalogue": "#33"},
    "invalid/frames/relative_to_unknown.sdf": {"catalogue": "#22, #35"},
    "invalid/frames/relative_to_self.sdf": {"catalogue": "#22"},
    "invalid/frames/relative_to_cycle.sdf": {"catalogue": "#22"},
    "invalid/frames/joint_relative_to_unknown.sdf": {"catalogue": "#35"},
    "invalid/frames/world_model_relative_to_unknown.sdf": {"catalogue": "#22"},
    "invalid/frames/top_level_pose_relative_to.sdf": {"catalogue": "section 2 (top-level pose)"},
    "invalid/frames/relative_to_root.sdf": {"catalogue": "section 2 (__root__)"},
    # --- invalid: joints ---------------------------------------------------------------
    "invalid/joints/parent_same_as_child.sdf": {"catalogue": "#35, section 4.2"},
    "invalid/joints/parent_resolves_to_child.sdf": {"catalogue": "#35, section 4.2"},
    "invalid/joints/child_world.sdf": {"catalogue": "#26 (model form), section 2"},
    "invalid/joints/parent_not_found.sdf": {"catalogue": "#35"},
    "invalid/joints/child_not_found.sdf": {"catalogue": "#35"},
    "invalid/joints/self_child.sdf": {"catalogue": "#35"},
    "invalid/joints/nested_parent_not_found.sdf": {
        "catalogue": "section 2 (joint checks)",
        "spec_differs": "12.3 checks joint parent/child names only for top-level models; "
                        "a nested model's joint with an unknown parent loads without error.",
        "spec": {"accepted": False, "codes": ["JOINT_PARENT_LINK_INVALID"]}},
    # --- invalid: placement frames -----------------------------------------------------
    "invalid/placement/include_placement_frame_without_pose.sdf": {"catalogue": "#35 (PlacementFrameMissingPose)"},
    "invalid/placement/include_placement_frame_unknown.sdf": {"catalogue": "section 2 (placement)"},
    "invalid/placement/model_placement_frame_unknown.sdf": {"catalogue": "section 2 (placement)"},
    "invalid/placement/nested_model_placement_frame_unknown.sdf": {"catalogue": "section 2 (placement)"},
    "invalid/placement/placement_frame_root.sdf": {"catalogue": "section 2 (placement, __root__)"},
    # --- invalid: includes -------------------------------------------------------------
    "invalid/includes/missing_include.sdf": {"catalogue": "#35 (IncludesErrors)"},
    "invalid/includes/missing_include_file.sdf": {"catalogue": "#35"},
    "invalid/includes/missing_model_config.sdf": {"catalogue": "#16"},
    "invalid/includes/include_missing_uri.sdf": {"catalogue": "section 2 (includes)"},
    "invalid/includes/include_world_file.sdf": {"catalogue": "section 2 (includes), P 1.4.1"},
    **{f"invalid/includes/{n}": {
        "catalogue": "include cycle",
        "spec_differs": "libsdformat 12.3 has no include-cycle check: it recurses until it "
                        "runs out of memory or stack (SIGSEGV after ~60 s and ~19.5 GB RSS "
                        "without a limit; std::bad_alloc / SIGABRT under a 2 GB address-space "
                        "limit).  Snapframe reports its own INCLUDE_CYCLE.",
        "spec": {"accepted": False, "codes": ["INCLUDE_CYCLE"]}} for n in (
        "include_cycle/a.sdf", "include_cycle/b.sdf", "self_include/self.sdf")},
    # --- invalid: XML --------------------------------------------------------------------
    "invalid/xml/malformed_unclosed_tag.sdf": {"catalogue": "#19 (XML syntax error chain)"},
    "invalid/xml/malformed_attribute.sdf": {"catalogue": "#19 (XML syntax error chain)"},
    "invalid/xml/empty_file.sdf": {"catalogue": "section 4 (FILE_READ)"},
    "invalid/xml/missing_model_name.sdf": {"catalogue": "section 4 (ATTRIBUTE_MISSING)"},
    "invalid/xml/bad_pose_value.sdf": {"catalogue": "section 4 (ELEMENT_INVALID)"},
    "invalid/xml/no_version.sdf": {"catalogue": "section 4 (FILE_READ)"},
}

# Codes that only follow from a root cause (sdformat.md section 0 item 5 and 4.3).
DERIVED_CODES = {"FRAME_ATTACHED_TO_GRAPH_ERROR", "POSE_RELATIVE_TO_GRAPH_ERROR"}
WRAPPER_MESSAGES = ("Error reading element", "Failed to load a world", "Unable to read file",
                    "Unable to parse sdf element", "Errors were found when checking")


# ---------------------------------------------------------------------------------------
# Hand-derived numbers from the catalogue, checked against the oracle's output.
def _q_rpy(r: float, p: float, y: float) -> tuple[float, float, float, float]:
    cr, sr = math.cos(r / 2), math.sin(r / 2)
    cp, sp = math.cos(p / 2), math.sin(p / 2)
    cy, sy = math.cos(y / 2), math.sin(y / 2)
    return (cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy)


def _q_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


P_PLACE = (0, 10, 0, HALF_PI, 0, 0)
F1_OF_M1 = _q_mul(_q_rpy(0, 0, HALF_PI), _q_rpy(HALF_PI, 0, 0))
EXPECTED_POSES: dict[str, dict[str, tuple]] = {
    "valid/placement/world_placement_frame.sdf": {
        "no_placement_frame": P_PLACE,
        "placement_link::L4": P_PLACE, "placement_frame::F2": P_PLACE,
        "placement_joint::J2": P_PLACE, "placement_model_frame": P_PLACE,
        "placement_nested_model::M2": P_PLACE, "placement_nested_link::M2::L5": P_PLACE,
        "placement_link_relative_to::L4": P_PLACE,
        "frame_1": (-1, 10, 0, HALF_PI, 0, 0),
        "parent_model::placement_link::L4": P_PLACE,
        "parent_model::placement_frame::F2": P_PLACE,
        "parent_model::placement_joint::J2": P_PLACE,
        "parent_model::placement_nested_model::M2": P_PLACE,
        "parent_model::placement_link_relative_to::L4": P_PLACE,
        "attribute_link::L4": P_PLACE, "attribute_frame::F2": P_PLACE,
        "attribute_joint::J2": P_PLACE, "attribute_nested_model::inner": P_PLACE,
        "attribute_relative_to::L4": P_PLACE},
    "valid/placement/world_include_placement_attribute.sdf": {
        "model_placement_frame": (0, -2, 10, 0, 0, 0),
        "model_placement_frame::link2": (0, 0, 10, 0, 0, 0)},
    "valid/placement/world_include_nested_placement_attribute.sdf": {
        "as_authored": (0, -2, 10, 0, 0, 0),
        "parent_model::nested_as_authored": (0, -2, 10, 0, 0, 0),
        "overridden::child_model::link3": P_PLACE,
        "parent_model::nested_overridden::child_model::link3": P_PLACE},
    "valid/nested/model_relative_to_nested_reference.sdf": {
        "parent_model::M2": (1, 0, -2, 0, HALF_PI, 0),
        "parent_model::M3": (1, 1, -3, 0, HALF_PI, 0),
        "parent_model::M4": (2, 0, -4, 0, HALF_PI, 0),
        "parent_model::M5": (2, 0, -6, 0, HALF_PI, 0),
        "parent_model::M6": (1, 1, -6, HALF_PI, HALF_PI, 0),
        "parent_model::M7": (1, -6, -1, 0, 0, -HALF_PI)},
    "valid/nested/world_relative_to_nested_reference.sdf": {
        "F2": (1, 0, -2, 0, HALF_PI, 0), "F3": (1, 1, -3, 0, HALF_PI, 0),
        "F4": (2, 0, -4, 0, HALF_PI, 0), "F5": (2, 0, -6, 0, HALF_PI, 0),
        "F6": (1, 1, -6, HALF_PI, HALF_PI, 0), "F7": (1, -6, -1, 0, 0, -HALF_PI)},
    "valid/nested/nested_model_with_frames.sdf": {
        "ParentModel::M1": (10, 0, 0, 0, 0, HALF_PI),
        "ParentModel::M1::F1": ((10, 0, 0), F1_OF_M1),
        "ParentModel::M1::F2": ((10, 0, 0), _q_mul(F1_OF_M1, _q_rpy(0, PI / 4, 0))),
        "ParentModel::M1::L1": ((10, 0, 0), F1_OF_M1),
        "ParentModel::M1::L2": ((10, 1, 0), F1_OF_M1),
        "ParentModel::M1::J1": ((10, 0, 0), F1_OF_M1)},
    "valid/nested/nested_model_with_sibling_frames.sdf": {
        "ParentModel::testFrame": (0, 5, 0, 0, 0, -HALF_PI),
        "ParentModel::M1": (0, -5, 0, 0, 0, 0),
        "ParentModel::M1::F1": (0, -5, 0, HALF_PI, 0, 0),
        "ParentModel::M1::L2": (1, -5, 0, HALF_PI, 0, 0)},
    "valid/nested/model_nested_model_relative_to.sdf": {
        "model_nested_model_relative_to::M1": (1, 0, 0, 0, HALF_PI, 0),
        "model_nested_model_relative_to::M2": (2, 0, 0, 0, 0, 0),
        "model_nested_model_relative_to::M3": (1, 0, -3, 0, HALF_PI, 0)},
    "valid/nested/multi_nested_model.sdf": {
        "outer_model::mid_model::inner_model::inner_link": (1, 0, 0, 0, HALF_PI, 0)},
    "valid/nested/static_frame_only_include.sdf": {
        "static_parent::frames::F1": (1, 2, 3, PI, 0, 0),
        "static_parent::frames::F2": ((1, 2, 3), _q_mul(_q_rpy(PI, 0, 0), _q_rpy(0, PI, 0)))},
    "valid/frames/model_frame_relative_to.sdf": {
        "model_frame_relative_to::F0": (0, 1, 0, 0, 0, 0),
        "model_frame_relative_to::F1": (1, 0, 1, 0, 0, 0),
        "model_frame_relative_to::F2": (1, 0, 2, 0, 0, 0),
        "model_frame_relative_to::F3": (1, 0, 3, 0, 0, 0),
        "model_frame_relative_to::F4": (1, 0, 3, 0, 0, 0)},
    "valid/frames/world_frame_relative_to.sdf": {
        "F0": (1, 0, 0, 0, 0, 0), "F1": (3, 0, 0, 0, 0, 0), "F2": (3, 0, 0, 0, 0, 0),
        "M2": (0, 0, 4, 0, 0, 0), "M3": (0, 0, 9, 0, 0, 0), "M4": (3, 0, 6, 0, 0, 0)},
    "valid/frames/model_frame_relative_to_joint.sdf": {
        "model_frame_relative_to_joint::J": (2, 3, 0, 0, 0, 0),
        "model_frame_relative_to_joint::F3": (2, 3, 3, 0, HALF_PI, 0),
        "model_frame_relative_to_joint::F4": (6, 3, 3, 0, 0, 0)},
    "valid/joints/joint_parent_frame.sdf": {
        "joint_parent_frame::joint": (0, 1, 10, 0, 0, 0),
        "joint_parent_frame::parent_frame": (1, 0, 1, 0, 0, 0)},
    "valid/joints/joint_child_frame.sdf": {
        "joint_child_frame::joint": (1, 1, 10, 0, 0, 0),
        "joint_child_frame::child_frame": (1, 0, 10, 0, 0, 0)},
    "valid/joints/joint_nested_parent_child.sdf": {
        "joint_nested_parent_child::J1": (0, 0, 9, 0, HALF_PI, 0),
        "joint_nested_parent_child::J2": (0, 1, 10, 0, HALF_PI, 0),
        "joint_nested_parent_child::J3": (1, 1, 1, 0, 0, 0),
        "joint_nested_parent_child::J4": (1, 0, 1, 0, 0, 0),
        "joint_nested_parent_child::J5": (0, -1, 1, HALF_PI, 0, 0)},
    "valid/joints/joint_nested_model_frame.sdf": {
        "joint_nested_model_frame::J6": (1, 0, 10, 0, HALF_PI, 0),
        "joint_nested_model_frame::J7": (0, 0, 1, 0, 0, 0)},
    "valid/composition/arm_gripper/arm_and_gripper.sdf": {
        "arm_and_gripper::arm::gripper_mount": (0, 0, 1.0, 0, 0, HALF_PI),
        "arm_and_gripper::gripper::mount_point": (0, 0, 1.0, 0, 0, HALF_PI),
        "arm_and_gripper::gripper": (0, 0, 1.02, 0, 0, PI / 4),
        "arm_and_gripper::weld": (0, 0, 1.0, 0, 0, HALF_PI)},
    "valid/composition/flanges/super_armio_bros.sdf": {
        "super_armio_bros::robot_1": (0, -0.5, 0, 0, 0, 0),
        "super_armio_bros::robot_1::flange::mount": (0.35, -0.5, 0.6, 0, HALF_PI, 0),
        "super_armio_bros::robot_1::flange": (0.37, -0.5, 0.6, 0, HALF_PI, 0),
        "super_armio_bros::robot_1::gripper::mount": (0.39, -0.5, 0.6, 0, HALF_PI, 0),
        "super_armio_bros::robot_1::gripper": (0.415, -0.5, 0.6, 0, HALF_PI, 0),
        "super_armio_bros::robot_2": (0, 0.5, 0, 0, 0, PI),
        "super_armio_bros::robot_2::gripper": (
            (-0.455, 0.5, 0.6),
            _q_mul(_q_mul(_q_rpy(0, 0, PI), _q_rpy(0, HALF_PI, 0)), _q_rpy(0, 0, HALF_PI)))},
    "valid/scoping/proposal_model_scoping.sdf": {
        "top_model::top_link": (1, 0, 1, 0, 0, 0),
        "top_model::mid_model": (1, 1, 1, 0, 0, 0),
        "top_model::mid_model::bottom_model::bottom_link": (1, 1, 3, 0, 0, 0),
        "top_model::mid_model::bottom_model_2::bottom_link": (4, 1, 0.5, 0, 0, 0),
        "top_model::mid_model::mid_to_bottom": (1, 1, 3, 0, 0, 0)},
    "valid/scoping/proposal_world_scoping.sdf": {
        "world_scope_frame": (0, 0, 1, 0, 0, 0), "top_model": (2, 0, 1, 0, 0, 0),
        "top_model::top_link": (2, 0, 1.5, 0, 0, 0)},
    "valid/scoping/include_placement_mug_on_table.sdf": {
        "super_model::table": (2.55, 0.65, 0, 0, 0, 0),
        "super_model::table::top_center": (2.55, 0.65, 0.77, 0, 0, 0),
        "super_model::mug::bottom_center": (2.55, 0.65, 0.77, 0, 0, 0)},
    "valid/world/world_frames.sdf": {
        "robot": (1, 0.5, 0.8, 0, 0, HALF_PI),
        "robot::wrist::flange": (1, 0.5, 1.2, 0, 0, HALF_PI),
        "tool_view": ((1, 0.5, 1.25), _q_mul(_q_rpy(0, 0, HALF_PI), _q_rpy(PI, 0, 0)))},
}


def _expected_quat_pose(spec) -> tuple[tuple, tuple]:
    if len(spec) == 2:
        xyz, q = spec
    else:
        xyz, q = spec[:3], _q_rpy(*spec[3:])
    return tuple(float(v) for v in xyz), q


def check_expected(rel: str, frames: dict) -> list[str]:
    problems = []
    for name, spec in EXPECTED_POSES.get(rel, {}).items():
        got = frames.get(name)
        if got is None:
            problems.append(f"{rel}: {name} missing from the oracle output")
            continue
        xyz, q = _expected_quat_pose(spec)
        p = got["pose"]
        dq = abs(sum(a * b for a, b in zip(q, p[3:])))  # |<q1,q2>| = 1 for the same rotation
        if max(abs(a - b) for a, b in zip(xyz, p[:3])) > 1e-9 or 1 - dq > 1e-12:
            problems.append(f"{rel}: {name} is {p}, expected xyz {xyz} quat {q}")
    return problems


# ---------------------------------------------------------------------------------------
def corpus_files() -> list[Path]:
    files = []
    for top in ("valid", "invalid", "models"):
        files += sorted((HERE / top).rglob("*.sdf"))
    return files


def golden_name(rel: str) -> str:
    return rel.replace("/", "__") + ".json"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_oracle(path: Path) -> dict:
    cmd = [str(ORACLE), "--path", str(MODELS), "--relative-to", str(HERE), str(path)]
    env = dict(os.environ)
    env.pop("SDF_PATH", None)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                              preexec_fn=_limit_memory, env=env)
    except subprocess.TimeoutExpired:
        return {"crash": f"timeout after {TIMEOUT_S} s"}
    result: dict = {"returncode": proc.returncode, "console": proc.stderr.strip()}
    if proc.returncode < 0:
        result["crash"] = signal.Signals(-proc.returncode).name
        return result
    try:
        result["json"] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        result["crash"] = f"exit {proc.returncode} without JSON output"
    return result


def write_readme_table(files: dict[str, dict]) -> None:
    """Replace the "## Cases" section of README.md with a table made from the manifest."""
    readme = HERE / "README.md"
    if not readme.exists():
        return
    rows = ["| File | Catalogue | 12.3 accepts? | 12.3 error codes (root causes) | Spec differs |",
            "|---|---|---|---|---|"]
    for rel, e in files.items():
        accepted = f"crash ({e['crashed']})" if "crashed" in e else ("yes" if e["accepted"] else "no")
        codes = ", ".join(e.get("root_error_codes", [])) or "–"
        rows.append(f"| `{rel}` | {e['catalogue']} | {accepted} | {codes} | "
                    f"{'yes' if 'spec_differs' in e else ''} |")
    head = readme.read_text().split("## Cases")[0]
    readme.write_text(head + "## Cases\n\nGenerated by `make_golden.py` from "
                      "`golden/MANIFEST.json`.\n\n" + "\n".join(rows) + "\n")


def _strip_ansi(text: str) -> str:
    import re
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="compare with the stored golden files instead of writing them")
    args = ap.parse_args()
    if not ORACLE.exists():
        print(f"oracle not built: run {REPO / 'tests/oracle/build.sh'}", file=sys.stderr)
        return 2

    manifest_files: dict[str, dict] = {}
    problems: list[str] = []
    written: set[str] = set()
    for path in corpus_files():
        rel = path.relative_to(HERE).as_posix()
        info = INFO.get(rel, {})
        if not info:
            problems.append(f"{rel}: no INFO entry (catalogue / source)")
        out = run_oracle(path)
        entry: dict = {"catalogue": info.get("catalogue", "-")}
        if "crash" in out:
            entry.update(accepted=False, crashed=out["crash"], error_codes=[], golden=None)
        else:
            data = out["json"]
            codes = [e["code"] for e in data["errors"]]
            roots = [e["code"] for e in data["errors"]
                     if e["code"] not in DERIVED_CODES
                     and not e["message"].startswith(WRAPPER_MESSAGES)]
            if codes and not roots:  # only wrappers (e.g. XML syntax errors): keep the first
                roots = codes[:1]
            entry.update(accepted=not codes, error_codes=codes,
                         root_error_codes=list(dict.fromkeys(roots)),
                         frame_count=len(data["frames"]), golden=golden_name(rel))
            text = json.dumps(data, indent=1) + "\n"
            target = GOLDEN / golden_name(rel)
            written.add(target.name)
            if args.check:
                if not target.exists() or json.loads(target.read_text()) != data:
                    problems.append(f"{rel}: oracle output differs from {target.name}")
            else:
                GOLDEN.mkdir(exist_ok=True)
                target.write_text(text)
            problems += check_expected(rel, data["frames"])
        console = _strip_ansi(out.get("console", "")).replace(str(HERE) + "/", "")
        if console:
            entry["console"] = console[:2000]
        for key in ("spec_differs", "spec", "note"):
            if key in info:
                entry[key] = info[key]
        manifest_files[rel] = entry

    for rel in EXPECTED_POSES:
        if rel not in manifest_files:
            problems.append(f"{rel}: listed in EXPECTED_POSES but not in the corpus")
    stale = sorted(p.name for p in GOLDEN.glob("*.json")
                   if p.name != "MANIFEST.json" and p.name not in written)
    if stale:
        problems.append(f"stale golden files: {stale}")

    version = subprocess.run(["pkg-config", "--modversion", "sdformat12"], capture_output=True,
                             text=True).stdout.strip() or "12.3.0"
    manifest = {
        "oracle": "tests/oracle/sdf_oracle (libsdformat " + version + ")",
        "command": "sdf_oracle --path tests/data/sdformat/models "
                   "--relative-to tests/data/sdformat FILE",
        "regenerate": "python3 tests/data/sdformat/make_golden.py",
        "notes": [
            "accepted: Root::Load returned no errors.  error_codes: every returned code in "
            "order; root_error_codes: without *_GRAPH_ERROR and wrapper messages (or the "
            "first code when every error is a wrapper).",
            "spec_differs: libsdformat 12.3 is older than the spec the project follows; "
            "'spec' gives the spec's answer.  Snapframe follows the spec there.",
            "Include URIs: model://NAME is found in tests/data/sdformat/models; file:// paths "
            "are relative to the including file.",
            "Console output (not part of sdf::Errors) is kept in 'console'.",
        ],
        "summary": {
            "files": len(manifest_files),
            "accepted": sum(1 for e in manifest_files.values() if e["accepted"]),
            "rejected": sum(1 for e in manifest_files.values()
                            if not e["accepted"] and "crashed" not in e),
            "crashed": sum(1 for e in manifest_files.values() if "crashed" in e),
            "spec_differs": sum(1 for e in manifest_files.values() if "spec_differs" in e),
        },
        "files": manifest_files,
    }
    mtext = json.dumps(manifest, indent=1) + "\n"
    if args.check:
        old = GOLDEN / "MANIFEST.json"
        if old.exists():
            a, b = json.loads(old.read_text()), json.loads(mtext)
            a.pop("oracle", None), b.pop("oracle", None)
            if a != b:
                problems.append("MANIFEST.json differs")
    else:
        (GOLDEN / "MANIFEST.json").write_text(mtext)
        write_readme_table(manifest_files)

    s = manifest["summary"]
    print(f"{s['files']} files: {s['accepted']} accepted, {s['rejected']} rejected, "
          f"{s['crashed']} crashed; {s['spec_differs']} where 12.3 differs from the spec")
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
