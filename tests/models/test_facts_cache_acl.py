"""ACL's answers kept between loads (emulated arm64): a second load of a model with the same
ACL, shim and CPU asks ACL no question (no negotiation, validate() check or probe call), makes
every function from its kept decision, and gives the same buffers, plan and bits as a load
that asks everything; a damaged file is a
warning and a load that asks again."""

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from .conftest import model_file  # noqa: E402

pytestmark = pytest.mark.acl

QUESTIONS = ("negotiate", "check_layouts", "auto_padding", "probe")


def assert_same_bits(a, b, seed: int, what: str) -> None:
    """Runners ``a`` and ``b`` of one model give the same outputs, bit for bit, on one seeded
    input in the model's dtype."""
    rng = np.random.default_rng(seed)
    dtype = a.input_dtype
    x = (rng.integers(-128, 128, a.input_shape).astype(dtype) if np.issubdtype(dtype, np.integer)
         else rng.uniform(-1, 1, a.input_shape).astype(dtype))
    want = {k: v.copy() for k, v in a.run(x).items()}
    got = b.run(x)
    for k in want:
        assert np.array_equal(got[k], want[k]), f"{what} ({k})"


def _questions(runner):
    return {c: runner._session.calls.get(c, 0) for c in QUESTIONS}


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting_alexa"])
def test_a_second_load_asks_acl_nothing_and_gives_the_same_bits(name, tmp_path):
    from acl_bridge import native
    from acl_bridge.executor import call_layouts
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    from .test_int8_models_acl import REFUSED_ON_2008

    if native.acl_version().startswith("20.08") and name in REFUSED_ON_2008:
        pytest.skip(f"{name}: refused by ACL 20.08 at load (tests/models/test_int8_models_acl.py)")
    path = model_file(name)
    with TfliteRunner(path, facts_cache=tmp_path) as first:
        assert first.facts_cache.state == "cold" and first.facts_cache.saved > 0
        assert not first.negotiation_recalled and first.functions_recalled == 0
        asked = _questions(first)
        # (none where this ACL's kernels ask no padding: test_first_start_decisions_acl.py)
        assert (asked["negotiate"] > 0) == native.kernels_ask_padding("neon")
    with TfliteRunner(path, facts_cache=tmp_path) as second, TfliteRunner(path, facts_cache=False) as fresh:
        assert second.facts_cache.state == "warm" and second.facts_cache.answers == first.facts_cache.saved
        assert second.facts_cache.saved == 0  # nothing new to write
        # the lowered plan kept by the first load (acl_bridge.models.planning.plan_cache): nothing read or lowered
        assert "plan kept" in first.model_cache.reason
        assert (second.model_cache.state, second.model_cache.reason) == ("warm", "lowered plan kept")
        assert "lower" not in {p.phase for p in second.configure_profile().phases}
        assert _questions(second) == {c: 0 for c in QUESTIONS}, "a kept answer was asked of ACL again"
        assert second.negotiation_recalled and not fresh.negotiation_recalled  # the whole plan's padding kept
        # the arena's placement kept and checked, not searched again: the one a search gives
        assert second.memory_recalled and not first.memory_recalled and not fresh.memory_recalled
        assert second.memory == fresh.memory
        # every function made from its kept decision: nothing described, planned or probed, all
        # in one native call (acl_bridge.configure_batch)
        assert second.functions_recalled == len(second.functions) and fresh.functions_recalled == 0
        staged = sum(bool(p.staged) for p in second.function_plans())
        if staged:  # ACL 20.08 stages some of the int8 model's outputs
            # a batch takes no staging function: those made alone, each from its decision, the rest in one call
            assert "stages" in second.batch_refused
            assert second.functions_batched == len(second.functions) - staged > 0
            assert second._session.calls["configure"] == 1 + staged
        else:
            assert second.batch_refused is None and second._session.calls["configure"] == 1
        # what the batch does not compare and the runner vouches for: every buffer laid out as
        # the decisions were made for
        assert [call_layouts(SimpleNamespace(roles=f.roles, arrays=f.arrays, quantization=f.quantization))
                for f in second.functions] == [f.decision.layouts for f in second.functions]
        assert [f.facts for f in second.functions] == [f.facts for f in fresh.functions]
        assert fresh.facts_cache.state == "off"
        assert {b: p.padding for b, p in second.buffer_plans.items()} == \
            {b: p.padding for b, p in fresh.buffer_plans.items()}
        assert [f.plan for f in second.functions] == [f.plan for f in fresh.functions]
        assert second.staged() == fresh.staged()
        assert_same_bits(second, fresh, 3, f"{name}: kept answers and asked answers differ")
    # other options decide otherwise (constants copied, no arena): the first load's decisions
    # are not theirs; once made, theirs are kept beside them
    with TfliteRunner(path, facts_cache=tmp_path, share_constants=False, arena=False) as other:
        assert other.negotiation_recalled and other.functions_recalled == 0
    with TfliteRunner(path, facts_cache=tmp_path, share_constants=False, arena=False) as again:
        assert again.functions_recalled == len(again.functions)


def test_a_damaged_facts_file_is_a_warning_and_a_load_that_asks(tmp_path):
    from acl_bridge.facts_cache import FactsCacheWarning
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file("face_detection_front")
    with TfliteRunner(path, facts_cache=tmp_path) as first:
        first.wait_kept()  # (its files are written after the load: acl_bridge.keep_writer)
        files = list(tmp_path.iterdir())
        assert len(files) == 1 and first.facts_cache.path == str(files[0])
    blob = bytearray(files[0].read_bytes())
    blob[-2] ^= 0x10
    files[0].write_bytes(bytes(blob))
    with pytest.warns(FactsCacheWarning, match="checksum"):
        r = TfliteRunner(path, facts_cache=tmp_path)
    with r:
        assert r.facts_cache.state == "cold" and not r.negotiation_recalled and r.functions_recalled == 0
        assert sum(_questions(r).values()) > 0
        assert r.facts_cache.saved > 0  # a good file written over the bad one
    with TfliteRunner(path, facts_cache=tmp_path) as again:
        assert again.facts_cache.state == "warm"


def test_a_refused_batch_makes_the_functions_one_at_a_time_from_their_decisions(tmp_path, monkeypatch):
    """Where the one native call refuses (here: made to), the runner says why, makes every
    function alone, each still from its decision, in a fresh workspace, with the same bits."""
    from acl_bridge.models.runtime import tflite_runner
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file("face_detection_front")
    with TfliteRunner(path, facts_cache=tmp_path) as first:
        x = np.random.default_rng(3).uniform(-1, 1, first.input_shape).astype(np.float32)
        want = {k: v.copy() for k, v in first.run(x).items()}
    monkeypatch.setattr(tflite_runner, "configure_kept", lambda calls, decisions, **kw: (None, "refused by the test"))
    with TfliteRunner(path, facts_cache=tmp_path) as second:
        assert second.batch_refused == "refused by the test"
        assert second.functions_recalled == len(second.functions)
        assert second._session.calls["configure"] == len(second.functions)
        got = second.run(x)
        for k in want:
            assert np.array_equal(got[k], want[k])
