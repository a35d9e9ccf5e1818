"""A plan re-planned after ACL's validate() refused operators is kept for the next start on
the same ACL (acl_bridge.models.planning.replanned_cache): on the host with a stand-in
refusal (``plan_model(..., acl_refused=...)``, as the runner re-plans); through the runner
under ACL with a stand-in refusal of validate() (marked acl)."""

import warnings

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models.format.model_cache import ModelCacheWarning  # noqa: E402
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402
from acl_bridge.models.planning import plan_cache  # noqa: E402
from acl_bridge.models.planning.replanned_cache import ReplannedPlanCache, refused_by_acl  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .graph_tflite import chain  # noqa: E402

SHAPE = (1, 4, 4, 3)
ACL = {"acl_version": "24.11", "cpu": "test"}


def _replanned(data):
    return plan_model(fold_constant_dequantize(read_model(data)), fallback=True,
                      acl_refused={1: "operator #1 RELU is refused by ACL: test"})


def test_a_replanned_plan_is_kept_for_the_same_acl_only(tmp_path):
    data = chain(["RELU", "RELU", "RELU"], SHAPE)
    plan = _replanned(data)
    first = ReplannedPlanCache(data, ACL, tmp_path)
    assert first.load() is None and first.reason == "no re-planned plan kept for this ACL"
    assert first.save(plan) == "plan kept"
    back = ReplannedPlanCache(data, ACL, tmp_path).load()
    assert back is not None and plan_cache.same_plan(plan, back)
    assert refused_by_acl(back) == {1: "operator #1 RELU is refused by ACL: test"}
    assert ReplannedPlanCache(data, {**ACL, "acl_version": "20.08"}, tmp_path).load() is None  # another ACL
    assert ReplannedPlanCache(chain(["RELU", "RELU"], SHAPE), ACL, tmp_path).load() is None  # another model
    assert plan_cache.PlanCache(data, tmp_path).load() is None  # the plain plan cache's file is its own
    assert first.path.suffix == ".aclreplan"


def test_a_kept_file_without_refusals_is_ignored_with_a_warning(tmp_path):
    data = chain(["RELU", "RELU"], SHAPE)
    cache = ReplannedPlanCache(data, ACL, tmp_path)
    assert cache.save(plan_model(read_model(data), fallback=True)) == "plan kept"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert ReplannedPlanCache(data, ACL, tmp_path).load() is None
    assert any(issubclass(x.category, ModelCacheWarning) and "no operator refused by ACL" in str(x.message) for x in w)


@pytest.mark.acl
def test_the_runner_keeps_the_replanned_plan_and_the_second_start_meets_no_refusal(monkeypatch, tmp_path):
    """The first start meets the stand-in refusal and re-plans; the second start (the same
    cache directory) loads the re-planned plan and never asks ACL about the refused step."""
    from acl_bridge import native
    from acl_bridge.models.runtime import tflite_runner

    from .test_partition_acl import refuse_second_activation

    Refusing = refuse_second_activation(monkeypatch)
    native.set_num_threads(1)
    data = chain(["RELU", "RELU", "RELU"], SHAPE)
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    asked = {}
    for start in ("first", "second"):  # the stand-in refuses only the second question ever asked
        before = Refusing.calls
        r = tflite_runner.TfliteRunner(data, model_cache=tmp_path, facts_cache=False, reuse_facts=False)
        try:
            asked[start] = Refusing.calls - before
            assert list(r.acl_refused) == [1], start
            assert [(f.op_index, f.kind) for f in r.plan.fallbacks] == [(1, "refused by ACL")], start
            np.testing.assert_allclose(np.array(r.run(x)["y"]), np.maximum(x, 0))
        finally:
            r.close()
    # the first start asked about RELU #0, was refused RELU #1, then asked the re-planned steps;
    # the second asked about the re-planned plan's ACL steps only, once each (the kept plan, from
    # the re-planned cache file), and never about the refused one
    acl_steps = [s for s in r.plan.steps if s.kind == "activation"]
    assert len(acl_steps) == 2 and asked["second"] == len(acl_steps) < asked["first"], asked
    assert r.model_cache.state == "warm"
