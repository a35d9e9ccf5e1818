"""Every lowering rule on one-operator models (``tiny_tflite.one_operator_model``): the plan
carried out by numpy against TFLite's interpreter, element by element.

Adding an operator: its rule in ``acl_bridge/models/lowering/rules/`` and its cases in ``CASES``
below, or in its family's own ``test_one_operator_<family>.py`` (CASES with an ``opcode``, or
OPCODES); ``test_every_supported_operator_has_a_case`` fails until both exist."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import SUPPORTED, plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import ModelFormatError, UnsupportedModelError, read_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs, tolerance  # noqa: E402
from .test_plan import assert_steps_bind  # noqa: E402
from .tiny_tflite import X, Input, Options, one_operator_model  # noqa: E402

_rng = np.random.default_rng(11)


def _f32(*shape: int) -> np.ndarray:
    return _rng.uniform(-1, 1, shape).astype(np.float32)


@dataclass(frozen=True)
class Case:
    """One operator: input -> ``opcode`` -> output, and the bridge functions its plan calls
    (``kinds``, in order; RESHAPE and CONCATENATION of distinct tensors call none: views)."""

    id: str
    opcode: str
    x: Tuple[int, ...]
    y: Tuple[int, ...]
    kinds: Tuple[str, ...]
    inputs: Tuple[Input, ...] = (X,)
    options: Optional[Options] = None
    version: int = 1
    params: Tuple[Tuple[str, object], ...] = field(default=())  # expected among the steps' params
    x_range: Tuple[float, float] = (-3.0, 3.0)  # the input's values (positive where the operator needs it)


def _window(padding: str, stride: int, act: str = "NONE", **more: object) -> dict:
    return {"Padding": padding, "StrideH": stride, "StrideW": stride, "FusedActivationFunction": act, **more}


CASES = [
    # convolution-like
    Case("conv_same_stride2_relu6", "CONV_2D", (1, 9, 9, 3), (1, 5, 5, 4), ("convolution",),
         (X, _f32(4, 3, 3, 3), _f32(4)), ("Conv2DOptions", _window("SAME", 2, "RELU6")),
         params=(("padding", (1, 1, 1, 1)), ("activation", "bounded_relu"))),
    Case("conv_valid_5x3", "CONV_2D", (1, 8, 7, 3), (1, 4, 5, 2), ("convolution",),
         (X, _f32(2, 5, 3, 3), _f32(2)), ("Conv2DOptions", _window("VALID", 1))),
    Case("conv_same_even_kernel", "CONV_2D", (1, 7, 6, 2), (1, 4, 3, 3), ("convolution",),
         (X, _f32(3, 4, 4, 2), _f32(3)), ("Conv2DOptions", _window("SAME", 2)),
         params=(("padding", (1, 2, 1, 1)),)),
    Case("depthwise_multiplier2_relu", "DEPTHWISE_CONV_2D", (1, 6, 6, 3), (1, 6, 6, 6), ("depthwise",),
         (X, _f32(1, 3, 3, 6), _f32(6)), ("DepthwiseConv2DOptions", _window("SAME", 1, "RELU", DepthMultiplier=2)),
         params=(("depth_multiplier", 2), ("activation", "relu"))),
    Case("depthwise_valid_stride2", "DEPTHWISE_CONV_2D", (1, 9, 8, 4), (1, 4, 3, 4), ("depthwise",),
         (X, _f32(1, 3, 3, 4), _f32(4)), ("DepthwiseConv2DOptions", _window("VALID", 2, DepthMultiplier=1))),
    Case("fully_connected_relu", "FULLY_CONNECTED", (2, 12), (2, 5), ("fully_connected",), (X, _f32(5, 12), _f32(5)),
         ("FullyConnectedOptions", {"FusedActivationFunction": "RELU"}), params=(("activation", "relu"),)),
    # elementwise
    Case("add_itself_relu_n1_to_1", "ADD", (1, 4, 5, 3), (1, 4, 5, 3), ("add",), (X, X),
         ("AddOptions", {"FusedActivationFunction": "RELU_N1_TO_1"}),
         params=(("activation", "lu_bounded_relu"), ("act_a", 1.0), ("act_b", -1.0))),
    Case("sub_relu6", "SUB", (1, 4, 5, 3), (1, 4, 5, 3), ("sub",), (X, _f32(1, 1, 3)),
         ("SubOptions", {"FusedActivationFunction": "RELU6"}), params=(("activation", "bounded_relu"),)),
    Case("prelu_per_channel", "PRELU", (1, 4, 4, 3), (1, 4, 4, 3), ("prelu",), (X, _f32(1, 1, 3))),
    # the binary family: broadcasting constants of lower rank, a constant first, fused activations
    Case("sub_constant_first_broadcast", "SUB", (1, 4, 5, 3), (1, 4, 5, 3), ("sub",), (_f32(3), X),
         ("SubOptions", {"FusedActivationFunction": "NONE"})),
    Case("mul_broadcast_channels_relu", "MUL", (1, 4, 5, 3), (1, 4, 5, 3), ("mul",), (X, _f32(1, 1, 3)),
         ("MulOptions", {"FusedActivationFunction": "RELU"}), params=(("activation", "relu"),)),
    Case("div_constant_numerator_relu6", "DIV", (1, 4, 5, 3), (1, 4, 5, 3), ("div", "activation"), (_f32(4, 1, 3), X),
         ("DivOptions", {"FusedActivationFunction": "RELU6"}), x_range=(0.5, 3.0)),
    Case("div_by_constant", "DIV", (2, 6), (2, 6), ("div",), (X, _f32(6) + 2), ("DivOptions", {})),
    Case("floor_div_by_constant", "FLOOR_DIV", (2, 6), (2, 6), ("div", "floor"), (X, _f32(6) + 2),
         ("FloorDivOptions", {})),
    Case("maximum_broadcast", "MAXIMUM", (1, 4, 5, 3), (1, 4, 5, 3), ("maximum",), (X, _f32(3))),
    Case("minimum_scalar", "MINIMUM", (1, 4, 5, 3), (1, 4, 5, 3), ("minimum",), (X, np.array(0.25, np.float32))),
    Case("squared_difference_broadcast", "SQUARED_DIFFERENCE", (1, 4, 5, 3), (1, 4, 5, 3), ("squared_difference",),
         (X, _f32(1, 4, 1, 3))),
    Case("pow_constant_exponent", "POW", (1, 4, 5, 3), (1, 4, 5, 3), ("power",), (X, _f32(3) * 2),
         x_range=(0.1, 3.0)),
    # the unary family
    *(Case(f"{name.lower()}", name, (1, 4, 5, 3), (1, 4, 5, 3), (kind,), x_range=r)
      for name, kind, r in (("ABS", "abs", (-3, 3)), ("EXP", "exp", (-3, 3)), ("LOG", "log", (0.01, 3)),
                            ("NEG", "neg", (-3, 3)), ("RSQRT", "rsqrt", (0.01, 3)), ("SIN", "sin", (-3, 3)),
                            ("FLOOR", "floor", (-3, 3)), ("ROUND", "round", (-3, 3)))),
    # activations
    *(Case(f"{name.lower()}", name, (1, 4, 5, 3), (1, 4, 5, 3), ("activation",), x_range=r)
      for name, r in (("RELU", (-3, 3)), ("RELU6", (-3, 3)), ("RELU_N1_TO_1", (-3, 3)), ("TANH", (-3, 3)),
                      ("LOGISTIC", (-3, 3)), ("HARD_SWISH", (-5, 5)), ("ELU", (-3, 3)), ("SQRT", (0, 3)),
                      ("SQUARE", (-3, 3)), ("RELU_0_TO_1", (-1, 2)))),
    Case("leaky_relu_alpha", "LEAKY_RELU", (1, 4, 5, 3), (1, 4, 5, 3), ("activation",),
         options=("LeakyReluOptions", {"Alpha": 0.1}), params=(("a", np.float32(0.1)),)),
    Case("gelu", "GELU", (1, 4, 5, 3), (1, 4, 5, 3), ("activation",), options=("GeluOptions", {"Approximate": False}),
         params=(("function", "gelu"),)),
    Case("softmax_beta", "SOFTMAX", (2, 10), (2, 10), ("softmax",), options=("SoftmaxOptions", {"Beta": 0.5})),
    # pooling
    Case("max_pool_same_3x3_stride2", "MAX_POOL_2D", (1, 7, 7, 2), (1, 4, 4, 2), ("pooling",),
         options=("Pool2DOptions", _window("SAME", 2, FilterHeight=3, FilterWidth=3))),
    Case("average_pool_valid_2x2", "AVERAGE_POOL_2D", (1, 6, 6, 3), (1, 3, 3, 3), ("pooling",),
         options=("Pool2DOptions", _window("VALID", 2, FilterHeight=2, FilterWidth=2))),
    Case("average_pool_same_edges", "AVERAGE_POOL_2D", (1, 5, 5, 2), (1, 5, 5, 2), ("pooling",),
         options=("Pool2DOptions", _window("SAME", 1, FilterHeight=3, FilterWidth=3))),
    # reduction: MEAN over H and W, a global average pooling (keep_dims=False: the output a view)
    Case("mean_hw_keep_dims", "MEAN", (1, 5, 7, 3), (1, 1, 1, 3), ("pooling",), (X, np.array([1, 2], np.int32)),
         ("ReducerOptions", {"KeepDims": True}), params=(("kernel", (5, 7)), ("global_mean", True))),
    Case("mean_wh_negative_axes", "MEAN", (2, 6, 4, 5), (2, 5), ("pooling",), (X, np.array([-2, -3], np.int32)),
         ("ReducerOptions", {"KeepDims": False}), params=(("kernel", (6, 4)),)),
    Case("reduce_max_hw_no_keep_dims", "REDUCE_MAX", (2, 5, 6, 3), (2, 3), ("pooling",), (X, np.array([1, 2], np.int32)),
         ("ReducerOptions", {"KeepDims": False}), params=(("pool_type", "max"), ("kernel", (5, 6)))),
    # reductions along other axes: one reduction step per axis, the output a view without keep_dims
    Case("sum_channels_keep_dims", "SUM", (1, 4, 5, 3), (1, 4, 5, 1), ("reduce_sum",), (X, np.array([3], np.int32)),
         ("ReducerOptions", {"KeepDims": True}), params=(("axis", 3),)),
    Case("mean_channels", "MEAN", (2, 4, 6), (2, 4), ("reduce_mean",), (X, np.array([-1], np.int32)),
         ("ReducerOptions", {"KeepDims": False})),
    Case("reduce_max_batch_and_width", "REDUCE_MAX", (2, 3, 4, 5), (3, 5), ("reduce_max", "reduce_max"),
         (X, np.array([0, 2], np.int32)), ("ReducerOptions", {"KeepDims": False})),
    Case("reduce_min_height", "REDUCE_MIN", (1, 4, 5, 3), (1, 1, 5, 3), ("reduce_min",), (X, np.array([1], np.int32)),
         ("ReducerOptions", {"KeepDims": True})),
    Case("reduce_prod_rows", "REDUCE_PROD", (3, 4), (4,), ("reduce_prod",), (X, np.array([0], np.int32)),
         ("ReducerOptions", {"KeepDims": False}), x_range=(0.5, 1.5)),
    # shape and view
    Case("pad", "PAD", (1, 3, 4, 2), (1, 6, 7, 2), ("pad",), (X, np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32)),
         params=(("pad_width", ((0, 0), (1, 2), (2, 1), (0, 0))),)),
    Case("transpose_nhwc_to_nchw", "TRANSPOSE", (1, 3, 4, 2), (1, 2, 3, 4), ("permute",),
         (X, np.array([0, 3, 1, 2], np.int32)), params=(("axes", (0, 3, 1, 2)),)),
    Case("transpose_rank3_negative_axes", "TRANSPOSE", (2, 3, 5), (5, 2, 3), ("permute",),
         (X, np.array([-1, 0, 1], np.int32)), params=(("axes", (2, 0, 1)),)),
    Case("resize_bilinear_half_pixel", "RESIZE_BILINEAR", (1, 5, 7, 2), (1, 9, 4, 2), ("resize",),
         (X, np.array([9, 4], np.int32)), ("ResizeBilinearOptions", {"HalfPixelCenters": True}), version=3),
    Case("reshape_view", "RESHAPE", (1, 4, 4, 2), (1, 32), (), (X, np.array([1, 32], np.int32)),
         ("ReshapeOptions", {"NewShape": (1, 32)})),
    Case("squeeze_view", "SQUEEZE", (1, 4, 1, 2), (4, 2), (), options=("SqueezeOptions", {"SqueezeDims": (0, 2)})),
    Case("expand_dims_view", "EXPAND_DIMS", (4, 2), (4, 1, 2), (), (X, np.array([1], np.int32))),
    Case("concatenation_of_itself_copies", "CONCATENATION", (1, 3, 2, 2), (1, 3, 2, 4), ("copy", "copy"), (X, X),
         ("ConcatenationOptions", {"Axis": -1})),
    # data movement (rules/movement.py); SPLIT, SPLIT_V, UNPACK and CAST: MOVEMENT_GRAPHS below
    Case("strided_slice_steps_end_mask", "STRIDED_SLICE", (1, 6, 7, 4), (1, 2, 5, 3), ("strided_slice",),
         (X, np.array([0, 1, -5, 0], np.int32), np.array([1, 5, 0, 3], np.int32), np.array([1, 2, 1, 1], np.int32)),
         ("StridedSliceOptions", {"EndMask": 4}), params=(("begin", (0, 1, 2, 0)), ("strides", (1, 2, 1, 1)))),
    Case("strided_slice_shrink_short_begin", "STRIDED_SLICE", (2, 5, 6, 3), (5, 3, 3), ("strided_slice",),
         (X, np.array([1, 0, 1], np.int32), np.array([2, 5, 6], np.int32), np.array([1, 1, 2], np.int32)),
         ("StridedSliceOptions", {"ShrinkAxisMask": 1}), params=(("shrink_axis_mask", 1),)),
    Case("slice_to_the_end", "SLICE", (2, 5, 6, 3), (2, 3, 4, 2), ("strided_slice",),
         (X, np.array([0, 1, 2, 0], np.int32), np.array([-1, 3, -1, 2], np.int32))),
    Case("gather_axis1", "GATHER", (1, 4, 5, 3), (1, 3, 5, 3), ("gather",), (X, np.array([3, 0, 2], np.int32)),
         ("GatherOptions", {"Axis": 1}), params=(("axis", 1),)),
    Case("gather_last_axis", "GATHER", (2, 6), (2, 4), ("gather",), (X, np.array([5, 5, 0, 1], np.int32)),
         ("GatherOptions", {"Axis": -1})),
    Case("tile", "TILE", (1, 2, 3, 2), (2, 2, 6, 6), ("tile",), (X, np.array([2, 1, 2, 3], np.int32))),
    Case("depth_to_space_block2", "DEPTH_TO_SPACE", (1, 3, 4, 8), (1, 6, 8, 2), ("depth_to_space",),
         options=("DepthToSpaceOptions", {"BlockSize": 2})),
    Case("space_to_depth_block2", "SPACE_TO_DEPTH", (1, 4, 6, 3), (1, 2, 3, 12), ("space_to_depth",),
         options=("SpaceToDepthOptions", {"BlockSize": 2})),
    Case("batch_to_space_crops", "BATCH_TO_SPACE_ND", (4, 3, 3, 2), (1, 5, 5, 2), ("batch_to_space",),
         (X, np.array([2, 2], np.int32), np.array([[0, 1], [1, 0]], np.int32))),
    Case("space_to_batch_paddings", "SPACE_TO_BATCH_ND", (1, 5, 6, 2), (6, 3, 2, 2), ("space_to_batch",),
         (X, np.array([2, 3], np.int32), np.array([[1, 0], [0, 0]], np.int32))),
    Case("padv2_value", "PADV2", (1, 3, 4, 2), (1, 4, 7, 2), ("pad",),
         (X, np.array([[0, 0], [1, 0], [2, 1], [0, 0]], np.int32), np.array([0.75], np.float32)),
         params=(("constant_value", 0.75),)),
    *(Case(f"mirror_pad_{mode.lower()}", "MIRROR_PAD", (1, 4, 5, 2), (1, 7, 7, 2), ("pad",),
           (X, np.array([[0, 0], [1, 2], [2, 0], [0, 0]], np.int32)), ("MirrorPadOptions", {"Mode": code}),
           params=(("mode", mode.lower()),)) for mode, code in (("REFLECT", 0), ("SYMMETRIC", 1))),
    # the neural-network layers (rules/nn.py)
    Case("transpose_conv_same_stride2_bias", "TRANSPOSE_CONV", (1, 4, 4, 3), (1, 8, 8, 2), ("deconvolution",),
         (np.array([1, 8, 8, 2], np.int32), _f32(2, 3, 3, 3), X, _f32(2)),
         ("TransposeConvOptions", {"Padding": "SAME", "StrideH": 2, "StrideW": 2}), version=3,
         params=(("padding", (0, 1, 0, 1)),)),
    Case("transpose_conv_valid_stride2_no_bias", "TRANSPOSE_CONV", (1, 3, 4, 2), (1, 6, 8, 3), ("deconvolution",),
         (np.array([1, 6, 8, 3], np.int32), _f32(3, 2, 2, 2), X),
         ("TransposeConvOptions", {"Padding": "VALID", "StrideH": 2, "StrideW": 2}),
         params=(("padding", (0, 0, 0, 0)),)),
    Case("transpose_conv_same_4x4_stride2", "TRANSPOSE_CONV", (1, 3, 3, 2), (1, 6, 6, 2), ("deconvolution",),
         (np.array([1, 6, 6, 2], np.int32), _f32(2, 4, 4, 2), X, _f32(2)),
         ("TransposeConvOptions", {"Padding": "SAME", "StrideH": 2, "StrideW": 2}), version=3,
         params=(("padding", (1, 1, 1, 1)),)),
    Case("l2_pool_same_3x3_stride2", "L2_POOL_2D", (1, 7, 7, 2), (1, 4, 4, 2), ("pooling",),
         options=("Pool2DOptions", _window("SAME", 2, FilterHeight=3, FilterWidth=3)), params=(("pool_type", "l2"),)),
    Case("l2_normalization", "L2_NORMALIZATION", (2, 3, 8), (2, 3, 8), ("l2_normalize",),
         options=("L2NormOptions", {"FusedActivationFunction": "NONE"})),
    Case("local_response_normalization", "LOCAL_RESPONSE_NORMALIZATION", (1, 3, 4, 7), (1, 3, 4, 7),
         ("normalization",), options=("LocalResponseNormalizationOptions",
                                      {"Radius": 2, "Bias": 1.5, "Alpha": 0.3, "Beta": 0.75})),
    Case("log_softmax", "LOG_SOFTMAX", (2, 10), (2, 10), ("log_softmax",)),
    *(Case(f"resize_nearest_{grid.lower() or 'top_left'}", "RESIZE_NEAREST_NEIGHBOR", (1, 5, 7, 2), (1, 9, 4, 2),
           ("resize",), (X, np.array([9, 4], np.int32)),
           ("ResizeNearestNeighborOptions", {grid: True} if grid else {}), version=3,
           params=(("interpolation", "nearest"),))
      for grid in ("HalfPixelCenters", "AlignCorners", "")),
    Case("batch_matmul_constant_b", "BATCH_MATMUL", (2, 3, 4), (2, 3, 5), ("matmul",), (X, _f32(2, 4, 5)),
         ("BatchMatMulOptions", {"AdjX": False, "AdjY": False})),
    Case("conv_3d_same_stride2_relu", "CONV_3D", (1, 5, 6, 7, 2), (1, 3, 3, 4, 3), ("convolution_3d", "activation"),
         (X, _f32(3, 3, 3, 2, 3), _f32(3)),
         ("Conv3DOptions", {"Padding": "SAME", "StrideD": 2, "StrideH": 2, "StrideW": 2,
                            "FusedActivationFunction": "RELU"}), params=(("padding", ((1, 1), (0, 1), (1, 1))),)),
    Case("conv_3d_valid_2x3x2_no_bias", "CONV_3D", (2, 4, 5, 4, 3), (2, 3, 3, 3, 2), ("convolution_3d",),
         (X, _f32(2, 3, 2, 3, 2)), ("Conv3DOptions", {"Padding": "VALID", "StrideD": 1, "StrideH": 1, "StrideW": 1})),
    Case("batch_matmul_adj_y", "BATCH_MATMUL", (3, 4), (3, 6), ("matmul",), (X, _f32(6, 4)),
         ("BatchMatMulOptions", {"AdjX": False, "AdjY": True}), params=(("adj_b", True),)),
]


@host_only_under_emulation  # numpy against TFLite (70 s emulated); each case's ACL binding: the test below
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_operator_plan_matches_the_interpreter(case):
    data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
    plan = plan_model(read_model(data))
    assert tuple(s.kind for s in plan.steps) == case.kinds, plan.steps
    if case.params:
        assert set(case.params) <= {p for s in plan.steps for p in s.params}, plan.steps
    x = np.random.default_rng(3).uniform(*case.x_range, case.x).astype(np.float32)
    ref = interpreter_outputs(data, x)["output"]
    got = run_plan(plan, x)["output"]
    assert got.shape == ref.shape == case.y
    assert np.abs(got - ref).max() <= tolerance(ref)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_operator_steps_bind_to_the_bridge_functions(case, monkeypatch):
    from acl_bridge.models.runtime import tflite_runner as R

    missing = set(case.kinds) - set(R.ROLES)
    if missing:
        pytest.skip(f"step kinds {sorted(missing)} have no bridge function in this tflite_runner (the int8 runner side)")
    data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
    assert_steps_bind(plan_model(read_model(data)), monkeypatch)


def _family_opcodes() -> set:
    """The opcodes of every family's file beside this one, test_one_operator_<family>.py, found
    by its name: its OPCODES where it has them, else its CASES' opcodes."""
    import importlib
    import pkgutil
    from pathlib import Path

    beside = [m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
              if m.name.startswith("test_one_operator_")]
    modules = [importlib.import_module(f"{__package__}.{name}") for name in sorted(beside)]
    assert modules, "no test_one_operator_<family>.py beside test_one_operator.py"
    return {op for m in modules for op in getattr(m, "OPCODES", None) or {c.opcode for c in m.CASES}}


