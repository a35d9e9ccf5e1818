"""The operators of issue 37 on ACL (emulated arm64): the one-operator models of
``test_one_operator.py`` whose rules are the elementwise family (binary with broadcasting,
unary), the activations ACL has, TRANSPOSE, the reductions and int8 PAD, run by the runner and compared with the numpy
executor of the same plan (itself checked against TFLite's interpreter on the host: float32
within tolerance, int8 bit for bit with TFLite's reference kernels). Every operator is on ACL
(no fallback), its output within the float tolerance or ``INT8_STEPS`` output steps (ACL
requantizes through float where TFLite uses fixed point); the counts are printed (pytest -s)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from .conftest import tolerance  # noqa: E402
from .test_one_operator import CASES, INT8_CASES, MOVEMENT_GRAPHS, _int8_input  # noqa: E402
from .tiny_tflite import one_operator_model  # noqa: E402

pytestmark = pytest.mark.acl

NEW = {"SUB", "MUL", "DIV", "FLOOR_DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "POW", "ABS", "EXP", "LOG", "NEG", "RSQRT",
       "SIN", "FLOOR", "ROUND", "HARD_SWISH", "ELU", "LEAKY_RELU", "SQRT", "SQUARE", "RELU_0_TO_1", "LOGISTIC",
       "TANH", "PAD", "TRANSPOSE", "REDUCE_MAX", "SUM", "MEAN", "REDUCE_MIN", "REDUCE_PROD",
       # the data-movement family (MOVEMENT_GRAPHS below: SPLIT, SPLIT_V, UNPACK, CAST)
       "STRIDED_SLICE", "SLICE", "GATHER", "TILE", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH", "BATCH_TO_SPACE_ND",
       "SPACE_TO_BATCH_ND", "PADV2", "MIRROR_PAD", "GELU"}
# (float MEAN over H and W and the other cases of the existing rules run elsewhere: test_mean_acl.py...)
FLOAT = [c for c in CASES if c.opcode in NEW and c.opcode not in ("LOGISTIC", "TANH", "PAD")
         and not (c.opcode == "MEAN" and c.kinds == ("pooling",))]
INT8 = [c for c in INT8_CASES if c.opcode in NEW and c.opcode != "MEAN"]
# ACL's int8 arithmetic requantizes in float (TFLite: fixed point), and its LOGISTIC / TANH
# compute the function where TFLite looks up its table: one step apart where a value is
# within rounding of a half
INT8_STEPS = 1


# What ACL 20.08 refuses among these models (measured on bookworm): the runner runs them on the
# CPU fallback. "Insufficient Padding!" (its reduction along y and pooling of a batch of 2 gave
# it until issue 36's mapping.size1_strides; kept as an allowed refusal), its batch-to-space
# with crops (it takes none) and its mirror padding of int8 (measured wrong).
ACL_2008_REFUSALS = ("Insufficient Padding!", "crops are unsupported on this ACL",
                     "padding of QASYMM8_SIGNED is unsupported on this ACL")


def _runner(data: bytes, backend: str, **kw):
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    if backend == "neon":
        native.set_num_threads(1)
    return TfliteRunner(data, backend=backend, model_cache=False, facts_cache=False, **kw)


def _on_acl(r, case) -> None:
    """Every operator on ACL, with the steps the plan says; on ACL 20.08 its validate() may
    refuse one of ``ACL_2008_REFUSALS`` (measured, as test_mean_acl.py's), and the runner runs
    that operator on the CPU fallback."""
    from acl_bridge import native

    refused = [f for f in r.plan.fallbacks if f.kind == "refused by ACL"]
    assert [f for f in r.plan.fallbacks if f.kind != "refused by ACL"] == []
    if refused:
        # ... and ACL 20.08 has no GELU (AclUnsupportedError at configure)
        assert native.acl_version().startswith("20.") and all(
            any(why in f.reason for why in ACL_2008_REFUSALS)
            or (case.opcode == "GELU" and "needs ACL >= 24.11" in f.reason) for f in refused), refused
        print(f"{case.id}: refused by ACL {native.acl_version()}, on the fallback: {[f.reason for f in refused]}")
    else:
        assert tuple(s.kind for s in r.plan.steps) == case.kinds


def check_float(case, backend: str) -> None:
    """The float case on ``backend`` against the numpy plan (the CL suite runs it too)."""
    data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
    r = _runner(data, backend)
    try:
        _on_acl(r, case)
        x = np.random.default_rng(3).uniform(*case.x_range, case.x).astype(np.float32)
        got, ref = np.array(r.run(x)["output"]), run_plan(r.plan, x)["output"]
        assert got.shape == ref.shape == case.y
        # ACL's vectorised exp / log / sin / pow approximations: 1e-5 of the largest output more
        assert np.abs(got - ref).max() <= tolerance(ref) + 1e-5 * np.abs(ref).max(), case.id
    finally:
        r.close()


def check_int8(case, backend: str, steps: int = INT8_STEPS) -> None:
    """The int8 case on ``backend`` within ``steps`` of TFLite's arithmetic (printed)."""
    r = _runner(case.model(), backend)
    try:
        _on_acl(r, case)
        x = _int8_input(case)
        got, ref = np.array(r.run(x)["output"]), run_plan(r.plan, x)["output"]
        assert got.dtype == ref.dtype and got.shape == ref.shape == case.y
        d = np.abs(got.astype(np.int64) - ref.astype(np.int64))
        print(f"{case.id} ({backend}): {int((d == 0).sum())}/{d.size} equal to TFLite's arithmetic "
              f"(max {d.max()} steps)")
        assert d.max() <= steps, case.id
    finally:
        r.close()


@pytest.mark.parametrize("case", FLOAT, ids=[c.id for c in FLOAT])
def test_float_operator_on_acl_matches_the_plan(case):
    check_float(case, "neon")


@pytest.mark.parametrize("case", INT8, ids=[c.id for c in INT8])
def test_int8_operator_on_acl_within_a_step_of_tflite(case):
    check_int8(case, "neon")


def check_graph(case, backend: str) -> None:
    """A several-output (or CAST) data-movement model on ``backend``: every output equal to the
    numpy plan's (moves are exact; CAST truncates alike)."""
    r = _runner(case.model(), backend)
    try:
        assert r.plan.fallbacks == () and tuple(s.kind for s in r.plan.steps) == case.kinds, r.plan
        x = np.random.default_rng(3).uniform(-3, 3, case.x).astype(np.float32)
        got, ref = r.run(x), run_plan(r.plan, x)
        for k in range(len(case.ys)):
            assert np.array_equal(np.array(got[f"y{k}"]), ref[f"y{k}"]), (case.id, k)
    finally:
        r.close()


@pytest.mark.parametrize("case", MOVEMENT_GRAPHS, ids=[c.id for c in MOVEMENT_GRAPHS])
def test_movement_graph_on_acl_matches_the_plan(case):
    check_graph(case, "neon")


@pytest.mark.parametrize("opcode", ["SPLIT", "SLICE"])
def test_slices_are_views_of_the_input_on_acl(opcode):
    """SPLIT / SLICE parts read by RELUs: views of the input's buffer (no strided-slice step),
    each RELU on its strided part equal to the numpy plan; what ACL stages is printed."""
    from .test_one_operator import split_then_relu

    r = _runner(split_then_relu(opcode), "neon")
    try:
        assert r.plan.fallbacks == () and {s.kind for s in r.plan.steps} == {"activation"}, r.plan.steps
        x = np.random.default_rng(3).uniform(-3, 3, (1, 4, 5, 6)).astype(np.float32)
        got, ref = r.run(x), run_plan(r.plan, x)
        for name in ref:
            assert np.array_equal(np.array(got[name]), ref[name]), name
        print(f"{opcode} parts as views: staged {r.staged()}, copied per inference {r.copied_bytes_per_inference}")
    finally:
        r.close()


@pytest.mark.parametrize("axis", [0, 3])
def test_pack_inputs_are_views_of_the_output_on_acl(axis):
    """PACK of two RELUs: each RELU writes straight into its slice of the output (no copy
    step), the output equal to the numpy plan's."""
    from .test_one_operator import relus_then_pack

    r = _runner(relus_then_pack(axis), "neon")
    try:
        assert r.plan.fallbacks == () and [s.kind for s in r.plan.steps] == ["activation", "activation"]
        x = np.random.default_rng(3).uniform(-3, 9, (2, 3, 4)).astype(np.float32)
        assert np.array_equal(np.array(r.run(x)["y"]), run_plan(r.plan, x)["y"])
        print(f"PACK axis {axis}: staged {r.staged()}, copied per inference {r.copied_bytes_per_inference}")
    finally:
        r.close()
