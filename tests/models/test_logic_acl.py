"""The logic family's operators on ACL (emulated arm64): one-operator models of
``test_one_operator_logic.py`` (checked there against TFLite's interpreter on the host) run by
the runner and compared with the numpy executor of the same plan, exactly (truth values and
indices). ACL 20.08 lacks the logical functions, and NEON's NEArgMinMaxLayer::validate refuses
an int64 dst (20.08; 24.11: its reshape kernel, "Tensors have different data types"; CL takes
it): the runner runs those operators on its CPU fallback (asserted as that refusal), every
other one on ACL (measured on bookworm and trixie)."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from .test_one_operator_logic import CASES  # noqa: E402

pytestmark = pytest.mark.acl

CHOSEN = ("greater_equal_broadcast", "less_constant_first", "greater_int32", "equal_int8_one_quantization",
          "logical_and_broadcast", "logical_not", "arg_max_channels_int64", "arg_min_rows_int32",
          "arg_max_int8_negative_axis", "select_condition_input", "select_v2_values_input")
ON_ACL = [c for c in CASES if c.id in CHOSEN]
# what NEON refuses, measured, by (case, ACL version): the message of its refusal
REFUSED_NEON = {
    ("logical_and_broadcast", "20.08"): r"ACL 20\.08 has no NELogicalAnd/Or/Not",
    ("logical_not", "20.08"): r"ACL 20\.08 has no NELogicalAnd/Or/Not",
    ("arg_max_channels_int64", "20.08"): r"NEArgMinMaxLayer::validate",
    ("arg_max_channels_int64", "24.11"): r"NEArgMinMaxLayer::validate: .*Tensors have different data types",
}


def check(case, backend: str) -> None:
    """The case on ``backend`` (the CL suite runs it too): on ACL, or refused as measured on
    20.08 (NEON), and exactly the numpy plan's output."""
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    if backend == "neon":
        native.set_num_threads(1)
    r = TfliteRunner(case.model(), backend=backend, model_cache=False, facts_cache=False)
    try:
        refused = {f.opcode: f.reason for f in r.plan.fallbacks}
        expected = REFUSED_NEON.get((case.id, native.acl_version())) if backend == "neon" else None
        if expected is None:
            assert refused == {} and tuple(s.kind for s in r.plan.steps) == case.kinds
        else:
            assert [f.kind for f in r.plan.fallbacks] == ["refused by ACL"]
            assert re.search(expected, refused[case.opcode]), refused
        x = case.input()
        got, ref = np.array(r.run(x)["output"]), run_plan(r.plan, x)["output"]
        assert got.dtype == ref.dtype and got.shape == ref.shape == case.y
        # bools compared as their bytes: 0 or 1, never ACL's 255
        assert np.array_equal(got.view(np.uint8) if got.dtype == np.bool_ else got,
                              ref.view(np.uint8) if ref.dtype == np.bool_ else ref), case.id
    finally:
        r.close()


@pytest.mark.parametrize("case", ON_ACL, ids=[c.id for c in ON_ACL])
def test_logic_operator_on_acl_matches_the_plan(case):
    check(case, "neon")
