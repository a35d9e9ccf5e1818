"""The runner on int8 steps (the int8-contract): plans built by hand (the lowering of int8
operators lives on its own branch), run on ACL against a numpy chain of the same steps.

The plan: float32 input -> quantize -> convolution (per-channel weights, RELU6) -> depthwise
(per-tensor weights) -> add (three scales) -> global average pooling -> reshape (a view) ->
fully connected -> requantize -> softmax (1/256, -128) -> dequantize -> float32 output; and
the same without the first and last steps: int8 in, int8 out. Checked:

* graph input and output keep the model's dtypes; a wrong input dtype is refused, not cast;
* outputs within 2 quantization steps of the numpy chain (each step rounds once; ACL's
  fixed-point rounding may differ by one step per step), the count of exact elements printed;
* bytes copied per inference: the input, plus what the bridge staged (counted);
* one native call per inference;
* ACL 20.08 refuses depthwise with per-channel weights at load, naming the operator, the
  types and ACL's own validate() message.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from function_cases import _round_half_away, conv_ref, depthwise_ref, pool_ref, requantize  # noqa: E402

pytestmark = pytest.mark.acl

QX = (0.03, -2)       # the int8 input
Q1 = (0.05, -10)      # convolution output (RELU6: clamped to [zp, 6/scale + zp])
Q2 = (0.04, 3)        # depthwise output
Q3 = (0.06, -1)       # add output
Q4 = (0.06, -1)       # pooled (same as its input, as TFLite's pooling requires)
Q5 = (0.08, 4)        # fully-connected output
Q6 = (0.02, -6)       # requantized
QS = (1 / 256, -128)  # softmax output


def _model(float_edges: bool, depthwise_per_channel: bool = False):
    """(Plan, constants) of the chain; float_edges: float32 in and out around the int8 body."""
    from acl_bridge.models.lowering.step import Step
    from acl_bridge.models.planning.tflite_plan import Plan, View
    from acl_bridge.models.format.tflite_reader import ModelSpec, OperatorSpec, TensorSpec

    rng = np.random.default_rng(7)
    w1 = rng.integers(-80, 81, (6, 3, 3, 3)).astype(np.int8)
    s1 = tuple(float(v) for v in rng.uniform(0.004, 0.02, 6))
    b1 = rng.integers(-500, 500, 6).astype(np.int32)
    w2 = rng.integers(-80, 81, (3, 3, 6)).astype(np.int8)
    s2 = tuple(float(v) for v in rng.uniform(0.01, 0.03, 6)) if depthwise_per_channel else 0.02
    b2 = rng.integers(-300, 300, 6).astype(np.int32)
    w3 = rng.integers(-100, 101, (4, 6)).astype(np.int8)
    s3 = 0.015
    b3 = rng.integers(-200, 200, 4).astype(np.int32)

    shapes = [(1, 8, 8, 3), (1, 8, 8, 3), (1, 8, 8, 6), (1, 8, 8, 6), (1, 8, 8, 6), (1, 1, 1, 6), (1, 6), (1, 4),
              (1, 4), (1, 4), (1, 4)]
    dtypes = [np.float32] + [np.int8] * 9 + [np.float32]
    tensors = tuple(TensorSpec(i, f"t{i}", s, np.dtype(d)) for i, (s, d) in enumerate(zip(shapes, dtypes)))

    def q(**roles):
        return ("quantization", tuple(roles.items()))

    def bias_q(sx, sw):
        return (tuple(sx * v for v in sw), 0) if isinstance(sw, tuple) else (sx * sw, 0)

    steps = [
        Step(0, "QUANTIZE", "quantize", (0,), 1, (q(dst=QX),)),
        Step(1, "CONV_2D", "convolution", (1,), 2,
             (("stride", (1, 1)), ("padding", (1, 1, 1, 1)), ("activation", "bounded_relu"), ("act_a", 6.0),
              ("act_b", 0.0), q(src=QX, weights=(s1, 0), bias=bias_q(QX[0], s1), dst=Q1)),
             (("weights", w1), ("bias", b1))),
        Step(2, "DEPTHWISE_CONV_2D", "depthwise", (2,), 3,
             (("stride", (1, 1)), ("padding", (1, 1, 1, 1)), ("depth_multiplier", 1),
              q(src=Q1, weights=(s2, 0), bias=bias_q(Q1[0], s2), dst=Q2)),
             (("weights", w2), ("bias", b2))),
        Step(3, "ADD", "add", (2, 3), 4, (q(a=Q1, b=Q2, dst=Q3),)),
        Step(4, "AVERAGE_POOL_2D", "pooling", (4,), 5,
             (("pool_type", "avg"), ("kernel", (8, 8)), ("stride", (1, 1)), ("padding", (0, 0, 0, 0)),
              q(src=Q3, dst=Q4))),
        Step(6, "FULLY_CONNECTED", "fully_connected", (6,), 7,
             (q(src=Q4, weights=(s3, 0), bias=(Q4[0] * s3, 0), dst=Q5),), (("weights", w3), ("bias", b3))),
        Step(7, "QUANTIZE", "quantize", (7,), 8, (q(src=Q5, dst=Q6),)),
        Step(8, "SOFTMAX", "softmax", (8,), 9, (("beta", 1.0), q(src=Q6, dst=QS))),
        Step(9, "DEQUANTIZE", "dequantize", (9,), 10, (q(src=QS),)),
    ]
    inputs, outputs = ((0,), (10,)) if float_edges else ((1,), (9,))
    if not float_edges:
        steps = steps[1:-1]
    operators = tuple(OperatorSpec(s.op_index, s.opcode, s.inputs, (s.output,)) for s in steps)
    model = ModelSpec(3, "int8 chain (by hand)", tensors, operators, inputs, outputs, "0" * 64)
    plan = Plan(model, tuple(steps), (View(6, 5, ("reshape",)),), ())
    return plan, dict(w1=w1, s1=s1, b1=b1, w2=w2, s2=s2, b2=b2, w3=w3, s3=s3, b3=b3)


def _dq(x, q):
    return (np.asarray(x, np.float64) - q[1]) * q[0]


def _reference(x, c, float_edges):
    """The chain in numpy: each step from the stored integers, rounded once."""
    x1 = requantize(x, *QX) if float_edges else x
    acc = conv_ref(_dq(x1, (1.0, QX[1])), c["w1"], c["b1"], (1, 1), (1, 1, 1, 1), True)
    y1 = requantize(acc * QX[0] * np.asarray(c["s1"]), *Q1, Q1[1], min(127, int(np.floor(6 / Q1[0] + 0.5)) + Q1[1]))
    acc = depthwise_ref(_dq(y1, (1.0, Q1[1])), c["w2"], c["b2"], (1, 1), (1, 1, 1, 1), True, 1)
    y2 = requantize(acc * Q1[0] * np.asarray(c["s2"]), *Q2)
    y3 = requantize(_dq(y1, Q1) + _dq(y2, Q2), *Q3)
    y4 = np.clip(_round_half_away(pool_ref(y3, "avg", (8, 8), (1, 1), (0, 0, 0, 0), True)), -128, 127)
    acc = _dq(y4.reshape(1, 6), (1.0, Q4[1])) @ c["w3"].astype(np.float64).T + c["b3"]
    y5 = requantize(acc * Q4[0] * c["s3"], *Q5)
    y6 = requantize(_dq(y5, Q5), *Q6)
    z = _dq(y6, Q6)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    y7 = requantize(e / e.sum(axis=-1, keepdims=True), *QS)
    return _dq(y7, QS) if float_edges else y7


# per_channel: the depthwise step with per-channel weights, which ACL 20.08's native depthwise
# kernel takes only with bottom rows after its 1-D bias (issue 36; docs/robustness.md)
@pytest.mark.parametrize("float_edges,per_channel", [(True, False), (False, False), (False, True)],
                         ids=["float_edges", "int8_edges", "int8_edges_per_channel_depthwise"])
def test_int8_chain_matches_numpy_in_the_models_dtypes(float_edges, per_channel):
    from ndarray.errors import ArgumentTypeError

    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    plan, c = _model(float_edges, depthwise_per_channel=per_channel)
    r = TfliteRunner(plan)
    want_in = np.float32 if float_edges else np.int8
    assert r.input_dtype == want_in and r.input_array.dtype == want_in
    rng = np.random.default_rng(1)
    x = (rng.uniform(-3, 3, r.input_shape).astype(np.float32) if float_edges
         else rng.integers(-128, 128, r.input_shape).astype(np.int8))
    with pytest.raises(ArgumentTypeError, match="nothing is cast"):
        r.run(x.astype(np.float64 if float_edges else np.int16))
    (name, got), = r.run(x).items()
    assert got.dtype == (np.float32 if float_edges else np.int8)
    want = _reference(x, c, float_edges)
    steps = np.abs(np.asarray(got, np.float64) - want) / (QS[0] if float_edges else 1.0)
    print(f"ACL {native.acl_version()} int8 chain ({'float' if float_edges else 'int8'} edges): "
          f"{int(np.sum(steps < 1e-6))} of {steps.size} outputs exact, max {steps.max():.3g} steps; {r.summary()}")
    assert steps.max() <= 2 + 1e-6, (got, want)
    cp = r.copied_bytes_per_inference
    assert cp["input"] == x.nbytes and cp["total"] == cp["input"] + cp["staged"] + cp["copy_steps"]
    assert r.schedule.native_calls_per_run == 1 or r.staged()
    if native.acl_version().startswith("24."):
        assert r.staged() == [] and cp["total"] == x.nbytes
    r.close()


def test_requantizing_steps_into_a_concatenation():
    """CONCATENATION of int8 inputs whose scales differ from the output's: the lowering gives
    ``quantize`` steps writing into the output's slices (params ``into`` and ``slice``)."""
    from acl_bridge import native
    from acl_bridge.models.lowering.step import Step
    from acl_bridge.models.planning.tflite_plan import Plan
    from acl_bridge.models.format.tflite_reader import ModelSpec, OperatorSpec, TensorSpec
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    qa, qc = (0.05, -3), (0.07, 2)
    shapes = [(1, 4, 5, 3), (1, 4, 5, 3), (1, 4, 5, 6)]
    tensors = tuple(TensorSpec(i, f"t{i}", s, np.dtype(np.int8)) for i, s in enumerate(shapes))
    q = ("quantization", (("src", qa), ("dst", qc)))
    steps = (
        Step(0, "MAX_POOL_2D", "pooling", (0,), 1,
             (("pool_type", "max"), ("kernel", (1, 1)), ("stride", (1, 1)), ("padding", (0, 0, 0, 0)),
              ("quantization", (("src", qa), ("dst", qa))))),
        Step(1, "CONCATENATION", "quantize", (0,), -1, (("into", 2), ("slice", ("slice", 3, 0)), q)),
        Step(1, "CONCATENATION", "quantize", (1,), -1, (("into", 2), ("slice", ("slice", 3, 3)), q)),
    )
    operators = (OperatorSpec(0, "MAX_POOL_2D", (0,), (1,)), OperatorSpec(1, "CONCATENATION", (0, 1), (2,)))
    plan = Plan(ModelSpec(3, "int8 concat (by hand)", tensors, operators, (0,), (2,), "0" * 64), steps, (), ())
    r = TfliteRunner(plan)
    x = np.random.default_rng(5).integers(-128, 128, shapes[0]).astype(np.int8)
    got = r.run(x)["t2"]
    half = requantize(_dq(x, qa), *qc)
    want = np.concatenate([half, half], axis=3)
    d = np.abs(got.astype(np.float64) - want)
    print(f"ACL {native.acl_version()} requantizing concatenation: {int((d == 0).sum())} of {d.size} exact, "
          f"max {d.max():.0f} steps; {r.summary()}")
    assert got.dtype == np.int8 and d.max() <= 1
    assert r.copied_bytes_per_inference["copy_steps"] == 2 * x.nbytes
    r.close()
