"""A step's keyword arguments, made once per step object (:func:`step_calls.call_kwargs`,
issue 40): every call gives a fresh dict (its quantization dict too) equal to what the step's
options give afresh, for every step of every fetched model; what a caller changes in one does
not reach the next. Pure: the host stage runs it."""

import dataclasses

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.format.tflite_reader import read_model  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.runtime.step_calls import _call_kwargs, call_kwargs  # noqa: E402

from .conftest import host_only_under_emulation, model_file  # noqa: E402



def _hashable(v) -> bool:
    """Whether ``v`` hashes (immutable values, frozen dataclasses; a list inside fails)."""
    try:
        hash(v)
    except TypeError:
        return False
    return True


@host_only_under_emulation
@pytest.mark.parametrize("name", sorted(fetch.MODELS))
def test_a_step_keeps_its_keyword_arguments(name):
    plan = plan_model(read_model(model_file(name)), fallback=True)
    for s in plan.steps:
        fresh = _call_kwargs(s)
        first = call_kwargs(s)
        assert first == fresh, s
        # shared values are immutable: the quantization dict is the one value copied per call
        assert all(_hashable(v) for k, v in first.items() if k != "quantization"), first
        first["data_layout"] = "NHWC"
        if "quantization" in first:
            first.pop("quantization").clear()
        second = call_kwargs(s)
        assert second == fresh and second is not first
        if "quantization" in second:
            second["quantization"].clear()
            assert call_kwargs(s) == fresh
        again = dataclasses.replace(s)  # a new step: made afresh, equal; the step's fields unchanged
        assert again == s and call_kwargs(again) == fresh
