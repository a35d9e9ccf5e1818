"""GATHER_ND on one-operator models against TFLite's interpreter, element by element: constant
indices lowered onto ACL's ``gather`` (params viewed as (K, C), flat positions computed at
load, the output viewed as (N, C)); runtime int32 / int64 indices onto the ``gather_nd`` kind
(the index rows checked and flattened at every run), both plans carried out by numpy;
every component checked against its axis by both sides (TensorFlow's check, TFLite 2.x's).
float32, int8 and uint8 (moved as stored: bit for bit). ACL's run of the same models:
tests/models/test_pool3d_acl.py (constant), tests/models/test_gather_nd_runtime_acl.py (runtime)."""

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
    """TFLite's kernel stops the run there; the rule at load."""
    case = Case("", "GATHER_ND", (4, 6), (2,), (), (X, _idx([[1, 2], [4, 0]])))
    with pytest.raises(ModelFormatError, match=r"operator #0 GATHER_ND: index \[4, 0\] \(row 1\) is outside params "
                                               r"\[4, 6\] \(component 0 is 4, expected 0..3\)"):
        plan_model(read_model(case.model()))


def runtime_indices_model(x=(3, 4, 2), i=(5, 2), dtype="float32", index_dtype="int32", q=None) -> bytes:
    """x and indices, both graph inputs -> GATHER_ND -> y (int8 / uint8: quantization ``q``
    on x and y)."""
    y = tuple(i[:-1]) + tuple(x[i[-1]:])
    return graph_model([("x", x, dtype, None, q), ("i", i, index_dtype, None, None), ("y", y, dtype, None, q)],
                       [("GATHER_ND", ["x", "i"], ["y"], None)], ["x", "i"], ["y"])


def interpreter_run(data: bytes, x: np.ndarray, i: np.ndarray) -> np.ndarray:
    """TFLite's interpreter on (x, i); RuntimeError where its kernel refuses an index."""
    it = interpreter(data)
    inputs = {d["name"]: d["index"] for d in it.get_input_details()}
    it.set_tensor(inputs["x"], x)
    it.set_tensor(inputs["i"], i)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


@dataclass(frozen=True)
class Runtime:
    """GATHER_ND of params ``x`` by runtime indices ``rows`` (int32 or int64)."""

    id: str
    x: tuple
    rows: tuple
    index_dtype: str = "int32"
    dtype: str = "float32"

    @property
    def indices(self) -> np.ndarray:
        return np.array(self.rows, self.index_dtype)

    def model(self) -> bytes:
        return runtime_indices_model(self.x, self.indices.shape, self.dtype, self.index_dtype,
                                     None if self.dtype == "float32" else XQ)

    def input(self) -> np.ndarray:
        rng = np.random.default_rng(3)
        if self.dtype == "float32":
            return rng.uniform(-3, 3, self.x).astype(np.float32)
        info = np.iinfo(self.dtype)
        return rng.integers(info.min, info.max + 1, self.x).astype(self.dtype)


RUNTIME = [
    Runtime("pairs_into_3x4x2", (3, 4, 2), ([2, 3], [0, 0], [1, 2], [2, 0], [0, 3])),
    Runtime("int64_first_axis", (3, 4, 5), ([2], [0], [2]), "int64"),
    Runtime("scalars_d_equals_rank", (2, 3, 4), ([1, 2, 3], [0, 0, 0], [1, 0, 2]), "int64"),
    Runtime("nested_rows_nhwc", (1, 4, 5, 3), ([[0, 1, 4], [0, 3, 0]], [[0, 0, 0], [0, 2, 2]])),
    Runtime("int8_pixels", (2, 3, 4), ([1, 2], [0, 0], [1, 0], [0, 2]), dtype="int8"),
    Runtime("uint8_int64_scalars", (2, 3, 4), ([1, 2, 3], [0, 1, 0]), "int64", dtype="uint8"),
    Runtime("one_row", (4, 6), ([3, 5],)),
]


@host_only_under_emulation  # numpy against TFLite; the ACL run: test_gather_nd_runtime_acl.py
@pytest.mark.parametrize("case", RUNTIME, ids=[c.id for c in RUNTIME])
def test_runtime_indices_are_one_gather_nd_step_matching_the_interpreter(case):
    data = case.model()
    plan = plan_model(read_model(data), fallback=True)
    assert plan.fallbacks == () and [s.kind for s in plan.steps] == ["gather_nd"]
    assert plan.steps[0].param("dims") == case.x[:case.indices.shape[-1]]
    x, i = case.input(), case.indices
    ref = interpreter_run(data, x, i)
    got = run_plan(plan, {"x": x, "i": i})["y"]
    assert got.shape == ref.shape and got.dtype == ref.dtype and np.array_equal(got, ref)


def test_runtime_steps_bind_to_the_bridge_function(monkeypatch):
    assert_steps_bind(plan_model(read_model(RUNTIME[0].model())), monkeypatch)


