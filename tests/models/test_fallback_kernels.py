"""The CPU fallback's kernels one by one against TFLite's interpreter (host): one-operator
models (tiny_tflite) planned with the operator forced onto the fallback (as if ACL refused
it), run by the numpy executor, compared element by element: float32 within the stated
tolerance, int8 / uint8 exactly."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models import fallback  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import UnsupportedModelError, fold_constant_dequantize, read_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs, tolerance  # noqa: E402
from .tiny_tflite import X, one_operator_model  # noqa: E402

pytestmark = host_only_under_emulation

F32 = np.float32
I32 = np.int32
ACT = "FusedActivationFunction"


def _c(v, dtype=F32):
    return np.asarray(v, dtype)


# (id, opcode, x shape, y shape, inputs, options, extra keywords of one_operator_model)
FLOAT_CASES = [
    # the data-movement rules' operators, for where ACL refuses them (20.08: batch-to-space crops)
    ("depth-to-space", "DEPTH_TO_SPACE", (1, 3, 4, 8), (1, 6, 8, 2), (X,), ("DepthToSpaceOptions", {"BlockSize": 2}), {}),
    ("space-to-depth", "SPACE_TO_DEPTH", (1, 4, 6, 3), (1, 2, 3, 12), (X,), ("SpaceToDepthOptions", {"BlockSize": 2}),
     {}),
    ("batch-to-space-crops", "BATCH_TO_SPACE_ND", (4, 3, 3, 2), (1, 5, 5, 2),
     (X, _c([2, 2], I32), _c([[0, 1], [1, 0]], I32)), None, {}),
    ("space-to-batch", "SPACE_TO_BATCH_ND", (1, 5, 6, 2), (6, 3, 2, 2), (X, _c([2, 3], I32), _c([[1, 0], [0, 0]], I32)),
     None, {}),
    ("add-broadcast-relu6", "ADD", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([0.5, -1, 2, 0])), ("AddOptions", {ACT: "RELU6"}), {}),
    ("sub-broadcast", "SUB", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c(np.arange(3).reshape(1, 1, 3, 1))), None, {}),
    ("mul-broadcast-relu", "MUL", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([1.5, -2, 0.25, 3])), ("MulOptions", {ACT: "RELU"}), {}),
    ("div", "DIV", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([1.5, -2, 0.25, 3])), None, {}),
    ("maximum", "MAXIMUM", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([0.1, -0.2, 0.3, 0])), None, {}),
    ("minimum", "MINIMUM", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([0.1, -0.2, 0.3, 0])), None, {}),
    ("logistic", "LOGISTIC", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("tanh", "TANH", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("relu", "RELU", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("relu6", "RELU6", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("hard-swish", "HARD_SWISH", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("leaky-relu", "LEAKY_RELU", (1, 2, 3, 4), (1, 2, 3, 4), (X,), ("LeakyReluOptions", {"Alpha": 0.1}), {}),
    ("exp", "EXP", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("abs", "ABS", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("neg", "NEG", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {}),
    ("mean-hw", "MEAN", (1, 4, 5, 3), (1, 3), (X, _c([1, 2], I32)), ("ReducerOptions", {"KeepDims": False}), {}),
    ("mean-last-keep", "MEAN", (1, 4, 5, 3), (1, 4, 5, 1), (X, _c([-1], I32)), ("ReducerOptions", {"KeepDims": True}), {}),
    ("sum", "SUM", (1, 4, 5, 3), (1, 4, 3), (X, _c([2], I32)), ("ReducerOptions", {"KeepDims": False}), {}),
    ("reduce-max", "REDUCE_MAX", (1, 4, 5, 3), (1, 5, 3), (X, _c([1], I32)), ("ReducerOptions", {"KeepDims": False}), {}),
    ("softmax", "SOFTMAX", (1, 10), (1, 10), (X,), ("SoftmaxOptions", {"Beta": 1.0}), {}),
    ("shape", "SHAPE", (1, 4, 5, 3), (4,), (X,), ("ShapeOptions", {"OutType": 2}), {"output_dtype": "int32"}),
    ("reshape", "RESHAPE", (1, 2, 3, 4), (1, 24), (X, _c([1, 24], I32)), None, {}),
    ("pack-axis-1", "PACK", (1, 2, 3), (1, 2, 2, 3), (X, _c(np.arange(6).reshape(1, 2, 3) - 2.5)),
     ("PackOptions", {"ValuesCount": 2, "Axis": 1}), {}),
    ("squeeze", "SQUEEZE", (1, 2, 1, 4), (2, 4), (X,), ("SqueezeOptions", {"SqueezeDims": (0, 2)}), {}),
    ("expand-dims", "EXPAND_DIMS", (2, 3), (2, 1, 3), (X, _c([1], I32)), None, {}),
    ("transpose", "TRANSPOSE", (1, 2, 3, 4), (1, 4, 2, 3), (X, _c([0, 3, 1, 2], I32)), None, {}),
    ("strided-slice", "STRIDED_SLICE", (1, 4, 6, 3), (1, 2, 3, 3),
     (X, _c([0, 1, 0, 0], I32), _c([1, 4, 6, 3], I32), _c([1, 2, 2, 1], I32)), None, {}),
    ("strided-slice-masks", "STRIDED_SLICE", (2, 4, 6), (4, 3),
     (X, _c([1, 0, 5], I32), _c([2, 0, -7], I32), _c([1, 1, -2], I32)),
     ("StridedSliceOptions", {"BeginMask": 2, "EndMask": 2, "ShrinkAxisMask": 1}), {}),
    ("strided-slice-ellipsis", "STRIDED_SLICE", (2, 3, 4, 5), (2, 3, 4, 2),
     (X, _c([0, 1], I32), _c([0, 5], I32), _c([1, 2], I32)), ("StridedSliceOptions", {"EllipsisMask": 1}), {}),
    ("strided-slice-new-axis", "STRIDED_SLICE", (4, 6), (1, 2, 6),
     (X, _c([0, 1, 0], I32), _c([0, 3, 6], I32), _c([1, 1, 1], I32)), ("StridedSliceOptions", {"NewAxisMask": 1}), {}),
    ("strided-slice-new-axis-shrink", "STRIDED_SLICE", (4, 6), (6, 1),
     (X, _c([2, 0, 0], I32), _c([3, 6, 0], I32), _c([1, 1, 1], I32)),
     ("StridedSliceOptions", {"ShrinkAxisMask": 1, "NewAxisMask": 4}), {}),
    ("slice", "SLICE", (1, 4, 6, 3), (1, 2, 5, 3), (X, _c([0, 1, 1, 0], I32), _c([1, 2, -1, 3], I32)), None, {}),
    ("gather", "GATHER", (5, 3), (4, 3), (X, _c([4, 0, 2, 2], I32)), ("GatherOptions", {"Axis": 0}), {}),
    ("gather-batch-dims", "GATHER", (2, 5, 3), (2, 4, 3), (X, _c([[4, 0, 2, 2], [1, 1, 3, 0]], I32)),
     ("GatherOptions", {"Axis": 1, "BatchDims": 1}), {}),
    ("gather-batch-dims-last-axis", "GATHER", (2, 3, 5), (2, 3, 2, 2), (X, _c([[[4, 0], [2, 2]], [[1, 3], [0, 0]]], I32)),
     ("GatherOptions", {"Axis": -1, "BatchDims": 1}), {}),
    ("pad", "PAD", (1, 2, 3, 2), (1, 4, 4, 2), (X, _c([[0, 0], [1, 1], [0, 1], [0, 0]], I32)), None, {}),
    ("padv2", "PADV2", (1, 2, 3, 2), (1, 4, 4, 2), (X, _c([[0, 0], [1, 1], [0, 1], [0, 0]], I32), _c([-2.5])), None, {}),
    ("concatenation", "CONCATENATION", (1, 2, 3, 2), (1, 2, 3, 5), (X, _c(np.arange(18).reshape(1, 2, 3, 3))),
     ("ConcatenationOptions", {"Axis": -1}), {}),
    ("pack", "PACK", (2, 3), (2, 2, 3), (X, _c(np.ones((2, 3)))), ("PackOptions", {"ValuesCount": 2, "Axis": 1}), {}),
    ("cast", "CAST", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {"output_dtype": "int32"}),
    ("tile", "TILE", (1, 2, 3), (2, 2, 6), (X, _c([2, 1, 2], I32)), None, {}),
]

Q_IN, Q_OUT, Q_C = (0.05, 3), (0.07, -5), (0.03, -2)
I8 = np.int8


def _q(**names):
    return {"input": Q_IN, "output": Q_OUT, **names}


INT8_CASES = [
    ("add-broadcast", "ADD", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([10, -100, 50, 127], I8)), None, _q(const0=Q_C)),
    ("add-relu", "ADD", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([10, -100, 50, 127], I8)), ("AddOptions", {ACT: "RELU"}),
     _q(const0=Q_C)),
    ("sub", "SUB", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([10, -100, 50, 127], I8)), None, _q(const0=Q_C)),
    ("mul", "MUL", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([10, -100, 50, 127], I8)), None, _q(const0=Q_C)),
    ("maximum", "MAXIMUM", (1, 2, 3, 4), (1, 2, 3, 4), (X, _c([10, -100, 50, 127], I8)), None,
     {"input": Q_IN, "output": Q_IN, "const0": Q_IN}),
    ("logistic", "LOGISTIC", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {"input": Q_IN, "output": (1 / 256, -128)}),
    ("tanh", "TANH", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, {"input": Q_IN, "output": (1 / 128, 0)}),
    ("relu", "RELU", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, _q()),
    ("relu6", "RELU6", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, _q()),
    ("pad", "PAD", (1, 2, 3, 2), (1, 4, 4, 2), (X, _c([[0, 0], [1, 1], [0, 1], [0, 0]], I32)), None,
     {"input": Q_IN, "output": Q_IN}),
    ("mean", "MEAN", (1, 4, 5, 3), (1, 3), (X, _c([1, 2], I32)), ("ReducerOptions", {"KeepDims": False}), _q()),
    ("softmax", "SOFTMAX", (1, 10), (1, 10), (X,), ("SoftmaxOptions", {"Beta": 1.0}),
     {"input": Q_IN, "output": (1 / 256, -128)}),
    # (TFLite 2.18 requires one scale and zero point for every int8 input and the output)
    ("concatenation", "CONCATENATION", (1, 2, 3, 2), (1, 2, 3, 5),
     (X, _c(np.arange(-9, 9).reshape(1, 2, 3, 3) * 7, I8)), ("ConcatenationOptions", {"Axis": 3}),
     {"input": Q_IN, "output": Q_IN, "const0": Q_IN}),
    ("reshape", "RESHAPE", (1, 2, 3, 4), (1, 24), (X, _c([1, 24], I32)), None, {"input": Q_IN, "output": Q_IN}),
    ("transpose", "TRANSPOSE", (1, 2, 3, 4), (1, 4, 2, 3), (X, _c([0, 3, 1, 2], I32)), None,
     {"input": Q_IN, "output": Q_IN}),
    ("strided-slice", "STRIDED_SLICE", (1, 4, 6, 3), (1, 2, 3, 3),
     (X, _c([0, 1, 0, 0], I32), _c([1, 4, 6, 3], I32), _c([1, 2, 2, 1], I32)), None, {"input": Q_IN, "output": Q_IN}),
    ("requantize", "QUANTIZE", (1, 2, 3, 4), (1, 2, 3, 4), (X,), None, _q()),
    # the data-movement rules' operators, for where ACL refuses them (20.08: crops, int8 MIRROR_PAD)
    ("space-to-batch-zero-point", "SPACE_TO_BATCH_ND", (1, 3, 4, 2), (4, 2, 2, 2),
     (X, _c([2, 2], I32), _c([[1, 0], [0, 0]], I32)), None, {"input": Q_IN, "output": Q_IN}),
    ("mirror-pad-reflect", "MIRROR_PAD", (1, 4, 5, 2), (1, 7, 7, 2), (X, _c([[0, 0], [1, 2], [2, 0], [0, 0]], I32)),
     ("MirrorPadOptions", {"Mode": 0}), {"input": Q_IN, "output": Q_IN}),
]


def _forced(model_bytes):
    """The model planned with its one operator on the fallback (as if ACL refused it)."""
    spec = fold_constant_dequantize(read_model(model_bytes))
    plan = plan_model(spec, fallback=True, acl_refused={0: "forced onto the fallback by the test"})
    assert [f.opcode for f in plan.fallbacks] == [spec.operators[0].opcode] and not plan.steps
    return plan


@pytest.mark.parametrize("case", FLOAT_CASES, ids=[c[0] for c in FLOAT_CASES])
def test_float32_kernel_matches_tflite(case):
    _, opcode, xs, ys, inputs, options, kw = case
    data = one_operator_model(opcode, xs, ys, inputs, options, **kw)
    x = np.random.default_rng(7).standard_normal(xs).astype(np.float32) * 3
    got = run_plan(_forced(data), x)["output"]
    ref = interpreter_outputs(data, x)["output"]
    assert got.dtype == ref.dtype and got.shape == ref.shape
    if ref.dtype.kind in "iu":
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=tolerance(ref))


@pytest.mark.parametrize("case", INT8_CASES, ids=[c[0] for c in INT8_CASES])
def test_int8_kernel_matches_tflite_exactly(case):
    _, opcode, xs, ys, inputs, options, quant = case
    data = one_operator_model(opcode, xs, ys, inputs, options, io_dtype="int8", quantization=quant)
    x = np.random.default_rng(7).integers(-128, 128, xs).astype(np.int8)
    got = run_plan(_forced(data), x)["output"]
    ref = interpreter_outputs(data, x, reference=True)["output"]
    np.testing.assert_array_equal(got, ref)


def test_every_kernel_is_registered_once_by_opcode():
    assert {"SHAPE", "STRIDED_SLICE", "PACK", "LOGISTIC", "PAD", "ADD", "SOFTMAX", "MEAN", "CONV_2D"} <= set(fallback.KERNELS)
    with pytest.raises(ValueError, match="opcode ABS has two fallback kernels"):
        fallback.kernel("ABS")(lambda c: None)


def test_a_dtype_the_kernel_does_not_run_is_named():
    data = one_operator_model("HARD_SWISH", (1, 4), (1, 4), io_dtype="int8",
                              quantization={"input": Q_IN, "output": Q_OUT})
    with pytest.raises(UnsupportedModelError, match=r"1 operator\(s\) run neither on ACL nor on the CPU fallback: "
                                                    r"operator #0 HARD_SWISH \(int8 HARD_SWISH \(int8 on the fallback"):
        plan_model(read_model(data), fallback=True)


def _padded(shape, dtype, guard):
    """A view of ``shape`` inside a buffer one cell larger on every side, filled with ``guard``."""
    buf = np.full(tuple(s + 2 for s in shape), guard, dtype)
    return buf, buf[tuple(slice(1, 1 + s) for s in shape)]


@pytest.mark.parametrize("case, dtype", [(c, "float32") for c in FLOAT_CASES] + [(c, "int8") for c in INT8_CASES],
                         ids=[f"float-{c[0]}" for c in FLOAT_CASES] + [f"int8-{c[0]}" for c in INT8_CASES])
def test_a_kernel_bound_once_reads_each_call_s_values_through_padded_views(case, dtype):
    """A kernel is bound to its arrays once at load (fallback.prepare: options, tables and
    indices made there); called again on other input values it gives what the numpy executor
    gives on plain arrays, reading and writing padded views, the padding cells untouched."""
    _, opcode, xs, ys, inputs, options, kw = case
    data = (one_operator_model(opcode, xs, ys, inputs, options, **kw) if dtype == "float32" else
            one_operator_model(opcode, xs, ys, inputs, options, io_dtype="int8", quantization=kw))
    plan = _forced(data)
    model, op = plan.model, plan.model.operators[0]
    (x_index,), y_index = [i for i in op.inputs if i >= 0 and not model.tensors[i].is_constant], op.outputs[0]
    x_dtype, y_dtype = model.tensors[x_index].dtype, model.tensors[y_index].dtype
    x_buf, x_view = _padded(xs, x_dtype, 77)
    y_buf, y_view = _padded(model.tensors[y_index].shape, y_dtype, 55)
    run = fallback.prepare(op, model, {x_index: x_view, y_index: y_view})
    rng = np.random.default_rng(3)
    for _ in range(2):
        x = (rng.standard_normal(xs).astype(np.float32) * 3 if x_dtype == np.float32 else
             rng.integers(-128, 128, xs).astype(x_dtype))
        x_view[...] = x
        run()
        np.testing.assert_array_equal(y_view, run_plan(plan, x)["output"])
        assert (x_buf[tuple(slice(1, 1 + s) for s in xs)] == x).all()
        inner = np.zeros(y_buf.shape, bool)
        inner[tuple(slice(1, 1 + s) for s in model.tensors[y_index].shape)] = True
        assert (y_buf[~inner] == 55).all()
