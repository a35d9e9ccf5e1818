"""TFLite's 3-D pooling custom operators, ``CUSTOM:AveragePool3D`` and ``CUSTOM:MaxPool3D``
(options a flexbuffer map), on one-operator models written with the ``tflite`` builders: the
plan (one ``pooling_3d`` step, carried out by numpy) and the fallback kernel against a numpy
reference written here loop by loop from TFLite's kernels/pooling3d.cc (ai-edge-litert's
interpreter does not register these custom operators: the first test shows it), element by
element: float32 within the stated tolerance, int8 exactly. ACL's run of the same models:
tests/models/test_pool3d_acl.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
flexbuffers = pytest.importorskip("flatbuffers.flexbuffers", reason="the 'flatbuffers' package is not installed")

from acl_bridge.models.format.tflite_reader import ModelFormatError, UnsupportedModelError, read_model  # noqa: E402
from acl_bridge.models.lowering.partition import CUSTOM  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import host_only_under_emulation, tolerance  # noqa: E402
from .graph_tflite import graph_model  # noqa: E402
from .test_plan import assert_steps_bind  # noqa: E402

XQ = (0.05, 3)  # int8 input and output: one quantization (TFLite's requirement)


def options(ksize, strides, padding, **more) -> bytes:
    """The custom_options TFLite's converter writes: a flexbuffer map."""
    return bytes(flexbuffers.Dumps({"ksize": [1, *ksize, 1], "strides": [1, *strides, 1], "padding": padding,
                                    "data_format": "NDHWC", **more}))


@dataclass(frozen=True)
class Pool3DCase:
    id: str
    opcode: str  # "CUSTOM:AveragePool3D" / "CUSTOM:MaxPool3D"
    x: Tuple[int, ...]
    y: Tuple[int, ...]
    ksize: Tuple[int, int, int]
    strides: Tuple[int, int, int]
    padding: str
    dtype: str = "float32"
    more: Tuple[Tuple[str, object], ...] = ()

    def model(self, raw: Optional[bytes] = None, y: Optional[Tuple[int, ...]] = None, dtype: Optional[str] = None) -> bytes:
        dtype = dtype or self.dtype
        q = XQ if dtype != "float32" else None
        raw = options(self.ksize, self.strides, self.padding, **dict(self.more)) if raw is None else raw
        return graph_model([("x", self.x, dtype, None, q), ("y", y or self.y, dtype, None, q)],
                           [(self.opcode, ["x"], ["y"], ("", raw))], ["x"], ["y"])

    def input(self) -> np.ndarray:
        rng = np.random.default_rng(5)
        if self.dtype == "float32":
            return rng.uniform(-3, 3, self.x).astype(np.float32)
        return rng.integers(-128, 128, self.x).astype(self.dtype)


AVG, MAX = "CUSTOM:AveragePool3D", "CUSTOM:MaxPool3D"
CASES = [
    Pool3DCase("avg_same_2x3x2_stride2", AVG, (1, 5, 6, 7, 2), (1, 3, 3, 4, 2), (2, 3, 2), (2, 2, 2), "SAME"),
    Pool3DCase("max_valid_2x2x2_stride1x2x2", MAX, (2, 4, 5, 4, 3), (2, 3, 2, 2, 3), (2, 2, 2), (1, 2, 2), "VALID"),
    Pool3DCase("max_same_3x3x3", MAX, (1, 3, 4, 4, 2), (1, 3, 4, 4, 2), (3, 3, 3), (1, 1, 1), "SAME"),
    Pool3DCase("avg_int8_same_3x3x3", AVG, (1, 3, 4, 4, 2), (1, 3, 4, 4, 2), (3, 3, 3), (1, 1, 1), "SAME", "int8"),
    Pool3DCase("max_int8_valid_2x2x2_stride2", MAX, (1, 4, 4, 6, 3), (1, 2, 2, 3, 3), (2, 2, 2), (2, 2, 2), "VALID",
               "int8"),
]


