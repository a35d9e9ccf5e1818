"""Arm NN's per-layer profile read and matched to the bridge's (acl_bridge.models.profiling.armnn_profile).

The fixture is a real profile: pyarmnn 23.08's ``IProfiler.as_json()`` over the first two
inferences of face_detection_front on CpuAcc (the first prepares weights) (ACL 24.11, emulated trixie, 2026-11-25), trimmed to a
dozen workloads and without the start/stop timestamps."""

import json
import os

import pytest

from acl_bridge.models.profiling.armnn_profile import (ArmnnProfileError, compare_profiles, fused_producers,
                                             parse_armnn_profile)
from acl_bridge.models.profiling.operator_profile import FunctionTime, OperatorProfile

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "armnn_profile_face_detection_front.json")


def _text():
    with open(FIXTURE) as f:
        return f.read()


def test_the_layers_of_a_real_profile():
    p = parse_armnn_profile(_text(), "face_detection_front.tflite")
    assert p.rounds == 2
    assert [round(s * 1e6, 3) for s in p.inference_seconds] == [233459.116, 188537.438]
    by_layer = {layer.layer: layer for layer in p.layers}
    assert list(by_layer) == ["fused-Activation:RELU:0:3-into-Conv2D:0:2", "DepthwiseConv2D:0:6", "Conv2D:0:9",
                              "Add:0:10", "Activation:RELU:0:11", "Pad:0:18", "Conv2D:0:17", "Concatenation:0:162"]
    fused = by_layer["fused-Activation:RELU:0:3-into-Conv2D:0:2"]
    assert fused.op_indices == (3, 2) and fused.workload == "NeonConvolution2dWorkload"
    assert fused.kernels == ("CpuGemmAssemblyDispatch/pretranspose_B_array", "CpuIm2ColKernel",
                             "CpuGemmAssemblyWrapperKernel/a64_hybrid_fp32_mla_4x24")
    assert [round(s * 1e6, 3) for s in fused.seconds] == [45626.993, 31848.129]
    assert fused.median_seconds == pytest.approx((45626.993 + 31848.129) / 2 * 1e-6)
    assert by_layer["DepthwiseConv2D:0:6"].kernels == (
        "CpuDepthwiseConv2dAssemblyWrapperKernel/a64_fp32_nhwc_3x3_s1_output4x4_mla_depthfirst",)
    # constants, copies and the working memory carry no TFLite operator
    others = {o.layer for o in p.others}
    assert "Constant:conv2d/Kernel" in others and "Working Memory Allocation" in others
    assert "CopyMemGeneric_Execute" in others
    assert p.total_median_seconds == pytest.approx(sum(layer.median_seconds for layer in p.layers))


def test_last_keeps_the_last_runs():
    p = parse_armnn_profile(_text(), last=1)
    assert p.rounds == 1 and p.inference_seconds == pytest.approx((0.188537438,))
    assert all(len(layer.seconds) == 1 for layer in p.layers)


def _bridge(rows):
    return OperatorProfile("face_detection_front.tflite", "neon", 2,
                           tuple(FunctionTime(k, op, opcode, kind, (), seconds)
                                 for k, (op, opcode, kind, seconds) in enumerate(rows)))


def test_operators_matched_through_either_runtime_s_fusion():
    """The bridge folds RELU 3 into convolution 2 and RELU 11 into ADD 10 (in place); Arm NN
    fuses 3 into 2 and runs 11 on its own: rows {2, 3} and {10, 11} hold both sides."""
    armnn = parse_armnn_profile(_text())
    bridge = _bridge([(2, "CONV_2D+RELU", "convolution", (0.030, 0.032)), (6, "DEPTHWISE_CONV_2D", "depthwise", (0.01, 0.01)),
                      (9, "CONV_2D", "convolution", (0.012, 0.010)), (10, "ADD", "addition", (0.001, 0.001)),
                      (11, "RELU", "activation", (0.0015, 0.0015)), (17, "CONV_2D", "convolution", (0.02, 0.02)),
                      (18, "PAD", "pad", (0.002, 0.002))])
    c = compare_profiles(bridge, armnn, fused_into={3: 2})
    rows = {r.op_indices: r for r in c.rows}
    assert set(rows) == {(2, 3), (6,), (9,), (10,), (11,), (17,), (18,), (162,)}
    r = rows[(2, 3)]
    assert r.bridge == ("CONV_2D+RELU (convolution)",) and r.armnn == ("fused-Activation:RELU:0:3-into-Conv2D:0:2",)
    assert r.bridge_seconds == pytest.approx(0.031)
    assert r.armnn_seconds == pytest.approx((0.045626993 + 0.031848129) / 2)
    assert r.ratio == pytest.approx(r.bridge_seconds / r.armnn_seconds)
    assert rows[(162,)].bridge == () and rows[(162,)].ratio is None  # the bridge's concatenation is views
    assert c.bridge_total_seconds == pytest.approx(bridge.total_median_seconds)
    assert c.armnn_total_seconds == pytest.approx(armnn.total_median_seconds)
    assert c.armnn_other_seconds == pytest.approx(sum(o.median_seconds for o in armnn.others))
    d = c.as_dict()
    assert json.loads(json.dumps(d)) == d and len(d["operators"]) == 8
    text = c.text()
    assert "a64_hybrid_fp32_mla_4x24" in text and "pretranspose" not in text and "(view)" in text


def test_fused_producers_from_the_model_s_tensors():
    operators = {0: ((0,), (1,)), 1: ((1,), (2,)), 2: ((2, 5), (3,)), 3: ((3,), (4,))}
    assert fused_producers((1, 3), operators) == {1: 0, 3: 2}
    assert fused_producers((0,), operators) == {}  # a graph input has no producer


@pytest.mark.parametrize("text,why", [
    ("not json", "not JSON"), ("[1, 2]", "no 'ArmNN' object"), ('{"ArmNN": {}}', "no 'inference_measurements'"),
    ('{"ArmNN": {"inference_measurements_#1": {"type": "Event"}}}', "0 'Execute' events"),
    ('{"ArmNN": {"inference_measurements_#1": {"type": "Event", "Execute_#2": {"type": "Event", '
     '"Conv2D:0:1_NeonConvolution2dWorkload_Execute_#3": {"type": "Event"}}}}}', "no 'Wall clock time_#N'"),
    ('{"ArmNN": {"inference_measurements_#1": {"type": "Event", "Execute_#2": {"type": "Event", '
     '"Conv2D:0:1_NeonConvolution2dWorkload_Execute_#3": {"type": "Event", "Wall clock time_#3": '
     '{"type": "Measurement", "raw": [1], "unit": "fortnights"}}}}}}', "unit 'fortnights'"),
])
def test_what_is_not_a_profile_is_named(text, why):
    with pytest.raises(ArmnnProfileError, match=why):
        parse_armnn_profile(text)