def test_every_supported_operator_has_a_case():
    """float32 cases above, int8 cases below (QUANTIZE and DEQUANTIZE have only int8 ones), the
    movement graphs, and every family's own file (``_family_opcodes``)."""
    assert sorted({c.opcode for c in CASES} | {c.opcode for c in INT8_CASES} | {g.opcode for g in MOVEMENT_GRAPHS}
                  | _family_opcodes()) == sorted(SUPPORTED)


def test_absent_bias_is_zeros():
    """TFLite's interpreter wants a bias (conv.cc: has_bias); the rule takes an absent one
    (index -1) as zeros: the same result as the interpreter with a zero bias."""
    w, options = _f32(2, 3, 3, 3), ("Conv2DOptions", _window("SAME", 1))
    plan = plan_model(read_model(one_operator_model("CONV_2D", (1, 5, 5, 3), (1, 5, 5, 2), (X, w, None), options)))
    assert np.array_equal(dict(plan.steps[0].constants)["bias"], np.zeros(2, np.float32))
    x = np.random.default_rng(3).uniform(-3, 3, (1, 5, 5, 3)).astype(np.float32)
    ref = interpreter_outputs(one_operator_model("CONV_2D", (1, 5, 5, 3), (1, 5, 5, 2),
                                                 (X, w, np.zeros(2, np.float32)), options), x)["output"]
    assert np.abs(run_plan(plan, x)["output"] - ref).max() <= tolerance(ref)