# ------------------------------------------------------------------- the reference, from pooling3d.cc
def reference(x: np.ndarray, opcode: str, ksize, strides, padding: str) -> np.ndarray:
    """TFLite's AveragePool3D / MaxPool3D loop by loop: padding from ComputePadding3DValues
    (SAME: out = ceil(in / stride), the smaller half of the total before), each window cut
    to the input (filter_start = max(0, -origin), filter_end = min(filter, in - origin)), the
    average over the elements inside (int8: the int32 sum rounded half away from zero, C's
    division), the max from the type's lowest value."""
    n, d, h, w, c = x.shape
    outs, pads = [], []
    for size, k, s in zip((d, h, w), ksize, strides):
        o = -(-size // s) if padding == "SAME" else (size - k + s) // s
        outs.append(o)
        pads.append(max(((o - 1) * s + k - size) // 2, 0))
    y = np.zeros((n, *outs, c), x.dtype)
    for b in range(n):
        for o1 in range(outs[0]):
            for o2 in range(outs[1]):
                for o3 in range(outs[2]):
                    origins = [o * s - p for o, s, p in zip((o1, o2, o3), strides, pads)]
                    lo = [max(0, -g) for g in origins]
                    hi = [min(k, size - g) for k, size, g in zip(ksize, (d, h, w), origins)]
                    block = x[b, origins[0] + lo[0]:origins[0] + hi[0], origins[1] + lo[1]:origins[1] + hi[1],
                              origins[2] + lo[2]:origins[2] + hi[2]].reshape(-1, c)
                    if opcode == MAX:
                        y[b, o1, o2, o3] = block.max(axis=0)
                    elif x.dtype == np.float32:
                        y[b, o1, o2, o3] = block.sum(axis=0, dtype=np.float32) / np.float32(len(block))
                    else:
                        total, count = block.astype(np.int64).sum(axis=0), len(block)
                        y[b, o1, o2, o3] = [int((t + count // 2) / count) if t > 0 else -int((-t + count // 2) / count)
                                            for t in total.tolist()]
    return y


def _check(got: np.ndarray, ref: np.ndarray) -> None:
    assert got.shape == ref.shape and got.dtype == ref.dtype
    if ref.dtype == np.float32:
        assert np.abs(got - ref).max() <= tolerance(ref)
    else:
        assert np.array_equal(got, ref), np.argwhere(got != ref)[:5]


# ------------------------------------------------------------------- tests
def test_tflites_interpreter_does_not_register_the_3d_pools():
    """Why the reference is written here: ai-edge-litert's interpreter refuses the model at
    allocate_tensors ("unresolved custom op"), with every op resolver it offers."""
    interp = pytest.importorskip("ai_edge_litert.interpreter", reason="ai-edge-litert is not installed")
    for resolver in interp.OpResolverType:
        it = interp.Interpreter(model_content=CASES[0].model(), experimental_op_resolver_type=resolver)
        with pytest.raises(RuntimeError, match="unresolved custom op: AveragePool3D"):
            it.allocate_tensors()


@host_only_under_emulation
def test_a_worked_example():
    """x = 1..8 in a 2x2x2 cube, SAME 2x2x2 windows at stride 1 (the padding after each axis):
    the first window holds all eight (4.5), the last the corner alone (8), one along W's edge
    the four of x = 1 (2 + 4 + 6 + 8) / 4 = 5; the max of each the largest it holds."""
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2, 1)
    case = Pool3DCase("cube", AVG, x.shape, x.shape, (2, 2, 2), (1, 1, 1), "SAME")
    for opcode, first, w_edge, last in ((AVG, 4.5, 5.0, 8.0), (MAX, 8.0, 8.0, 8.0)):
        data = Pool3DCase("cube", opcode, x.shape, x.shape, (2, 2, 2), (1, 1, 1), "SAME").model()
        for y in (reference(x, opcode, case.ksize, case.strides, "SAME"), run_plan(plan_model(read_model(data)), x)["y"]):
            assert (y[0, 0, 0, 0, 0], y[0, 0, 0, 1, 0], y[0, 1, 1, 1, 0]) == (first, w_edge, last)
    assert reference(x, AVG, (2, 2, 2), (1, 1, 1), "SAME")[0, 1, 1, 0, 0] == 7.5  # (7 + 8) / 2


@host_only_under_emulation  # numpy only; the ACL run: test_pool3d_acl.py
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_plan_is_one_pooling_3d_step_matching_the_reference(case):
    plan = plan_model(read_model(case.model()))
    assert [s.kind for s in plan.steps] == ["pooling_3d"]
    step = plan.steps[0]
    assert step.param("kernel") == case.ksize and step.param("stride") == case.strides
    x = case.input()
    _check(run_plan(plan, x)["y"], reference(x, case.opcode, case.ksize, case.strides, case.padding))


@host_only_under_emulation
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fallback_kernel_matches_the_reference(case):
    """ACL's refusal at configure (ACL 20.08 has no Pooling3dLayer): the fallback kernel runs
    the operator from its options."""
    plan = plan_model(read_model(case.model()), fallback=True, acl_refused={0: "operator #0: refused by ACL (test)"})
    assert not plan.steps and [f.op_index for f in plan.fallbacks] == [0]
    x = case.input()
    _check(run_plan(plan, x)["y"], reference(x, case.opcode, case.ksize, case.strides, case.padding))


FLOAT_CASES = [c for c in CASES if c.dtype == "float32"]


@pytest.mark.parametrize("case", FLOAT_CASES, ids=[c.id for c in FLOAT_CASES])
def test_steps_bind_to_the_bridge_function(case, monkeypatch):
    assert_steps_bind(plan_model(read_model(case.model())), monkeypatch)


@host_only_under_emulation
def test_an_activation_in_the_options_falls_back_and_is_not_applied():
    """TFLite's kernel applies no activation (Arm NN's delegate would): the rule refuses the
    operator, the fallback runs it as TFLite does."""
    case = CASES[0]  # averages of both signs
    data = case.model(options(case.ksize, case.strides, case.padding, activation="kTfLiteActRelu"))
    plan = plan_model(read_model(data), fallback=True)
    (fb,) = plan.fallbacks
    assert fb.kind == CUSTOM and "activation='kTfLiteActRelu'" in fb.reason
    x = case.input()
    ref = reference(x, case.opcode, case.ksize, case.strides, case.padding)
    assert (ref < 0).any()
    _check(run_plan(plan, x)["y"], ref)


BAD = [
    ("no_ksize", bytes(flexbuffers.Dumps({"strides": [1, 1, 1, 1, 1], "padding": "SAME"})),
     r"operator #0 CUSTOM:MaxPool3D: custom option ksize is None, expected five integers"),
    ("ksize_batch", bytes(flexbuffers.Dumps({"ksize": [2, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "SAME"})),
     r"custom option ksize is \[2, 2, 2, 2, 1\], expected \[1, d, h, w, 1\]"),
    ("ncdhw", bytes(flexbuffers.Dumps({"ksize": [1, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "SAME",
                                       "data_format": "NCDHW"})),
     r"custom option data_format is 'NCDHW', expected 'NDHWC'"),
    ("explicit_padding", options((2, 2, 2), (1, 1, 1), "EXPLICIT"),
     r"custom option padding is 'EXPLICIT', expected 'SAME' or 'VALID'"),
    ("not_a_flexbuffer", b"\x01\x02", r"custom_options are no flexbuffer"),
]


@pytest.mark.parametrize("name,raw,message", BAD, ids=[b[0] for b in BAD])
def test_malformed_options_are_format_errors_naming_the_field(name, raw, message):
    case = CASES[2]
    with pytest.raises(ModelFormatError, match=message):
        plan_model(read_model(case.model(raw)), fallback=True)


def test_an_output_shape_the_options_do_not_give_is_a_format_error():
    case = CASES[0]
    with pytest.raises(ModelFormatError, match=r"output is \[1, 3, 3, 3, 2\], SAME pooling of \[1, 5, 6, 7, 2\] "
                                               r"with ksize \[2, 3, 2\] and strides \[2, 2, 2\] gives \[1, 3, 3, 4, 2\]"):
        plan_model(read_model(case.model(y=(1, 3, 3, 3, 2))))


def test_uint8_is_refused_by_the_rule_and_the_fallback():
    """TFLite's kernel takes float32, int8 and int16: a uint8 model is refused at load, naming why."""
    with pytest.raises(UnsupportedModelError, match=r"uint8 tensors \(TFLite's 3-D pooling takes float32, int8, int16\)"):
        plan_model(read_model(CASES[1].model(dtype="uint8")), fallback=True)
