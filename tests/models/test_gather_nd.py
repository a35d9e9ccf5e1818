"""GATHER_ND on one-operator models against TFLite's interpreter, element by element: constant
indices lowered onto ACL's ``gather`` (params viewed as (K, C), flat positions computed at
load, the output viewed as (N, C)), the plan carried out by numpy; runtime indices on the
fallback (the rule refuses them), TFLite's check of an index out of params made by both
sides. float32 and int8 (moved as stored: bit for bit). ACL's run of the same models:
tests/models/test_pool3d_acl.py."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")

from ndarray.errors import IndexOutOfRangeError  # noqa: E402

from acl_bridge.models.format.tflite_reader import ModelFormatError, read_model  # noqa: E402
from acl_bridge.models.lowering.partition import RULE_REFUSED  # noqa: E402
from acl_bridge.models.lowering.step import Intermediate, Reshape  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter, interpreter_outputs  # noqa: E402
from .graph_tflite import graph_model  # noqa: E402
from .test_one_operator import Int8Case  # noqa: E402
from .test_plan import assert_steps_bind  # noqa: E402
from .tiny_tflite import X  # noqa: E402

XQ = (0.05, 3)


@dataclass(frozen=True)
class Case(Int8Case):
    """A GATHER_ND of the graph input by constant indices (``inputs`` = (X, indices))."""

    quantization: tuple = ()
    io_dtype: str = "float32"

    def input(self) -> np.ndarray:
        rng = np.random.default_rng(7)
        if self.io_dtype == "float32":
            return rng.uniform(-3, 3, self.x).astype(np.float32)
        return rng.integers(-128, 128, self.x).astype(self.io_dtype)


def _idx(rows) -> np.ndarray:
    return np.array(rows, np.int32)


CASES = [
    Case("rows_of_an_nhwc_image", "GATHER_ND", (1, 4, 5, 3), (3, 5, 3), ("gather",), (X, _idx([[0, 1], [0, 3], [0, 0]]))),
    Case("single_elements_nested_indices", "GATHER_ND", (4, 6), (2, 2), ("gather",),
         (X, _idx([[[3, 5], [0, 0]], [[1, 2], [3, 5]]]))),
    Case("first_axis_slices_int64", "GATHER_ND", (3, 4, 5), (2, 4, 5), ("gather",), (X, np.array([[2], [0]], np.int64))),
    Case("int8_pixels", "GATHER_ND", (2, 3, 4), (4, 4), ("gather",), (X, _idx([[1, 2], [0, 0], [1, 0], [0, 2]])),
         quantization=(("input", XQ), ("output", XQ)), io_dtype="int8"),
    Case("int8_elements", "GATHER_ND", (2, 3, 4), (5,), ("gather",),
         (X, _idx([[1, 2, 3], [0, 0, 0], [1, 0, 2], [0, 2, 1], [1, 1, 1]])),
         quantization=(("input", XQ), ("output", XQ)), io_dtype="int8"),
]


@host_only_under_emulation  # numpy against TFLite; the ACL run: test_pool3d_acl.py
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_plan_is_one_gather_matching_the_interpreter(case):
    data = case.model()
    plan = plan_model(read_model(data))
    assert [s.kind for s in plan.steps] == ["gather"]
    assert plan.steps[0].param("axis") == 0 and dict(plan.steps[0].constants)["indices"].dtype == np.int32
    x = case.input()
    got, ref = run_plan(plan, x)["output"], interpreter_outputs(data, x)["output"]
    assert got.shape == ref.shape == case.y and got.dtype == ref.dtype
    assert np.array_equal(got, ref)


def test_flat_positions_are_the_row_major_slices():
    """params (3, 4, 5), index rows of length 2: slice (i, j) is row i * 4 + j of the (12, 5) view."""
    from acl_bridge.models.lowering.rules.gather_nd import gather_nd

    case = Case("", "GATHER_ND", (3, 4, 5), (3, 5), (), (X, _idx([[2, 3], [0, 1], [1, 0]])))
    m = read_model(case.model())
    lowered = gather_nd(m.operators[0], m)
    shapes = [x.shape for x in lowered if isinstance(x, Intermediate)]
    assert shapes == [(12, 5)] and sum(isinstance(x, Reshape) for x in lowered) == 1  # the output is (N, C) itself
    (step,) = [x for x in lowered if not isinstance(x, (Intermediate, Reshape))]
    assert dict(step.constants)["indices"].tolist() == [11, 1, 4]


@pytest.mark.parametrize("case", CASES[:3], ids=[c.id for c in CASES[:3]])
def test_steps_bind_to_the_bridge_function(case, monkeypatch):
    assert_steps_bind(plan_model(read_model(case.model())), monkeypatch)


def test_an_index_outside_params_is_a_format_error():
    """TFLite's kernel checks the flat position (it stops the run there); the rule at load."""
    case = Case("", "GATHER_ND", (4, 6), (2,), (), (X, _idx([[1, 2], [4, 0]])))
    with pytest.raises(ModelFormatError, match=r"operator #0 GATHER_ND: index \[4, 0\] \(row 1\) is outside params "
                                               r"\[4, 6\] \(flat position 24, expected 0..23\)"):
        plan_model(read_model(case.model()))


def runtime_indices_model() -> bytes:
    """x (3, 4, 2) and int32 indices (5, 2), both graph inputs -> GATHER_ND -> y (5, 2)."""
    return graph_model([("x", (3, 4, 2), "float32", None, None), ("i", (5, 2), "int32", None, None),
                        ("y", (5, 2), "float32", None, None)], [("GATHER_ND", ["x", "i"], ["y"], None)],
                       ["x", "i"], ["y"])


@host_only_under_emulation
def test_runtime_indices_run_on_the_fallback_as_the_interpreter():
    data = runtime_indices_model()
    plan = plan_model(read_model(data), fallback=True)
    (fb,) = plan.fallbacks
    assert not plan.steps and fb.kind == RULE_REFUSED and "non-constant indices" in fb.reason
    x = np.random.default_rng(1).uniform(-3, 3, (3, 4, 2)).astype(np.float32)
    i = np.array([[2, 3], [0, 0], [1, 2], [2, 0], [0, 3]], np.int32)
    it = interpreter(data)
    inputs = {d["name"]: d["index"] for d in it.get_input_details()}
    it.set_tensor(inputs["x"], x)
    it.set_tensor(inputs["i"], i)
    it.invoke()
    ref = it.get_tensor(it.get_output_details()[0]["index"])
    assert np.array_equal(run_plan(plan, {"x": x, "i": i})["y"], ref)


@host_only_under_emulation
def test_a_runtime_index_outside_params_stops_the_run_as_tflite_does():
    """TFLite's interpreter fails the invoke; the fallback raises the library's
    IndexOutOfRangeError naming the row, before writing the output."""
    data = runtime_indices_model()
    x = np.ones((3, 4, 2), np.float32)
    i = np.array([[2, 3], [0, 0], [3, 0], [2, 0], [0, 3]], np.int32)
    it = interpreter(data)
    inputs = {d["name"]: d["index"] for d in it.get_input_details()}
    it.set_tensor(inputs["x"], x)
    it.set_tensor(inputs["i"], i)
    with pytest.raises(RuntimeError):
        it.invoke()
    plan = plan_model(read_model(data), fallback=True)
    with pytest.raises(IndexOutOfRangeError, match=r"operator #0 GATHER_ND: index \[3, 0\] \(row 2\) is outside "
                                                   r"params \[3, 4\] \(flat position 12, expected 0..11\)"):
        run_plan(plan, {"x": x, "i": i})