# ---------------------------------------------------------------------------- int8
# One-operator int8 models: the numpy plan (TFLite's integer arithmetic, int8_reference.py)
# against TFLite's interpreter with its reference kernels (bit for bit) and with its default
# kernels (XNNPACK on ai-edge-litert 1.x: float requantization, round half to even; at most
# 1 LSB). Each case prints its counts (pytest -s).

XQ, YQ = (0.05, 3), (0.08, -7)  # graph input and output (scale, zero point), nonzero zero points


def _i8(*shape: int) -> np.ndarray:
    return _rng.integers(-127, 128, shape).astype(np.int8)


def _i32(*shape: int) -> np.ndarray:
    return _rng.integers(-3000, 3000, shape).astype(np.int32)


def _per_channel(n: int, axis: int) -> tuple:
    return (tuple(float(v) for v in _rng.uniform(0.002, 0.02, n)), (0,) * n, axis)


@dataclass(frozen=True)
class Int8Case:
    """One int8 operator; ``quantization`` by tensor name (input, output, const0, ...)."""

    id: str
    opcode: str
    x: Tuple[int, ...]
    y: Tuple[int, ...]
    kinds: Tuple[str, ...]
    inputs: Tuple[Input, ...] = (X,)
    options: Optional[Options] = None
    quantization: Tuple[Tuple[str, tuple], ...] = (("input", XQ), ("output", YQ))
    io_dtype: str = "int8"
    output_dtype: Optional[str] = None
    version: int = 1

    def model(self) -> bytes:
        return one_operator_model(self.opcode, self.x, self.y, self.inputs, self.options, self.version,
                                  io_dtype=self.io_dtype, quantization=dict(self.quantization),
                                  output_dtype=self.output_dtype)