def test_a_component_past_its_axis_is_refused_as_tflite_2_does():
    """[0, 5] of params (3, 4, 2): component 1 past its axis (4). ai-edge-litert 2.x refuses it
    (TensorFlow's check), 1.4 gathers flat row 5 (it checked only the flat position): the plan
    refuses it with either; [1, -1] has a negative component: refused by every version."""
    data = runtime_indices_model(i=(2, 2))
    x = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    i = np.array([[0, 5], [2, 3]], np.int32)
    try:
        ref = interpreter_run(data, x, i)
    except RuntimeError as e:
        assert "gather_nd index out of bounds" in str(e)
    else:
        assert np.array_equal(ref, x.reshape(12, 2)[[5, 11]])  # 1.4's flat-position reading
    plan = plan_model(read_model(data))
    with pytest.raises(IndexOutOfRangeError, match=r"index \[0, 5\] \(row 0\) is outside params \[3, 4\] "
                                                   r"\(component 1 is 5, expected 0..3\)"):
        run_plan(plan, {"x": x, "i": i})
    i = np.array([[0, 0], [1, -1]], np.int32)
    with pytest.raises(RuntimeError, match=r"\(GATHER_ND\) failed to invoke"):
        interpreter_run(data, x, i)
    with pytest.raises(IndexOutOfRangeError, match=r"index \[1, -1\] \(row 1\) has a negative component"):
        run_plan(plan, {"x": x, "i": i})


BAD_ROWS = [("past_the_end", "int32", [[2, 3], [0, 0], [3, 0], [2, 0], [0, 3]], r"index \[3, 0\] \(row 2\)",
             "component 0 is 3, expected 0..2"),
            ("past_the_end_int64", "int64", [[0, 0], [2, 4], [0, 0], [0, 0], [0, 0]], r"index \[2, 4\] \(row 1\)",
             "component 1 is 4, expected 0..3"),
            ("int64_beyond_int32", "int64", [[0, 0], [0, 0], [0, 0], [0, 0], [2 ** 33, 0]],
             r"index \[8589934592, 0\] \(row 4\)", "component 0 is 8589934592, expected 0..2")]


@host_only_under_emulation
@pytest.mark.parametrize("name,index_dtype,rows,row,why", BAD_ROWS, ids=[r[0] for r in BAD_ROWS])
def test_a_runtime_index_outside_params_stops_the_run_as_tflite_does(name, index_dtype, rows, row, why):
    """TFLite's interpreter fails the invoke; the plan's step raises the library's
    IndexOutOfRangeError naming the row, before writing the output (its bytes unchanged)."""
    data = runtime_indices_model(index_dtype=index_dtype)
    x = np.ones((3, 4, 2), np.float32)
    i = np.array(rows, index_dtype)
    with pytest.raises(RuntimeError, match=r"\(GATHER_ND\) failed to invoke"):
        interpreter_run(data, x, i)
    plan = plan_model(read_model(data))
    with pytest.raises(IndexOutOfRangeError, match=rf"operator #0 GATHER_ND: {row} is outside params \[3, 4\] "
                                                   rf"\({why}\)"):
        run_plan(plan, {"x": x, "i": i})


def test_what_stays_on_the_fallback():
    """int16 indices, and no index rows (an empty output), are refused with the reason."""
    for i, index_dtype, why in (((5, 2), "int16", "int16 indices"), ((0, 2), "int32", "an empty output")):
        plan = plan_model(read_model(runtime_indices_model(i=i, index_dtype=index_dtype)), fallback=True)
        (fb,) = plan.fallbacks
        assert not plan.steps and fb.kind == RULE_REFUSED and why in fb.reason, fb


def test_a_negative_constant_index_is_a_format_error():
    case = Case("", "GATHER_ND", (3, 4), (1,), (), (X, _idx([[1, -1]])))
    with pytest.raises(ModelFormatError, match=r"operator #0 GATHER_ND: index \[1, -1\] \(row 0\) has a negative "
                                               r"component"):
        plan_model(read_model(case.model()))


@host_only_under_emulation
@pytest.mark.parametrize("seed", range(12))
def test_random_runtime_indices_as_the_interpreter(seed):
    """Random params (rank 1-4), index depth, rows and values (some past an axis, some negative,
    some past the end): the plan gathers what TFLite gathers inside every axis and refuses the
    rest, as TFLite 2.x does (1.4 gathers a component past its axis inside params)."""
    rng = np.random.default_rng(seed)
    x_shape = tuple(int(v) for v in rng.integers(1, 5, rng.integers(1, 5)))
    nd = int(rng.integers(1, len(x_shape) + 1))
    i_shape = tuple(int(v) for v in rng.integers(1, 4, rng.integers(1, 3))) + (nd,)
    index_dtype = ("int32", "int64")[seed % 2]
    data = runtime_indices_model(x_shape, i_shape, index_dtype=index_dtype)
    plan = plan_model(read_model(data))
    assert [s.kind for s in plan.steps] == ["gather_nd"]
    x = rng.uniform(-3, 3, x_shape).astype(np.float32)
    for trial in range(4):
        high = [d + (trial > 1) for d in x_shape[:nd]]
        i = np.stack([rng.integers(-(trial == 3), h, i_shape[:-1]) for h in high], axis=-1).astype(index_dtype)
        outside = bool(((i < 0) | (i >= np.array(x_shape[:nd]))).any())
        try:
            ref = interpreter_run(data, x, i)
        except RuntimeError:
            assert outside, "TFLite refuses only indices outside an axis"
            ref = None
        if outside:  # refused; ai-edge-litert 1.4 gathers a row past an axis inside params
            with pytest.raises(IndexOutOfRangeError, match=r"is outside params|has a negative component"):
                run_plan(plan, {"x": x, "i": i})
            continue
        assert np.array_equal(run_plan(plan, {"x": x, "i": i})["y"], ref)
