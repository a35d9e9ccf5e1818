"""A first start on ACL's OpenCL backend (24.11: every step NHWC, whose kernels ask no padding:
acl_bridge.native.kernels_ask_padding) asks ACL no required padding, and decides what a second
start recalls from the facts cache, function by function; ACL asked on the same plan afterwards
asks none of any step, nor does validate() of those dense layouts: what keeps that fact honest
here, on the device the tests run on."""

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.conftest import model_file  # noqa: E402
from models.test_first_start_decisions_acl import _check_no_padding_asked, _decisions  # noqa: E402

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting"])
def test_a_first_start_on_cl_asks_no_padding_and_decides_what_the_second_recalls(name, tmp_path):
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file(name)
    caches = dict(backend="cl", facts_cache=tmp_path / "facts", model_cache=tmp_path / "models")
    with TfliteRunner(path, **caches) as first:
        assert first.facts_cache.state == "cold" and first.functions_recalled == 0
        made = _decisions(first)
        padding = {b: p.padding for b, p in first.buffer_plans.items()}
        plans = first.function_plans()
    assert made and all(d is not None for d in made)
    assert not native.kernels_ask_padding("cl", "NHWC")  # (this stage's ACL is 24.11)
    _check_no_padding_asked(first)
    with TfliteRunner(path, **caches) as second:
        assert second.facts_cache.state == "warm" and second.negotiation_recalled
        assert second.functions_recalled == len(second.functions) == len(made)
        assert _decisions(second) == made
        assert {b: p.padding for b, p in second.buffer_plans.items()} == padding
        assert second.function_plans() == plans
