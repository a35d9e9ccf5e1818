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
    # the layers and operators bound at load (bound_layers, tables), at the models' shapes
    ("conv-10x4-stride2-same-relu", "CONV_2D", (1, 49, 10, 1), (1, 25, 5, 16),
     (X, _c(np.random.default_rng(21).standard_normal((16, 10, 4, 1)) * 0.3), _c(np.linspace(-1, 1, 16))),
     ("Conv2DOptions", {"Padding": "SAME", "StrideH": 2, "StrideW": 2, ACT: "RELU"}), {}),
    ("conv-1x1", "CONV_2D", (1, 13, 1, 40), (1, 13, 1, 24),
     (X, _c(np.random.default_rng(22).standard_normal((24, 1, 1, 40)) * 0.2), _c(np.linspace(-1, 1, 24))),
     ("Conv2DOptions", {"Padding": "VALID", "StrideH": 1, "StrideW": 1, ACT: "RELU6"}), {}),
    ("depthwise-3x3-same-relu6", "DEPTHWISE_CONV_2D", (1, 25, 5, 16), (1, 25, 5, 16),
     (X, _c(np.random.default_rng(23).standard_normal((1, 3, 3, 16))), _c(np.linspace(-1, 1, 16))),
     ("DepthwiseConv2DOptions", {"Padding": "SAME", "StrideH": 1, "StrideW": 1, ACT: "RELU6", "DepthMultiplier": 1}), {}),
    ("depthwise-9x1-multiplier2", "DEPTHWISE_CONV_2D", (1, 13, 1, 6), (1, 7, 1, 12),
     (X, _c(np.random.default_rng(24).standard_normal((1, 9, 1, 12))), _c(np.linspace(-1, 1, 12))),
     ("DepthwiseConv2DOptions", {"Padding": "SAME", "StrideH": 2, "StrideW": 1, "DepthMultiplier": 2}), {}),
    ("fully-connected-400", "FULLY_CONNECTED", (1, 400), (1, 12),
     (X, _c(np.random.default_rng(25).standard_normal((12, 400)) * 0.1), _c(np.linspace(-1, 1, 12))),
     ("FullyConnectedOptions", {ACT: "RELU"}), {}),
    ("max-pool-3x3-same-stride2", "MAX_POOL_2D", (1, 15, 13, 8), (1, 8, 7, 8), (X,),
     ("Pool2DOptions", {"Padding": "SAME", "StrideH": 2, "StrideW": 2, "FilterHeight": 3, "FilterWidth": 3}), {}),
    ("average-pool-3x3-same-counts", "AVERAGE_POOL_2D", (1, 7, 6, 8), (1, 7, 6, 8), (X,),
     ("Pool2DOptions", {"Padding": "SAME", "StrideH": 1, "StrideW": 1, "FilterHeight": 3, "FilterWidth": 3}), {}),
    ("average-pool-25x5-whole", "AVERAGE_POOL_2D", (1, 25, 5, 16), (1, 1, 1, 16), (X,),
     ("Pool2DOptions", {"Padding": "VALID", "StrideH": 25, "StrideW": 5, "FilterHeight": 25, "FilterWidth": 5}), {}),
    ("max-pool-25x5-whole", "MAX_POOL_2D", (1, 25, 5, 16), (1, 1, 1, 16), (X,),
     ("Pool2DOptions", {"Padding": "VALID", "StrideH": 25, "StrideW": 5, "FilterHeight": 25, "FilterWidth": 5}), {}),
    ("prelu-alpha-in-0-1", "PRELU", (1, 6, 6, 16), (1, 6, 6, 16), (X, _c(np.linspace(0, 1, 16).reshape(1, 1, 16))),
     None, {}),
    ("prelu-alpha-mixed", "PRELU", (1, 6, 6, 16), (1, 6, 6, 16), (X, _c(np.linspace(-2, 2, 16).reshape(1, 1, 16))),
     None, {}),
    ("concatenation-rows", "CONCATENATION", (1, 512, 16), (1, 896, 16), (X, _c(np.ones((1, 384, 16)))),
     ("ConcatenationOptions", {"Axis": 1}), {}),
    ("softmax-rows-beta", "SOFTMAX", (3, 12), (3, 12), (X,), ("SoftmaxOptions", {"Beta": 0.5}), {}),
    ("relu6-large", "RELU6", (1, 16, 16, 24), (1, 16, 16, 24), (X,), None, {}),
    ("add-same-shape", "ADD", (1, 16, 16, 24), (1, 16, 16, 24), (X, _c(np.linspace(-3, 3, 16 * 16 * 24).reshape(1, 16, 16, 24))),
     None, {}),
]

