"""Every fetched model's plan, kept and read back, is the plan lowered (field by field,
constants byte by byte). A first start keeps its plan without decoding it again
(:meth:`~acl_bridge.models.planning.plan_cache.PlanCache.save` parses back only the file's JSON
head): this is where the decoder is shown to give back every real model's plan. On the host
(pure): tests/models/test_plan_cache.py runs the same check on seven models everywhere."""

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.apps import fetch  # noqa: E402

from .conftest import model_file  # noqa: E402
from .test_plan_cache import check_kept_plan  # noqa: E402


@pytest.mark.parametrize("name", sorted(fetch.MODELS))
def test_every_fetched_model_reads_back_as_lowered(name, tmp_path):
    check_kept_plan(model_file(name), tmp_path)