def _weighted(id, opcode, x, y, w, cout, options, per_channel_axis=None, version=1, kinds=None):
    """A conv / depthwise / FC case: int8 weights (per channel along ``per_channel_axis`` or
    per tensor), int32 bias with scale = input x weight scale."""
    wq = _per_channel(cout, per_channel_axis) if per_channel_axis is not None else (0.01, 0)
    bq = (tuple(XQ[0] * s for s in wq[0]), (0,) * cout, 0) if per_channel_axis is not None else (XQ[0] * 0.01, 0)
    kind = {"CONV_2D": "convolution", "DEPTHWISE_CONV_2D": "depthwise", "FULLY_CONNECTED": "fully_connected"}[opcode]
    return Int8Case(id, opcode, x, y, kinds or (kind,), (X, w, _i32(cout)), options,
                    (("input", XQ), ("output", YQ), ("const0", wq), ("const1", bq)), version=version)


INT8_CASES = [
    _weighted("conv_per_channel_same_stride2_relu6", "CONV_2D", (1, 9, 9, 3), (1, 5, 5, 4), _i8(4, 3, 3, 3), 4,
              ("Conv2DOptions", _window("SAME", 2, "RELU6")), 0, version=3),
    _weighted("conv_per_channel_valid_relu", "CONV_2D", (1, 8, 7, 3), (1, 4, 5, 2), _i8(2, 5, 3, 3), 2,
              ("Conv2DOptions", _window("VALID", 1, "RELU")), 0, version=3),
    _weighted("conv_per_tensor_same_even_kernel", "CONV_2D", (1, 7, 6, 2), (1, 4, 3, 3), _i8(3, 4, 4, 2), 3,
              ("Conv2DOptions", _window("SAME", 2)), version=3),
    _weighted("conv_per_channel_relu_n1_to_1", "CONV_2D", (1, 5, 5, 2), (1, 5, 5, 3), _i8(3, 3, 3, 2), 3,
              ("Conv2DOptions", _window("SAME", 1, "RELU_N1_TO_1")), 0, version=3),
    _weighted("depthwise_per_channel_multiplier2_relu", "DEPTHWISE_CONV_2D", (1, 6, 6, 3), (1, 6, 6, 6),
              _i8(1, 3, 3, 6), 6, ("DepthwiseConv2DOptions", _window("SAME", 1, "RELU", DepthMultiplier=2)), 3,
              version=3),
    _weighted("depthwise_per_channel_valid_stride2_relu6", "DEPTHWISE_CONV_2D", (1, 9, 8, 4), (1, 4, 3, 4),
              _i8(1, 3, 3, 4), 4, ("DepthwiseConv2DOptions", _window("VALID", 2, "RELU6", DepthMultiplier=1)), 3,
              version=3),
    _weighted("depthwise_per_tensor_same_stride2", "DEPTHWISE_CONV_2D", (1, 7, 7, 2), (1, 4, 4, 2),
              _i8(1, 3, 3, 2), 2, ("DepthwiseConv2DOptions", _window("SAME", 2, DepthMultiplier=1)), version=3),
    _weighted("fully_connected_per_tensor", "FULLY_CONNECTED", (2, 24), (2, 10), _i8(10, 24), 10,
              ("FullyConnectedOptions", {"FusedActivationFunction": "NONE"}), version=4),
    _weighted("fully_connected_per_tensor_relu", "FULLY_CONNECTED", (1, 16), (1, 5), _i8(5, 16), 5,
              ("FullyConnectedOptions", {"FusedActivationFunction": "RELU"}), version=4),
    _weighted("fully_connected_64x256_to_32_rounding", "FULLY_CONNECTED", (64, 256), (64, 32), _i8(32, 256), 32,
              ("FullyConnectedOptions", {"FusedActivationFunction": "NONE"}), version=4),
    _weighted("conv_per_channel_16x16x16_to_32_rounding", "CONV_2D", (1, 16, 16, 16), (1, 16, 16, 32),
              _i8(32, 3, 3, 16), 32, ("Conv2DOptions", _window("SAME", 1)), 0, version=3),
    Int8Case("add_constant_unequal_scales_relu", "ADD", (1, 4, 5, 3), (1, 4, 5, 3), ("add",), (X, _i8(1, 4, 5, 3)),
             ("AddOptions", {"FusedActivationFunction": "RELU"}),
             (("input", XQ), ("const0", (0.11, -20)), ("output", YQ)), version=2),
    Int8Case("add_itself_relu6", "ADD", (1, 4, 5, 3), (1, 4, 5, 3), ("add",), (X, X),
             ("AddOptions", {"FusedActivationFunction": "RELU6"}), version=2),
    Int8Case("add_constant_first_relu_n1_to_1", "ADD", (1, 3, 3, 2), (1, 3, 3, 2), ("add",), (_i8(1, 3, 3, 2), X),
             ("AddOptions", {"FusedActivationFunction": "RELU_N1_TO_1"}),
             (("input", XQ), ("const0", (0.02, 5)), ("output", (0.01, 0))), version=2),
    Int8Case("sub_constant_unequal_scales_relu", "SUB", (1, 4, 5, 3), (1, 4, 5, 3), ("sub",),
             (X, _i8(1, 4, 5, 3)), ("SubOptions", {"FusedActivationFunction": "RELU"}),
             (("input", XQ), ("const0", (0.11, -20)), ("output", YQ)), version=2),
    Int8Case("sub_constant_first_broadcast", "SUB", (1, 4, 5, 3), (1, 4, 5, 3), ("sub",), (_i8(3), X),
             ("SubOptions", {"FusedActivationFunction": "NONE"}),
             (("input", XQ), ("const0", (0.02, 5)), ("output", YQ)), version=2),
    Int8Case("maximum_one_quantization", "MAXIMUM", (1, 4, 5, 3), (1, 4, 5, 3), ("maximum",), (X, _i8(1, 4, 5, 3)),
             quantization=(("input", XQ), ("const0", XQ), ("output", XQ)), version=2),
    Int8Case("minimum_broadcast_one_quantization", "MINIMUM", (1, 4, 5, 3), (1, 4, 5, 3), ("minimum",), (X, _i8(3)),
             quantization=(("input", XQ), ("const0", XQ), ("output", XQ)), version=2),
    Int8Case("squared_difference_broadcast_three_scales", "SQUARED_DIFFERENCE", (1, 4, 5, 3), (1, 4, 5, 3),
             ("squared_difference",), (X, _i8(1, 1, 3)),
             quantization=(("input", XQ), ("const0", (0.03, -4)), ("output", (0.2, -100))), version=2),
    Int8Case("logistic", "LOGISTIC", (1, 4, 5, 3), (1, 4, 5, 3), ("activation",),
             quantization=(("input", XQ), ("output", (1 / 256, -128))), version=2),
    Int8Case("tanh", "TANH", (1, 4, 5, 3), (1, 4, 5, 3), ("activation",),
             quantization=(("input", XQ), ("output", (1 / 128, 0))), version=2),
    Int8Case("pad_zero_point", "PAD", (1, 3, 4, 2), (1, 6, 7, 2), ("pad",),
             (X, np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32)), quantization=(("input", XQ), ("output", XQ))),
    Int8Case("pad_uint8_channels", "PAD", (1, 3, 3, 2), (1, 3, 3, 5), ("pad",),
             (X, np.array([[0, 0], [0, 0], [0, 0], [1, 2]], np.int32)),
             quantization=(("input", (0.05, 131)), ("output", (0.05, 131))), io_dtype="uint8"),
    Int8Case("transpose", "TRANSPOSE", (2, 3, 4, 5), (2, 5, 3, 4), ("permute",), (X, np.array([0, 3, 1, 2], np.int32)),
             quantization=(("input", XQ), ("output", XQ))),
    Int8Case("max_pool_same_3x3_stride2", "MAX_POOL_2D", (1, 7, 7, 2), (1, 4, 4, 2), ("pooling",),
             options=("Pool2DOptions", _window("SAME", 2, FilterHeight=3, FilterWidth=3)),
             quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("average_pool_same_edges", "AVERAGE_POOL_2D", (1, 5, 5, 2), (1, 5, 5, 2), ("pooling",),
             options=("Pool2DOptions", _window("SAME", 1, FilterHeight=3, FilterWidth=3)),
             quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("average_pool_global_8x8", "AVERAGE_POOL_2D", (1, 8, 8, 4), (1, 1, 1, 4), ("pooling",),
             options=("Pool2DOptions", _window("VALID", 8, FilterHeight=8, FilterWidth=8)),
             quantization=(("input", XQ), ("output", XQ)), version=2),
    # MEAN: TFLite's reference arithmetic (one fixed-point multiplier for in_scale / out_scale / n)
    Int8Case("mean_unequal_scales_no_keep_dims", "MEAN", (1, 13, 11, 5), (1, 5), ("pooling",),
             (X, np.array([1, 2], np.int32)), ("ReducerOptions", {"KeepDims": False}),
             quantization=(("input", (0.3, -10)), ("output", (0.01, 20))), version=2),
    Int8Case("mean_unequal_scales_keep_dims", "MEAN", (2, 8, 8, 4), (2, 1, 1, 4), ("pooling",),
             (X, np.array([2, 1], np.int32)), ("ReducerOptions", {"KeepDims": True}), version=2),
    Int8Case("mean_equal_scales_keep_dims", "MEAN", (1, 5, 7, 3), (1, 1, 1, 3), ("pooling",),
             (X, np.array([1, 2], np.int32)), ("ReducerOptions", {"KeepDims": True}),
             quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("mean_equal_scales_no_keep_dims", "MEAN", (1, 6, 9, 7), (1, 7), ("pooling",),
             (X, np.array([1, 2], np.int32)), ("ReducerOptions", {"KeepDims": False}),
             quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("mean_fingerprint_like_42x42", "MEAN", (1, 42, 42, 16), (1, 16), ("pooling",),
             (X, np.array([1, 2], np.int32)), ("ReducerOptions", {"KeepDims": False}),
             quantization=(("input", (0.0203, -128)), ("output", (0.0334, -128))), version=2),
    Int8Case("mean_uint8_unequal_scales", "MEAN", (1, 4, 6, 3), (1, 3), ("pooling",),
             (X, np.array([1, 2], np.int32)), ("ReducerOptions", {"KeepDims": False}),
             quantization=(("input", (0.05, 131)), ("output", (0.02, 120))), io_dtype="uint8", version=2),
    Int8Case("reduce_max_hw_keep_dims", "REDUCE_MAX", (1, 5, 4, 3), (1, 1, 1, 3), ("pooling",),
             (X, np.array([2, 1], np.int32)), ("ReducerOptions", {"KeepDims": True}),
             quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("softmax", "SOFTMAX", (2, 10), (2, 10), ("softmax",), options=("SoftmaxOptions", {"Beta": 1.0}),
             quantization=(("input", (0.15, 32)), ("output", (1 / 256, -128))), version=2),
    Int8Case("softmax_beta", "SOFTMAX", (3, 7), (3, 7), ("softmax",), options=("SoftmaxOptions", {"Beta": 0.5}),
             quantization=(("input", (0.07, -3)), ("output", (1 / 256, -128))), version=2),
    Int8Case("softmax_500x100_small_scale", "SOFTMAX", (500, 100), (500, 100), ("softmax",),
             options=("SoftmaxOptions", {"Beta": 1.0}), quantization=(("input", (0.02, -3)), ("output", (1 / 256, -128))),
             version=2),
    *(Int8Case(f"{name.lower()}_requantizing", name, (1, 4, 5, 3), (1, 4, 5, 3), ("activation",), version=v)
      for name, v in (("RELU", 2), ("RELU6", 2), ("RELU_N1_TO_1", 1))),
    Int8Case("reshape_view", "RESHAPE", (1, 4, 4, 2), (1, 32), (), (X, np.array([1, 32], np.int32)),
             ("ReshapeOptions", {"NewShape": (1, 32)}), quantization=(("input", XQ), ("output", XQ))),
    Int8Case("squeeze_view", "SQUEEZE", (1, 4, 1, 2), (4, 2), (), options=("SqueezeOptions", {"SqueezeDims": (0, 2)}),
             quantization=(("input", XQ), ("output", XQ))),
    Int8Case("expand_dims_view", "EXPAND_DIMS", (4, 2), (4, 1, 2), (), (X, np.array([1], np.int32)),
             quantization=(("input", XQ), ("output", XQ))),
    Int8Case("concatenation_same_scale_copies", "CONCATENATION", (1, 3, 2, 2), (1, 3, 2, 4), ("copy", "copy"),
             (X, X), ("ConcatenationOptions", {"Axis": -1}), quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("concatenation_constant_same_scale", "CONCATENATION", (1, 3, 2, 2), (1, 3, 2, 5), ("copy", "copy"),
             (X, _i8(1, 3, 2, 3)), ("ConcatenationOptions", {"Axis": 3}),
             quantization=(("input", XQ), ("const0", XQ), ("output", XQ)), version=2),
    # TFLite refuses int8 CONCATENATION inputs of another scale than the output's; uint8 it requantizes
    Int8Case("concatenation_uint8_unequal_scales_requantizes", "CONCATENATION", (1, 3, 2, 2), (1, 3, 2, 5),
             ("quantize", "quantize"), (X, _rng.integers(0, 256, (1, 3, 2, 3)).astype(np.uint8)),
             ("ConcatenationOptions", {"Axis": 3}),
             quantization=(("input", (0.05, 131)), ("const0", (0.11, 100)), ("output", (0.08, 120))), io_dtype="uint8"),
    Int8Case("reshape_other_scale_is_a_view", "RESHAPE", (1, 4, 4, 2), (1, 32), (), (X, np.array([1, 32], np.int32)),
             ("ReshapeOptions", {"NewShape": (1, 32)})),  # TFLite copies the bytes: no requantization
    Int8Case("conv_uint8_per_tensor_weight_zero_point", "CONV_2D", (1, 6, 6, 3), (1, 3, 3, 4), ("convolution",),
             (X, _rng.integers(0, 256, (4, 3, 3, 3)).astype(np.uint8), _i32(4)),
             ("Conv2DOptions", _window("SAME", 2, "RELU6")),
             (("input", (0.05, 131)), ("output", (0.08, 120)), ("const0", (0.01, 140)), ("const1", (0.05 * 0.01, 0))),
             io_dtype="uint8"),
    # TRANSPOSE_CONV: inputs output_shape (const0), weights (const1), input, bias (const2)
    *(Int8Case(f"transpose_conv_{name}", "TRANSPOSE_CONV", (1, 4, 4, 3), (1, 8, 8, 4), ("deconvolution",),
               (np.array([1, 8, 8, 4], np.int32), _i8(4, 3, 3, 3), X, _i32(4)),
               ("TransposeConvOptions", {"Padding": "SAME", "StrideH": 2, "StrideW": 2}),
               (("input", XQ), ("output", YQ), ("const1", wq),
                ("const2", (tuple(XQ[0] * v for v in wq[0]), (0,) * 4, 0) if len(wq) == 3 else (XQ[0] * wq[0], 0))),
               version=3)
      for name, wq in (("per_channel", _per_channel(4, 0)), ("per_tensor", (0.01, 0)))),
    Int8Case("resize_nearest_half_pixel", "RESIZE_NEAREST_NEIGHBOR", (1, 5, 7, 2), (1, 9, 4, 2), ("resize",),
             (X, np.array([9, 4], np.int32)), ("ResizeNearestNeighborOptions", {"HalfPixelCenters": True}),
             quantization=(("input", XQ), ("output", XQ)), version=3),
    Int8Case("quantize_float32_to_int8", "QUANTIZE", (1, 4, 5, 3), (1, 4, 5, 3), ("quantize",),
             quantization=(("output", YQ),), io_dtype="float32", output_dtype="int8"),
    Int8Case("quantize_int8_requantize", "QUANTIZE", (1, 4, 5, 3), (1, 4, 5, 3), ("quantize",), version=2),
    Int8Case("dequantize_int8_to_float32", "DEQUANTIZE", (1, 4, 5, 3), (1, 4, 5, 3), ("dequantize",),
             quantization=(("input", XQ),), output_dtype="float32", version=2),
    # data movement: the stored values moved (one quantization in and out)
    Int8Case("strided_slice", "STRIDED_SLICE", (1, 6, 7, 4), (1, 2, 5, 3), ("strided_slice",),
             (X, np.array([0, 1, 2, 0], np.int32), np.array([1, 5, 7, 3], np.int32), np.array([1, 2, 1, 1], np.int32)),
             ("StridedSliceOptions", {}), quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("gather", "GATHER", (1, 4, 5, 3), (1, 4, 2, 3), ("gather",), (X, np.array([4, 1], np.int32)),
             ("GatherOptions", {"Axis": 2}), quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("tile", "TILE", (1, 2, 3, 2), (1, 4, 3, 4), ("tile",), (X, np.array([1, 2, 1, 2], np.int32)),
             quantization=(("input", XQ), ("output", XQ)), version=2),
    Int8Case("depth_to_space", "DEPTH_TO_SPACE", (1, 3, 4, 8), (1, 6, 8, 2), ("depth_to_space",),
             options=("DepthToSpaceOptions", {"BlockSize": 2}), quantization=(("input", XQ), ("output", XQ))),
    Int8Case("mirror_pad_reflect", "MIRROR_PAD", (1, 4, 5, 2), (1, 7, 7, 2), ("pad",),
             (X, np.array([[0, 0], [1, 2], [2, 0], [0, 0]], np.int32)), ("MirrorPadOptions", {"Mode": 0}),
             quantization=(("input", XQ), ("output", XQ)), version=2),
]


def _int8_input(case: Int8Case) -> np.ndarray:
    rng = np.random.default_rng(5)
    if case.io_dtype == "float32":
        return rng.uniform(-12, 12, case.x).astype(np.float32)
    lo, hi = np.iinfo(case.io_dtype).min, np.iinfo(case.io_dtype).max
    return rng.integers(lo, hi + 1, case.x).astype(case.io_dtype)


def _reference_kernels(model: bytes, x: np.ndarray) -> np.ndarray:
    """TFLite's interpreter with its reference kernels (BUILTIN_REF)."""
    litert = pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    it = litert.Interpreter(model_content=model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).copy()


def _lsb(got: np.ndarray, ref: np.ndarray, case: Int8Case) -> np.ndarray:
    if ref.dtype == np.float32:  # DEQUANTIZE: in units of the input's scale
        return np.abs(got.astype(np.float64) - ref) / dict(case.quantization)["input"][0]
    return np.abs(got.astype(np.int64) - ref.astype(np.int64))


@host_only_under_emulation  # numpy against TFLite; ai-edge-litert 2.x dies loading int8 models under emulation
@pytest.mark.parametrize("case", INT8_CASES, ids=[c.id for c in INT8_CASES])
def test_int8_operator_plan_matches_the_interpreter(case):
    data = case.model()
    plan = plan_model(read_model(data))
    assert tuple(s.kind for s in plan.steps) == case.kinds, plan.steps
    x = _int8_input(case)
    got = run_plan(plan, x)["output"]
    ref_kernels = _reference_kernels(data, x)
    default = interpreter_outputs(data, x)["output"]
    assert got.dtype == default.dtype and got.shape == default.shape == case.y
    d_ref, d_default = _lsb(got, ref_kernels, case), _lsb(got, default, case)
    print(f"{case.id}: {int((d_ref == 0).sum())}/{got.size} bit-exact vs reference kernels (max {d_ref.max():g} LSB), "
          f"{int((d_default == 0).sum())}/{got.size} vs default kernels (max {d_default.max():g} LSB)")
    assert d_ref.max() == 0, "TFLite's reference kernels, bit for bit"
    assert d_default.max() <= 1


@pytest.mark.parametrize("case", INT8_CASES, ids=[c.id for c in INT8_CASES])
def test_int8_steps_carry_the_contracts_quantization(case):
    """Every int8 step names the quantization of each quantized role (the int8-contract):
    (scale, zero point), or (scales, 0) per channel for weights, bias = input x weight scale."""
    plan = plan_model(read_model(case.model()))
    for s in plan.steps:
        q = dict(s.param("quantization") or ())
        assert q, s
        for role, (scale, zp) in q.items():
            assert isinstance(zp, int) and (isinstance(scale, float) or all(isinstance(v, float) for v in scale)), s
        if "bias" in q:
            w, b = q["weights"][0], q["bias"][0]
            expect = tuple(q["src"][0] * v for v in w) if isinstance(w, tuple) else q["src"][0] * w
            assert b == pytest.approx(expect), s


def test_every_int8_rule_has_an_int8_case():
    lowered_int8 = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MAXIMUM", "MINIMUM",
                    "LOGISTIC", "TANH", "PAD", "TRANSPOSE", "REDUCE_MAX", "MAX_POOL_2D", "AVERAGE_POOL_2D",
                    "SOFTMAX", "RELU", "RELU6", "RELU_N1_TO_1", "RESHAPE", "CONCATENATION", "QUANTIZE", "DEQUANTIZE",
                    "MEAN", "SQUARED_DIFFERENCE", "STRIDED_SLICE", "GATHER", "TILE", "DEPTH_TO_SPACE",
                    "MIRROR_PAD", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE_CONV",
                    "RESIZE_NEAREST_NEIGHBOR"}
    assert {c.opcode for c in INT8_CASES} == lowered_int8


REFUSED_INT8 = [
    ("average_pool_rescaling", Int8Case("", "AVERAGE_POOL_2D", (1, 4, 4, 2), (1, 2, 2, 2), (),
                                        options=("Pool2DOptions", _window("VALID", 2, FilterHeight=2, FilterWidth=2)),
                                        version=2),
     r"operator #0 AVERAGE_POOL_2D: input quantization \(scale 0.05.*, zero point 3\) differing from the output's"),
    ("softmax_output_scale", Int8Case("", "SOFTMAX", (1, 10), (1, 10), (), options=("SoftmaxOptions", {"Beta": 1.0}),
                                      version=2),
     r"operator #0 SOFTMAX: output .* has scale 0.0799.* and zero point -7, expected 0.00390625 \(1/256\) and -128"),
    ("fully_connected_keep_num_dims", Int8Case("", "FULLY_CONNECTED", (1, 4), (1, 3), (), (X, _i8(3, 4), _i32(3)),
                                               ("FullyConnectedOptions", {"KeepNumDims": True}),
                                               (("input", XQ), ("output", YQ), ("const0", (0.01, 0)),
                                                ("const1", (XQ[0] * 0.01, 0))), version=4),
     r"operator #0 FULLY_CONNECTED: option keep_num_dims=True is not supported"),
    ("fully_connected_4d_input", Int8Case("", "FULLY_CONNECTED", (1, 1, 1, 4), (1, 3), (), (X, _i8(3, 4), _i32(3)),
                                          ("FullyConnectedOptions", {}),
                                          (("input", XQ), ("output", YQ), ("const0", (0.01, 0)),
                                           ("const1", (XQ[0] * 0.01, 0))), version=4),
     r"operator #0 FULLY_CONNECTED: input \[1, 1, 1, 4\] -> output \[1, 3\] \(2-D \(batch, in\) -> \(batch, out\) only\)"),
    ("mul_int8", Int8Case("", "MUL", (1, 4, 5, 3), (1, 4, 5, 3), (), (X, _i8(1, 4, 5, 3)),
                          ("MulOptions", {"FusedActivationFunction": "RELU6"}),
                          (("input", XQ), ("const0", (0.03, -4)), ("output", YQ)), version=2),
     r"operator #0 MUL: the operator on int8 tensors \(int8 / uint8: ADD, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, SUB\) "
     r"is not supported"),
    ("hard_swish_int8", Int8Case("", "HARD_SWISH", (1, 4), (1, 4), ()),
     r"operator #0 HARD_SWISH: the operator on int8 tensors is not supported"),
    ("div_int8", Int8Case("", "DIV", (1, 4), (1, 4), (), (X, _i8(4)), ("DivOptions", {}),
                          (("input", XQ), ("const0", XQ), ("output", YQ)), version=2),
     r"operator #0 DIV: the operator on int8 tensors \(int8 / uint8: ADD, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, SUB\) "
     r"is not supported"),
    ("maximum_int8_two_quantizations", Int8Case("", "MAXIMUM", (1, 4), (1, 4), (), (X, _i8(4)),
                                                quantization=(("input", XQ), ("const0", XQ), ("output", YQ)),
                                                version=2),
     r"operator #0 MAXIMUM: inputs quantized .* with the output .* \(one quantization only\) is not supported"),
    ("hybrid_conv", Int8Case("", "CONV_2D", (1, 4, 4, 2), (1, 4, 4, 2), (), (X, _i8(2, 3, 3, 2), _f32(2)),
                             ("Conv2DOptions", _window("SAME", 1)), (("const0", (0.01, 0)),), io_dtype="float32"),
     r"operator #0 CONV_2D: tensor #1 'const0' of type int8 in a float32 operator \(hybrid quantization\)"),
    ("mean_over_channels", Int8Case("", "MEAN", (1, 4, 4, 3), (1, 4, 4), (), (X, np.array([3], np.int32)),
                                    ("ReducerOptions", {"KeepDims": False}), version=2),
     r"operator #0 MEAN: MEAN of int8 tensors over axes \[3\] \(int8 / uint8: MEAN and REDUCE_MAX over H and W "
     r"only\) is not supported"),
    ("mean_over_h_only", Int8Case("", "MEAN", (1, 4, 4, 3), (1, 1, 4, 3), (), (X, np.array([1], np.int32)),
                                  ("ReducerOptions", {"KeepDims": True}), version=2),
     r"operator #0 MEAN: MEAN of int8 tensors over axes \[1\] \(int8 / uint8: MEAN and REDUCE_MAX over H and W "
     r"only\) is not supported"),
    ("mean_rank3", Int8Case("", "MEAN", (4, 4, 3), (3,), (), (X, np.array([0, 1], np.int32)),
                            ("ReducerOptions", {"KeepDims": False}), version=2),
     r"operator #0 MEAN: MEAN of int8 tensors over axes \[0, 1\] \(int8 / uint8: MEAN and REDUCE_MAX over H and W "
     r"only\) is not supported"),
    ("dequantize_without_quantization", Int8Case("", "DEQUANTIZE", (1, 4), (1, 4), (), quantization=(),
                                                 output_dtype="float32", version=2),
     r"operator #0 DEQUANTIZE: input .* is int8 without quantization parameters"),
]


# refused already by the reader's quantization checks (ModelFormatError: TFLite refuses those
# models too); every other case is a valid model the plan refuses (UnsupportedModelError)
REFUSED_BY_THE_READER = {"softmax_output_scale", "dequantize_without_quantization"}


@pytest.mark.parametrize("name,case,message", REFUSED_INT8, ids=[c[0] for c in REFUSED_INT8])
def test_int8_refusals_name_the_operator_and_why(name, case, message):
    """Refused at load, with the one class that says who refused: the plan (the model is valid)
    or the reader (the file is not)."""
    error, other = ((ModelFormatError, UnsupportedModelError) if name in REFUSED_BY_THE_READER
                    else (UnsupportedModelError, ModelFormatError))
    with pytest.raises(error, match=message) as info:
        plan_model(read_model(case.model()))
    assert not isinstance(info.value, other), type(info.value).__mro__


def _conv_then(opcode: str, relu_out_q: tuple, case=None):
    """An int8 CONV_2D (no fused activation; or ``case``'s one operator) followed by ``opcode``
    (RELU / RELU6) writing a new graph output of quantization ``relu_out_q``: a two-operator
    model made from the one-operator one (the reader's specs, replaced)."""
    import dataclasses

    from acl_bridge.models.format.tflite_reader import Quantization

    case = case or INT8_CASES[2]  # conv_per_tensor_same_even_kernel, no fused activation
    m = read_model(case.model())
    conv = m.operators[0]
    y = m.tensors[conv.outputs[0]]
    z = dataclasses.replace(y, index=len(m.tensors), name="activated",
                            quantization=Quantization((float(np.float32(relu_out_q[0])),), (relu_out_q[1],), 0))
    act = dataclasses.replace(conv, index=1, opcode=opcode, inputs=(y.index,), outputs=(z.index,), options=())
    return dataclasses.replace(m, tensors=m.tensors + (z,), operators=(conv, act), outputs=(z.index,)), case


@pytest.mark.parametrize("relu_q, kinds", [(YQ, ["sub"]), ((0.07, -9), ["sub", "activation"])])
def test_an_int8_relu_on_a_subtraction_is_its_clamp_where_it_keeps_the_scale(relu_q, kinds):
    """SUB then RELU of the output's own quantization: one function, the RELU its fused
    activation (ACL's activation in place after ACL's subtraction); a RELU that requantizes
    stays a step of its own."""
    case = next(c for c in INT8_CASES if c.id == "sub_constant_first_broadcast")
    m, _ = _conv_then("RELU", relu_q, case)
    plan = plan_model(m)
    assert [s.kind for s in plan.steps] == kinds
    assert plan.steps[0].param("activation") == ("relu" if kinds == ["sub"] else None)
    assert plan.fused == ((1,) if kinds == ["sub"] else ())
    x = _int8_input(case)
    unclamped = run_plan(plan_model(read_model(case.model())), x)["output"]
    if kinds == ["sub"]:
        assert np.array_equal(run_plan(plan, x)["activated"], np.maximum(unclamped, YQ[1]))


@pytest.mark.parametrize("opcode", ["RELU", "RELU6"])
def test_int8_activation_of_the_same_scale_is_fused_as_a_clamp(opcode):
    m, case = _conv_then(opcode, YQ)
    plan = plan_model(m)
    assert [s.kind for s in plan.steps] == ["convolution"] and plan.fused == (1,)
    step = plan.steps[0]
    assert step.output == m.outputs[0] and step.param("activation") == {"RELU": "relu", "RELU6": "bounded_relu"}[opcode]
    assert dict(step.param("quantization"))["dst"] == (float(np.float32(YQ[0])), YQ[1])
    x = _int8_input(case)
    unfused = run_plan(plan_model(read_model(case.model())), x)["output"]
    lo = YQ[1]  # relu and relu6 clamp at the zero point, relu6 also at zero point + round(6 / scale)
    hi = 127 if opcode == "RELU" else YQ[1] + int(np.floor(np.float32(6) / np.float32(YQ[0]) + np.float32(0.5)))
    assert np.array_equal(run_plan(plan, x)["activated"], np.clip(unfused, lo, hi))


def test_int8_activation_that_requantizes_stays_a_step_of_its_own():
    """A RELU whose output scale differs from its input's: TFLite requantizes, then clamps (a
    fused clamp on the convolution would round twice), so it is neither fused nor in place."""
    m, case = _conv_then("RELU", (0.03, -20))
    plan = plan_model(m)
    assert [s.kind for s in plan.steps] == ["convolution", "activation"] and plan.fused == ()
    assert not plan.steps[1].param("in_place") and plan.steps[1].output == m.outputs[0]
    q = dict(plan.steps[1].param("quantization"))
    assert q["src"] != q["dst"]


MEAN_CASES = [c for c in INT8_CASES if c.opcode == "MEAN"]


def mean_inputs(case: Int8Case, count: int):
    """``count`` seeded random inputs of an int8 / uint8 case: every other one narrowed to an
    eighth of the range around its middle (means away from the clamp)."""
    lo, hi = np.iinfo(case.io_dtype).min, np.iinfo(case.io_dtype).max
    rng = np.random.default_rng(17)
    for k in range(count):
        x = rng.integers(lo, hi + 1, case.x).astype(case.io_dtype)
        yield (x.astype(np.int64) // 8 + (lo + hi) // 2).astype(case.io_dtype) if k % 2 else x


@host_only_under_emulation  # numpy against TFLite; MEAN on ACL: test_mean_acl.py
@pytest.mark.parametrize("case", MEAN_CASES, ids=[c.id for c in MEAN_CASES])
def test_int8_mean_is_the_reference_kernels_on_many_inputs(case):
    """TFLite's MEAN rounds once, with a multiplier of its own (in_scale / out_scale / n):
    200 random inputs per case, every output bit for bit with the reference kernels; the
    default kernels' distance printed (pytest -s)."""
    data = case.model()
    plan = plan_model(read_model(data))
    exact = total = worst_default = 0
    for x in mean_inputs(case, 200):
        got = run_plan(plan, x)["output"]
        d = _lsb(got, _reference_kernels(data, x), case)
        exact, total = exact + int((d == 0).sum()), total + d.size
        assert d.max() == 0, (x, got, _reference_kernels(data, x))
        worst_default = max(worst_default, int(_lsb(got, interpreter_outputs(data, x)["output"], case).max()))
    print(f"{case.id}: {exact}/{total} outputs bit-exact vs reference kernels over 200 inputs, "
          f"max {worst_default} LSB from the default kernels")


# ---------------------------------------------------------------------------- data movement on graphs
@dataclass(frozen=True)
class GraphCase:
    """One operator with several outputs (SPLIT, SPLIT_V, UNPACK) or another output type
    (CAST), built with graph_tflite: graph input ``x`` -> ``opcode`` -> outputs ``y0``, ``y1``..."""

    id: str
    opcode: str
    x: Tuple[int, ...]
    ys: Tuple[Tuple[int, ...], ...]
    kinds: Tuple[str, ...]
    inputs: Tuple[object, ...] = ("x",)  # "x" or a constant
    options: Optional[Options] = None
    y_dtype: str = "float32"

    def model(self) -> bytes:
        from .graph_tflite import graph_model

        consts = [(f"c{k}", v.shape, v.dtype.name, v, None) for k, v in enumerate(self.inputs)
                  if isinstance(v, np.ndarray)]
        names = iter(n for n, *_ in consts)
        ins = [i if isinstance(i, str) else next(names) for i in self.inputs]
        outs = [f"y{k}" for k in range(len(self.ys))]
        tensors = [("x", self.x, "float32", None, None)] + consts + [(o, y, self.y_dtype, None, None)
                                                                    for o, y in zip(outs, self.ys)]
        return graph_model(tensors, [(self.opcode, ins, outs, self.options)], ["x"], outs)


MOVEMENT_GRAPHS = [
    GraphCase("split_channels", "SPLIT", (1, 4, 5, 6), ((1, 4, 5, 2),) * 3, ("strided_slice",) * 3,
              (np.array([3], np.int32), "x"), ("SplitOptions", {"NumSplits": 3})),
    GraphCase("split_v_rows_negative_axis", "SPLIT_V", (2, 7, 3), ((2, 2, 3), (2, 5, 3)), ("strided_slice",) * 2,
              ("x", np.array([2, -1], np.int32), np.array([-2], np.int32)), ("SplitVOptions", {"NumSplits": 2})),
    GraphCase("unpack_axis1", "UNPACK", (2, 3, 4), ((2, 4),) * 3, ("strided_slice",) * 3,
              options=("UnpackOptions", {"Num": 3, "Axis": 1})),
    GraphCase("cast_float32_to_int32", "CAST", (1, 4, 5, 3), ((1, 4, 5, 3),), ("cast",), y_dtype="int32"),
    # PACK of the graph input twice: copies into the output's slices (views where a producer
    # can write there: test_pack_inputs_are_views_of_the_output)
    GraphCase("pack_last_axis", "PACK", (2, 3), ((2, 3, 2),), ("copy", "copy"),
              ("x", "x"), ("PackOptions", {"ValuesCount": 2, "Axis": -1})),
    # a FILL of constants writing a graph output is not folded at load: NEFill
    GraphCase("fill_graph_output", "FILL", (1, 2), ((2, 3, 4),), ("fill",),
              (np.array([2, 3, 4], np.int32), np.array(1.5, np.float32))),
]


@host_only_under_emulation  # numpy against TFLite
@pytest.mark.parametrize("case", MOVEMENT_GRAPHS, ids=[c.id for c in MOVEMENT_GRAPHS])
def test_movement_graph_plan_matches_the_interpreter(case):
    data = case.model()
    plan = plan_model(read_model(data))
    assert tuple(s.kind for s in plan.steps) == case.kinds, plan.steps
    x = np.random.default_rng(3).uniform(-3, 3, case.x).astype(np.float32)
    ref, got = interpreter_outputs(data, x), run_plan(plan, x)
    for k, y in enumerate(case.ys):
        assert got[f"y{k}"].shape == ref[f"y{k}"].shape == y and got[f"y{k}"].dtype == ref[f"y{k}"].dtype
        assert np.abs(got[f"y{k}"].astype(np.float64) - ref[f"y{k}"]).max() <= tolerance(ref[f"y{k}"]), k


@pytest.mark.parametrize("case", MOVEMENT_GRAPHS, ids=[c.id for c in MOVEMENT_GRAPHS])
def test_movement_graph_steps_bind_to_the_bridge_functions(case, monkeypatch):
    assert_steps_bind(plan_model(read_model(case.model())), monkeypatch)


def split_then_relu(opcode: str = "SPLIT") -> bytes:
    """x (1, 4, 5, 6) -> SPLIT into 3 along the channels (or SLICE of H rows 1..3) -> RELU on
    each part -> the graph's outputs: the parts are no graph outputs, so they are views of x."""
    from .graph_tflite import graph_model

    x = ("x", (1, 4, 5, 6), "float32", None, None)
    if opcode == "SPLIT":
        parts = [f"p{k}" for k in range(3)]
        tensors = [x, ("axis", (1,), "int32", np.array([3], np.int32), None)]
        tensors += [(p, (1, 4, 5, 2), "float32", None, None) for p in parts]
        ops = [("SPLIT", ["axis", "x"], parts, ("SplitOptions", {"NumSplits": 3}))]
    else:
        parts = ["p0"]
        tensors = [x, ("begin", (4,), "int32", np.array([0, 1, 0, 0], np.int32), None),
                   ("size", (4,), "int32", np.array([-1, 2, -1, -1], np.int32), None),
                   ("p0", (1, 2, 5, 6), "float32", None, None)]
        ops = [("SLICE", ["x", "begin", "size"], parts, None)]
    outs = [f"y{k}" for k in range(len(parts))]
    tensors += [(y, [t for t in tensors if t[0] == p][0][1], "float32", None, None) for p, y in zip(parts, outs)]
    ops += [("RELU", [p], [y], None) for p, y in zip(parts, outs)]
    return graph_model(tensors, ops, ["x"], outs)


@host_only_under_emulation  # numpy against TFLite
@pytest.mark.parametrize("opcode", ["SPLIT", "SLICE"])
def test_slices_read_by_other_operators_are_views_of_the_input(opcode):
    data = split_then_relu(opcode)
    plan = plan_model(read_model(data))
    assert {s.kind for s in plan.steps} == {"activation"}, plan.steps  # no strided_slice step: views
    x_id = plan.model.inputs[0]
    sliced = [v for v in plan.views if v.parent == x_id]
    assert len(sliced) == (3 if opcode == "SPLIT" else 1) and all(v.how[0] == "slice" for v in sliced)
    x = np.random.default_rng(3).uniform(-3, 3, (1, 4, 5, 6)).astype(np.float32)
    ref, got = interpreter_outputs(data, x), run_plan(plan, x)
    for name in ref:
        assert np.array_equal(got[name], ref[name]), name


def relus_then_pack(axis: int) -> bytes:
    """x (2, 3, 4) -> RELU, ABS... no: RELU and RELU6 -> PACK along ``axis`` -> y."""
    from .graph_tflite import graph_model

    shape = (2, 3, 4)
    out = shape[:axis] + (2,) + shape[axis:]
    tensors = [("x", shape, "float32", None, None), ("a", shape, "float32", None, None),
               ("b", shape, "float32", None, None), ("y", out, "float32", None, None)]
    ops = [("RELU", ["x"], ["a"], None), ("RELU6", ["x"], ["b"], None),
           ("PACK", ["a", "b"], ["y"], ("PackOptions", {"ValuesCount": 2, "Axis": axis}))]
    return graph_model(tensors, ops, ["x"], ["y"])


@host_only_under_emulation  # numpy against TFLite
@pytest.mark.parametrize("axis", [0, 1, 3])
def test_pack_inputs_are_views_of_the_output(axis):
    data = relus_then_pack(axis)
    plan = plan_model(read_model(data))
    assert [s.kind for s in plan.steps] == ["activation", "activation"], plan.steps  # no copy: views
    x = np.random.default_rng(3).uniform(-3, 9, (2, 3, 4)).astype(np.float32)
    ref, got = interpreter_outputs(data, x)["y"], run_plan(plan, x)["y"]
    assert np.array_equal(got, ref)