Q_IN, Q_OUT, Q_C = (0.05, 3), (0.07, -5), (0.03, -2)
I8 = np.int8


def _layer(id, opcode, xs, ys, wshape, options, per_channel_axis):
    """An int8 conv / depthwise / FC row: random int8 weights, per channel along
    ``per_channel_axis`` (None: per tensor), int32 bias of scale input x weight scale."""
    rng = np.random.default_rng(len(id))
    cout = wshape[3 if opcode == "DEPTHWISE_CONV_2D" else 0]
    w = rng.integers(-127, 128, wshape).astype(I8)
    if per_channel_axis is None:
        wq, bq = (0.01, 0), (Q_IN[0] * 0.01, 0)
    else:
        scales = tuple(float(v) for v in rng.uniform(0.002, 0.02, cout))
        wq, bq = (scales, (0,) * cout, per_channel_axis), (tuple(Q_IN[0] * v for v in scales), (0,) * cout, 0)
    bias = rng.integers(-3000, 3000, cout).astype(I32)
    return (id, opcode, xs, ys, (X, w, bias), options, {"input": Q_IN, "output": Q_OUT, "const0": wq, "const1": bq})


def _window(padding, stride, act="NONE", **more):
    return {"Padding": padding, "StrideH": stride[0], "StrideW": stride[1], ACT: act, **more}


_LAYER_CASES = [
    _layer("conv-10x4-stride2-same-relu", "CONV_2D", (1, 49, 10, 1), (1, 25, 5, 16), (16, 10, 4, 1),
           ("Conv2DOptions", _window("SAME", (2, 2), "RELU")), 0),
    _layer("conv-1x1-per-channel", "CONV_2D", (1, 13, 1, 40), (1, 13, 1, 24), (24, 1, 1, 40),
           ("Conv2DOptions", _window("VALID", (1, 1), "RELU6")), 0),
    _layer("conv-3x3-per-tensor", "CONV_2D", (1, 12, 12, 8), (1, 12, 12, 16), (16, 3, 3, 8),
           ("Conv2DOptions", _window("SAME", (1, 1))), None),
    _layer("depthwise-3x3-same-relu", "DEPTHWISE_CONV_2D", (1, 25, 5, 64), (1, 25, 5, 64), (1, 3, 3, 64),
           ("DepthwiseConv2DOptions", _window("SAME", (1, 1), "RELU", DepthMultiplier=1)), 3),
    _layer("depthwise-3x3-stride2-same", "DEPTHWISE_CONV_2D", (1, 31, 27, 48), (1, 16, 14, 48), (1, 3, 3, 48),
           ("DepthwiseConv2DOptions", _window("SAME", (2, 2), DepthMultiplier=1)), 3),
    _layer("depthwise-9x1-same-relu6", "DEPTHWISE_CONV_2D", (1, 25, 1, 120), (1, 25, 1, 120), (1, 9, 1, 120),
           ("DepthwiseConv2DOptions", _window("SAME", (1, 1), "RELU6", DepthMultiplier=1)), 3),
    _layer("depthwise-multiplier2-per-tensor", "DEPTHWISE_CONV_2D", (1, 8, 8, 4), (1, 8, 8, 8), (1, 3, 3, 8),
           ("DepthwiseConv2DOptions", _window("SAME", (1, 1), DepthMultiplier=2)), None),
    _layer("fully-connected-4000", "FULLY_CONNECTED", (1, 4000), (1, 4), (4, 4000),
           ("FullyConnectedOptions", {ACT: "NONE"}), None),
    _layer("fully-connected-640-relu", "FULLY_CONNECTED", (1, 640), (1, 128), (128, 640),
           ("FullyConnectedOptions", {ACT: "RELU"}), None),
    ("max-pool-2x2", "MAX_POOL_2D", (1, 82, 82, 16), (1, 41, 41, 16), (X,),
     ("Pool2DOptions", _window("VALID", (2, 2), FilterHeight=2, FilterWidth=2)), {"input": Q_IN, "output": Q_IN}),
    ("max-pool-3x3-same", "MAX_POOL_2D", (1, 15, 13, 8), (1, 8, 7, 8), (X,),
     ("Pool2DOptions", _window("SAME", (2, 2), FilterHeight=3, FilterWidth=3)), {"input": Q_IN, "output": Q_IN}),
    ("max-pool-25x5-whole", "MAX_POOL_2D", (1, 25, 5, 16), (1, 1, 1, 16), (X,),
     ("Pool2DOptions", _window("VALID", (25, 5), FilterHeight=25, FilterWidth=5)), {"input": Q_IN, "output": Q_IN}),
    ("average-pool-3x3-same-counts", "AVERAGE_POOL_2D", (1, 7, 6, 8), (1, 7, 6, 8), (X,),
     ("Pool2DOptions", _window("SAME", (1, 1), FilterHeight=3, FilterWidth=3)), {"input": Q_IN, "output": Q_IN}),
    ("average-pool-25x5-whole", "AVERAGE_POOL_2D", (1, 25, 5, 16), (1, 1, 1, 16), (X,),
     ("Pool2DOptions", _window("VALID", (25, 5), FilterHeight=25, FilterWidth=5)), {"input": Q_IN, "output": Q_IN}),
    ("average-pool-2x2", "AVERAGE_POOL_2D", (1, 88, 88, 8), (1, 44, 44, 8), (X,),
     ("Pool2DOptions", _window("VALID", (2, 2), FilterHeight=2, FilterWidth=2)), {"input": Q_IN, "output": Q_IN}),
]


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
    # the layers and operators bound at load (bound_layers, tables), at the models' shapes
    *_LAYER_CASES,
    ("add-same-shape-relu6", "ADD", (1, 16, 16, 24), (1, 16, 16, 24),
     (X, _c(np.arange(16 * 16 * 24).reshape(1, 16, 16, 24) % 255 - 127, I8)), ("AddOptions", {ACT: "RELU6"}),
     _q(const0=Q_C)),
    ("mul-scalar", "MUL", (1, 8, 8, 16), (1, 8, 8, 16), (X, _c([77], I8)), None, _q(const0=Q_C)),
    ("sub-constant-first", "SUB", (1, 8, 8, 16), (1, 8, 8, 16), (_c(np.arange(16) * 9 - 70, I8), X), None,
     _q(const0=Q_C)),
    ("logistic-contiguous", "LOGISTIC", (1, 140), (1, 140), (X,), None, {"input": Q_IN, "output": (1 / 256, -128)}),
    ("relu-large", "RELU", (1, 16, 16, 24), (1, 16, 16, 24), (X,), None, _q()),
    ("mean-keep-dims-384", "MEAN", (1, 2, 2, 384), (1, 1, 1, 384), (X, _c([1, 2], I32)),
     ("ReducerOptions", {"KeepDims": True}), {"input": Q_IN, "output": (0.02, -3)}),
    ("mean-42x42", "MEAN", (1, 42, 42, 16), (1, 16), (X, _c([1, 2], I32)), ("ReducerOptions", {"KeepDims": False}),
     _q()),
    ("softmax-rows", "SOFTMAX", (3, 12), (3, 12), (X,), ("SoftmaxOptions", {"Beta": 1.0}),
     {"input": Q_IN, "output": (1 / 256, -128)}),
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


