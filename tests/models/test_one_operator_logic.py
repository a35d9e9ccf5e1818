"""The logic family's lowering rules on one-operator models (``tiny_tflite.one_operator_model``):
comparisons, logical operators, ARG_MAX / ARG_MIN and SELECT / SELECT_V2, the plan carried out
by numpy against TFLite's interpreter, element by element (every result is exact: truth values
and indices). Inputs sit on a coarse grid so that comparisons meet ties."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")

from acl_bridge.models.format.tflite_reader import ModelFormatError, UnsupportedModelError, read_model  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs  # noqa: E402
from .test_one_operator import Int8Case  # noqa: E402
from .test_plan import assert_steps_bind  # noqa: E402
from .tiny_tflite import X  # noqa: E402

_rng = np.random.default_rng(37)
XQ = (0.05, 3)  # int8 input and constant: one quantization


def _grid(shape, dtype=np.float32) -> np.ndarray:
    """Values -1.5 .. 1.5 in steps of 0.5 (ties with the constants below)."""
    return (_rng.integers(-3, 4, shape) / 2).astype(dtype)


def _bool(*shape: int) -> np.ndarray:
    return _rng.integers(0, 2, shape).astype(np.bool_)


@dataclass(frozen=True)
class Case(Int8Case):
    """One operator (``Int8Case``'s fields; here float32 in and bool out unless told) and the
    graph input it is run on (:meth:`input`)."""

    quantization: Tuple[Tuple[str, tuple], ...] = ()
    io_dtype: str = "float32"  # the graph input's type
    output_dtype: Optional[str] = "bool"

    def input(self) -> np.ndarray:
        rng = np.random.default_rng(3)
        if self.io_dtype == "bool":
            return rng.integers(0, 2, self.x).astype(np.bool_)
        if self.io_dtype == "float32":
            return (rng.integers(-3, 4, self.x) / 2).astype(np.float32)
        return rng.integers(-20, 21, self.x).astype(self.io_dtype)  # int8 / int32: ties with the constants


I8 = _rng.integers(-20, 21, (3,)).astype(np.int8)
CASES = [
    *(Case(f"{name.lower()}_broadcast", name, (1, 4, 5, 3), (1, 4, 5, 3), (name.lower(),), (X, _grid((3,))))
      for name in ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")),
    Case("less_constant_first", "LESS", (2, 6), (2, 6), ("less",), (_grid((6,)), X)),
    Case("greater_int32", "GREATER", (2, 6), (2, 6), ("greater",), (X, np.arange(6, dtype=np.int32) - 3),
         io_dtype="int32", version=2),
    Case("equal_int8_one_quantization", "EQUAL", (1, 4, 5, 3), (1, 4, 5, 3), ("equal",), (X, I8), io_dtype="int8",
         quantization=(("input", XQ), ("const0", XQ)), version=2),
    Case("logical_and_broadcast", "LOGICAL_AND", (1, 4, 5, 3), (1, 4, 5, 3), ("logical_and",), (X, _bool(1, 1, 3)),
         io_dtype="bool"),
    Case("logical_or", "LOGICAL_OR", (2, 6), (2, 6), ("logical_or",), (X, _bool(2, 6)), io_dtype="bool"),
    Case("logical_not", "LOGICAL_NOT", (2, 6), (2, 6), ("logical_not",), io_dtype="bool"),
    Case("arg_max_channels_int64", "ARG_MAX", (1, 4, 5, 3), (1, 4, 5), ("arg_max",), (X, np.array([3], np.int32)),
         ("ArgMaxOptions", {"OutputType": "INT64"}), output_dtype="int64"),
    Case("arg_min_rows_int32", "ARG_MIN", (4, 6), (6,), ("arg_min",), (X, np.array([0], np.int32)),
         ("ArgMinOptions", {"OutputType": "INT32"}), output_dtype="int32"),
    Case("arg_max_int8_negative_axis", "ARG_MAX", (1, 4, 5, 3), (1, 4, 3), ("arg_max",), (X, np.array([-2], np.int32)),
         ("ArgMaxOptions", {"OutputType": "INT32"}), io_dtype="int8", output_dtype="int32",
         quantization=(("input", XQ),), version=2),
    Case("select_condition_input", "SELECT", (2, 6), (2, 6), ("select",), (X, _grid((2, 6)), _grid((2, 6))),
         io_dtype="bool", output_dtype="float32"),
    Case("select_v2_values_input", "SELECT_V2", (2, 6), (2, 6), ("select",), (_bool(2, 6), X, _grid((2, 6))),
         output_dtype="float32"),
]


@host_only_under_emulation  # numpy against TFLite; each case on ACL: test_logic_acl.py
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_operator_plan_matches_the_interpreter(case):
    data = case.model()
    plan = plan_model(read_model(data))
    assert tuple(s.kind for s in plan.steps) == case.kinds, plan.steps
    x = case.input()
    ref = interpreter_outputs(data, x)["output"]
    got = run_plan(plan, x)["output"]
    assert got.dtype == ref.dtype and got.shape == ref.shape == case.y
    assert np.array_equal(got, ref)


FLOAT_CASES = [c for c in CASES if not c.quantization]  # the binding check passes no quantization


@pytest.mark.parametrize("case", FLOAT_CASES, ids=[c.id for c in FLOAT_CASES])
def test_one_operator_steps_bind_to_the_bridge_functions(case, monkeypatch):
    assert_steps_bind(plan_model(read_model(case.model())), monkeypatch)


REFUSED = [
    ("equal_int8_two_quantizations",
     Case("", "EQUAL", (2, 3), (2, 3), (), (X, I8), io_dtype="int8", quantization=(("input", XQ), ("const0", (0.1, 0))),
          version=2),
     UnsupportedModelError, r"operator #0 EQUAL: inputs quantized .* \(one quantization only\) is not supported"),
    ("less_float_output", Case("", "LESS", (2, 3), (2, 3), (), (X, _grid((3,))), output_dtype="float32"),
     UnsupportedModelError, r"operator #0 LESS: tensor types .* \(float32, int32, or int8 / uint8 in; bool out\)"),
    ("equal_shapes_do_not_broadcast", Case("", "EQUAL", (2, 3), (2, 3), (), (X, _grid((2,)))),
     ModelFormatError, r"operator #0 EQUAL.*inputs \[2, 3\] and \[2\] do not broadcast"),
    ("arg_max_axis_out_of_range", Case("", "ARG_MAX", (2, 3), (2,), (), (X, np.array([2], np.int32)),
                                       output_dtype="int32"),
     ModelFormatError, r"operator #0 ARG_MAX.*axis \[2\] for a rank-2 input"),
    ("arg_max_rank5", Case("", "ARG_MAX", (1, 2, 2, 2, 3), (1, 2, 2, 2), (), (X, np.array([4], np.int32)),
                           output_dtype="int32"),
     UnsupportedModelError, r"operator #0 ARG_MAX: ARG_MAX of a rank-5 input \(ACL reduces at most 4 dimensions\)"),
    ("select_v2_broadcast", Case("", "SELECT_V2", (2, 6), (2, 6), (), (_bool(1, 6), X, _grid((2, 6))),
                                 output_dtype="float32"),
     UnsupportedModelError, r"operator #0 SELECT_V2: condition, x, y .* \(ACL's select takes one shape\)"),
]


@pytest.mark.parametrize("name,case,error,message", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_and_malformed(name, case, error, message):
    with pytest.raises(error, match=message):
        plan_model(read_model(case.model()), fallback=False)
