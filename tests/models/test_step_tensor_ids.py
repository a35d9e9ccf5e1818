"""A step's tensor ids, kept on the step after the first ask (:func:`step_calls.tensor_ids`,
issue 40): the same ids the step's function and the registered kinds give, for every step of
every fetched model, and the step itself (equality, ``dataclasses.replace``, its fields)
unchanged by what it keeps. Pure: the host stage runs it."""

import dataclasses

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.format.tflite_reader import read_model  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.runtime.step_calls import _tensor_ids, tensor_ids  # noqa: E402

from .conftest import host_only_under_emulation, model_file  # noqa: E402


@host_only_under_emulation
@pytest.mark.parametrize("name", sorted(fetch.MODELS))
def test_a_step_keeps_the_ids_its_roles_give(name):
    plan = plan_model(read_model(model_file(name)))
    for s in plan.steps:
        fresh = tuple(_tensor_ids(s))
        first = tensor_ids(s)
        assert first == fresh, s
        assert tensor_ids(s) is first  # asked again: the kept tuple
        again = dataclasses.replace(s)  # a new step: computed afresh, equal
        assert again == s and tensor_ids(again) == fresh
        assert {f.name: getattr(s, f.name) for f in dataclasses.fields(s)} == {
            f.name: getattr(again, f.name) for f in dataclasses.fields(again)}