@pytest.mark.parametrize("opcode, io_dtype, output_dtype", [("QUANTIZE", "float32", "int8"),
                                                            ("DEQUANTIZE", "int8", "float32"),
                                                            ("QUANTIZE", "uint8", "int8")])
def test_quantize_and_dequantize_bound_at_load_match_tflite_exactly(opcode, io_dtype, output_dtype):
    """QUANTIZE float32 -> int8 (values beyond the type's range clamp), int8 -> int8
    (a table of the stored values) and DEQUANTIZE (a table): bit for bit with TFLite's
    reference kernels, on plain arrays and on padded views (padding untouched)."""
    shape = (1, 5, 128, 1)
    quant = {"input": (0.05, 131) if io_dtype == "uint8" else Q_IN, "output": Q_OUT}
    if io_dtype == "float32":
        del quant["input"]
    if output_dtype == "float32":
        del quant["output"]
    data = one_operator_model(opcode, shape, shape, io_dtype=io_dtype, output_dtype=output_dtype, quantization=quant,
                              version=2)
    rng = np.random.default_rng(9)
    x = (rng.uniform(-12, 12, shape).astype(np.float32) if io_dtype == "float32" else
         rng.integers(np.iinfo(io_dtype).min, np.iinfo(io_dtype).max + 1, shape).astype(io_dtype))
    plan = _forced(data)
    ref = interpreter_outputs(data, x, reference=True)["output"]
    np.testing.assert_array_equal(run_plan(plan, x)["output"], ref)
    model, op = plan.model, plan.model.operators[0]
    x_buf, x_view = _padded(shape, x.dtype, 7)
    y_buf, y_view = _padded(shape, ref.dtype, 55)
    x_view[...] = x
    fallback.prepare(op, model, {op.inputs[0]: x_view, op.outputs[0]: y_view})()
    np.testing.assert_array_equal(y_view, ref)
    assert (y_buf[0] == 55).all() and (y_buf[:, -1] == 55).all() and (y_buf[..., 0] == 55).all()


