"""Every lowering rule on one-operator models (``tiny_tflite.one_operator_model``): the plan
carried out by numpy against TFLite's interpreter, element by element.

Adding an operator: its rule in ``acl_bridge/models/lowering/rules.py`` and its cases in
``CASES`` below; ``test_every_supported_operator_has_a_case`` fails until both exist."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")

from acl_bridge.models.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.tflite_plan import SUPPORTED, plan_model  # noqa: E402
from acl_bridge.models.tflite_reader import read_model  # noqa: E402

from .conftest import interpreter_outputs, tolerance  # noqa: E402
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
    params: Tuple[Tuple[str, object], ...] = field(default=())  # expected among the first step's params


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
    # elementwise
    Case("add_itself_relu_n1_to_1", "ADD", (1, 4, 5, 3), (1, 4, 5, 3), ("add",), (X, X),
         ("AddOptions", {"FusedActivationFunction": "RELU_N1_TO_1"}), params=(("activation", "lu_bounded_relu"),)),
    Case("prelu_per_channel", "PRELU", (1, 4, 4, 3), (1, 4, 4, 3), ("prelu",), (X, _f32(1, 1, 3))),
    # activations
    *(Case(f"{name.lower()}", name, (1, 4, 5, 3), (1, 4, 5, 3), ("activation",))
      for name in ("RELU", "RELU6", "RELU_N1_TO_1", "TANH", "LOGISTIC")),
    Case("softmax_beta", "SOFTMAX", (2, 10), (2, 10), ("softmax",), options=("SoftmaxOptions", {"Beta": 0.5})),
    # pooling
    Case("max_pool_same_3x3_stride2", "MAX_POOL_2D", (1, 7, 7, 2), (1, 4, 4, 2), ("pooling",),
         options=("Pool2DOptions", _window("SAME", 2, FilterHeight=3, FilterWidth=3))),
    Case("average_pool_valid_2x2", "AVERAGE_POOL_2D", (1, 6, 6, 3), (1, 3, 3, 3), ("pooling",),
         options=("Pool2DOptions", _window("VALID", 2, FilterHeight=2, FilterWidth=2))),
    Case("average_pool_same_edges", "AVERAGE_POOL_2D", (1, 5, 5, 2), (1, 5, 5, 2), ("pooling",),
         options=("Pool2DOptions", _window("SAME", 1, FilterHeight=3, FilterWidth=3))),
    # shape and view
    Case("pad", "PAD", (1, 3, 4, 2), (1, 6, 7, 2), ("pad",), (X, np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32)),
         params=(("pad_width", ((0, 0), (1, 2), (2, 1), (0, 0))),)),
    Case("resize_bilinear_half_pixel", "RESIZE_BILINEAR", (1, 5, 7, 2), (1, 9, 4, 2), ("resize",),
         (X, np.array([9, 4], np.int32)), ("ResizeBilinearOptions", {"HalfPixelCenters": True}), version=3),
    Case("reshape_view", "RESHAPE", (1, 4, 4, 2), (1, 32), (), (X, np.array([1, 32], np.int32)),
         ("ReshapeOptions", {"NewShape": (1, 32)})),
    Case("concatenation_of_itself_copies", "CONCATENATION", (1, 3, 2, 2), (1, 3, 2, 4), ("copy", "copy"), (X, X),
         ("ConcatenationOptions", {"Axis": -1})),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_operator_plan_matches_the_interpreter(case):
    data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
    plan = plan_model(read_model(data))
    assert tuple(s.kind for s in plan.steps) == case.kinds, plan.steps
    if case.params:
        assert set(case.params) <= set(plan.steps[0].params), plan.steps[0]
    x = np.random.default_rng(3).uniform(-3, 3, case.x).astype(np.float32)
    ref = interpreter_outputs(data, x)["output"]
    got = run_plan(plan, x)["output"]
    assert got.shape == ref.shape == case.y
    assert np.abs(got - ref).max() <= tolerance(ref)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_operator_steps_bind_to_the_bridge_functions(case, monkeypatch):
    data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
    assert_steps_bind(plan_model(read_model(data)), monkeypatch)


def test_every_supported_operator_has_a_case():
    assert sorted({c.opcode for c in CASES}) == sorted(SUPPORTED)


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