def _runs_on_the_fallback(data: bytes) -> bool:
    spec = fold_constant_dequantize(read_model(data))
    return fallback.unsupported(spec.operators[0], spec) is None


def _plan_cases():
    """The one-operator cases of the lowering's table (test_one_operator, test_one_operator_logic)
    whose operator the fallback runs: the same models forced onto the fallback."""
    from .test_one_operator import CASES, INT8_CASES, _int8_input
    from .test_one_operator_logic import CASES as LOGIC_CASES

    floats = [(f"float32-{c.id}", one_operator_model(c.opcode, c.x, c.y, c.inputs, c.options, c.version), c.x_range, None)
              for c in CASES]
    int8s = [(f"int8-{c.id}", c.model(), None, _int8_input(c)) for c in INT8_CASES]  # (ids as float32's)
    logic = [(f"logic-{c.id}", c.model(), None, c.input()) for c in LOGIC_CASES]
    return [case for case in floats + int8s + logic if _runs_on_the_fallback(case[1])]


PLAN_CASES = _plan_cases()


@pytest.mark.parametrize("case", PLAN_CASES, ids=[c[0] for c in PLAN_CASES])
def test_the_lowering_s_one_operator_cases_on_the_fallback_match_tflite(case):
    """Every case of the lowering's one-operator table the fallback can run (per-channel and
    per-tensor convolutions, fused activations, uint8 zero points, ...), on the fallback: int8
    / uint8 bit for bit with TFLite's reference kernels, float32 within the tolerance."""
    _, data, x_range, x = case
    if x is None:
        x = np.random.default_rng(4).uniform(*x_range, read_model(data).tensors[0].shape).astype(np.float32)
    got = run_plan(_forced(data), x)["output"]
    ref = interpreter_outputs(data, x, reference=x.dtype != np.float32)["output"]
    if ref.dtype.kind == "f" and x.dtype == np.float32:  # (float in and out)
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=tolerance(ref))
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("single_rounding", [False, True], ids=["two-roundings", "single-rounding"])
def test_the_one_shift_requantization_is_tflite_s_arithmetic(single_rounding):
    """bound_layers.requantizer (one rounding right shift in int64) against int8_reference's
    gemmlowp steps, per channel and per tensor, on random accumulators and on the ties: a
    multiplier of exactly 0.5 * 2**-e makes every odd accumulator a tie of the first rounding
    and many of the second."""
    from acl_bridge.models.fallback import int8_reference as q8
    from acl_bridge.models.fallback.bound_layers import requantizer

    rng = np.random.default_rng(12)
    channels = 37
    real = np.concatenate([rng.uniform(1e-5, 0.999, channels - 5), 0.5 * 2.0 ** -np.arange(5)])
    acc = np.concatenate([rng.integers(-2 ** 31, 2 ** 31, (400, channels)),
                          rng.integers(-3000, 3000, (400, channels))]).astype(np.int32)
    zero_point, clamp = -7, (-128, 127)
    for multiplier in (real, real[:1]):  # per channel, per tensor
        out = np.empty(acc.shape, np.int8)
        requantizer(multiplier, zero_point, clamp, out, single_rounding)(acc)
        q, shift = q8.quantize_multiplier(multiplier)
        exact = (q8.multiply_single_rounding(acc, q, shift) if single_rounding
                 else q8.multiply_by_quantized_multiplier(acc, q, shift))
        np.testing.assert_array_equal(out, np.clip(exact + zero_point, *clamp))


_BOUND_AT_LOAD = {"SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND", "MIRROR_PAD", "TILE", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH",
                  "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "TRANSPOSE_CONV", "CONV_3D", "BATCH_MATMUL",
                  "L2_NORMALIZATION", "LOCAL_RESPONSE_NORMALIZATION", "LOG_SOFTMAX", "GELU", "HARD_SWISH", "ELU",
                  "ARG_MAX", "ARG_MIN", "SELECT", "SELECT_V2", "L2_POOL_2D"}
_BOUND_CASES = [c for c in PLAN_CASES if read_model(c[1]).operators[0].opcode in _BOUND_AT_LOAD]


@pytest.mark.parametrize("case", _BOUND_CASES, ids=[c[0] for c in _BOUND_CASES])
def test_the_kernels_bound_at_load_match_tflite_through_padded_views(case):
    """The index maps, im2col products and in-place kernels made at load (fallback.prepare)
    on padded views of the input and output, called twice: int8 / uint8 and every integer or
    bool output bit for bit with TFLite's reference kernels, float32 within the tolerance;
    the padding cells untouched."""
    name, data, x_range, x = case
    plan = _forced(data)
    model, op = plan.model, plan.model.operators[0]
    (x_index,), y_index = [i for i in op.inputs if i >= 0 and not model.tensors[i].is_constant], op.outputs[0]
    xs, ys = model.tensors[x_index].shape, model.tensors[y_index].shape
    x_buf, x_view = _padded(xs, model.tensors[x_index].dtype, 77)
    y_buf, y_view = _padded(ys, model.tensors[y_index].dtype, 55)
    run = fallback.prepare(op, model, {x_index: x_view, y_index: y_view})
    rng = np.random.default_rng(5)
    for k in range(2):
        if k or x is None:
            x = (rng.uniform(*x_range, xs).astype(np.float32) if x_range is not None else
                 rng.integers(0, 2, xs).astype(bool) if x_view.dtype == np.bool_ else
                 rng.standard_normal(xs).astype(np.float32) * 3 if x_view.dtype == np.float32 else
                 rng.integers(np.iinfo(x_view.dtype).min, np.iinfo(x_view.dtype).max + 1, xs).astype(x_view.dtype))
        x_view[...] = x
        run()
        ref = interpreter_outputs(data, x, reference=x.dtype != np.float32)["output"].reshape(ys)
        if ref.dtype.kind == "f" and x.dtype == np.float32:
            np.testing.assert_allclose(y_view, ref, rtol=1e-5, atol=tolerance(ref), err_msg=name)
        else:
            np.testing.assert_array_equal(y_view, ref, err_msg=name)
        inner = np.zeros(y_buf.shape, bool)
        inner[tuple(slice(1, 1 + s) for s in ys)] = True
        assert (y_buf[~inner] == 55).all()
        assert (x_buf[tuple(slice(1, 1 + s) for s in xs)] == x).all()


def test_the_kernel_families_are_found_by_being_modules_of_the_package():
    """No list names the fallback's families: every module of the package is imported (in
    name order), and each opcode's kernel lives in one of them."""
    import pkgutil

    names = [m.__name__.rsplit(".", 1)[1] for m in fallback.FAMILIES]
    assert names == sorted(m.name for m in pkgutil.iter_modules(fallback.__path__) if not m.name.startswith("_"))
    assert {k.run.__module__ for k in fallback.KERNELS.values()} <= {m.__name__ for m in fallback.FAMILIES}


@pytest.mark.parametrize("single_rounding", [False, True], ids=["two-roundings", "single-rounding"])
@pytest.mark.parametrize("acc_dtype", ["int32", "float32"])
def test_the_requantization_table_is_tflite_s_arithmetic(single_rounding, acc_dtype):
    """requant_tables (a table of the unsaturated accumulators, the rest clipped to its ends)
    where the multipliers make it small enough to be taken: bit for bit with int8_reference's
    gemmlowp steps, per channel and per tensor, on accumulators across the whole range, every
    value of the unsaturated range, and the ties of a multiplier of exactly 0.5 * 2**-e; on a
    padded view of the output (its padding untouched)."""
    from acl_bridge.models.fallback import int8_reference as q8
    from acl_bridge.models.fallback.bound_layers import requantizer
    from acl_bridge.models.fallback.requant_tables import table_requantizer

    rng = np.random.default_rng(13)
    channels = 6
    real = np.concatenate([rng.uniform(0.02, 0.9, channels - 2), [0.25, 0.5]])
    dense = np.arange(-20000, 20000)[:, None] + np.zeros(channels, np.int64)
    acc = np.concatenate([rng.integers(-2 ** 24, 2 ** 24, (300, channels)), dense]).astype(acc_dtype)
    zero_point, clamp = 5, (-128, 127)
    for multiplier in (real, real[:1]):  # per channel, per tensor
        buf = np.full((acc.shape[0] + 2, channels + 2), 55, np.int8)
        out = buf[1:-1, 1:-1]
        q, shift = q8.quantize_multiplier(multiplier)
        run = requantizer(multiplier, zero_point, clamp, out, single_rounding)
        assert run.__module__ == table_requantizer.__module__  # the table, not the arithmetic
        run(acc)
        wide = acc.astype(np.int64)
        exact = (q8.multiply_single_rounding(wide, q, shift) if single_rounding
                 else q8.multiply_by_quantized_multiplier(wide, q, shift))
        np.testing.assert_array_equal(out, np.clip(exact + zero_point, *clamp))
        assert (buf[0] == 55).all() and (buf[-1] == 55).all() and (buf[:, 0] == 55).all() and (buf[:, -1] == 55).all()
