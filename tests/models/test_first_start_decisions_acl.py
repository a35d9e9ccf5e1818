"""A first start decides what a second start recalls (emulated arm64, every fetched model):
the decisions a load without kept answers makes, function by function (plan, ACL's facts,
native descriptions, acl_bridge.decisions), and the padding it negotiates per buffer are
exactly those a second process recalls from the facts cache, which then makes every
function from them. A faster first start (issue 40) changes how the answers are gathered,
never what they are."""

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.apps.fetch import MODEL_FILES  # noqa: E402

from .conftest import model_file  # noqa: E402
from .test_facts_cache_acl import assert_same_bits  # noqa: E402

pytestmark = pytest.mark.acl


def _decisions(runner):
    from acl_bridge.configure_batch import RecalledFunctions

    f = runner.functions
    if isinstance(f, RecalledFunctions):  # made in one native call: the kept decisions as they are
        return tuple(f.decisions)
    return tuple(x.decision for x in f)


def _check_no_padding_asked(runner):
    """Where this ACL's kernels count as asking no padding (native.kernels_ask_padding), the
    runner's first start asked ACL no required padding (nor, where it stayed unchecked,
    validate() on any negotiated layouts), and ACL, asked now on the same plan
    (shapes only), asks none of any step, nor does validate() on those dense layouts: what
    keeps that fact honest on every fetched model.
    Unchecked, it bound no step either: what it noted per buffer and constant
    (negotiation.unasked) is what the negotiation, binding every step without asking, says.
    Elsewhere (20.08) the first start asked."""
    from acl_bridge import native
    from acl_bridge.configure_session import ConfigureSession
    from acl_bridge.layout import PaddingSize
    from acl_bridge.models.runtime.negotiation import STEP_DATA_LAYOUT, negotiate, unasked

    if native.kernels_ask_padding(runner.backend.name, STEP_DATA_LAYOUT):
        assert runner._session.calls["negotiate"] > 0
        return
    assert runner._session.calls["negotiate"] == 0
    if runner._unchecked:  # nor validate() on the (dense) negotiated layouts (configure_cold)
        assert runner._session.calls["check_layouts"] == 0
        assert runner._unasked
        with ConfigureSession(reuse=False).active() as unchecked:
            bound = negotiate(runner.plan, unchecked, runner.backend, fallback=False, checks=False)
        assert unasked(runner.plan) == bound
    session = ConfigureSession(reuse=False)
    with session.active():
        # validate() asked on each step's negotiated (dense) layouts too: it wants no padding of them
        asked, const_pad = negotiate(runner.plan, session, runner.backend, fallback=False, checks=True, ask=True)
    assert session.calls["negotiate"] == len(runner.plan.steps)
    nonzero = [(who, pad) for pads in asked.values() for *who, pad in pads if pad != PaddingSize()]
    nonzero += [(k, role, pad) for k, c in enumerate(const_pad) for role, pad in c.items() if pad != PaddingSize()]
    assert nonzero == [], f"ACL {native.acl_version()}'s {runner.backend.name} kernels asked padding"


def check_first_start_recalled(path, folder, backend: str = "neon") -> None:
    """A first start of ``path`` on ``backend`` (kept files in ``folder``) decides what a second
    start recalls, function by function, buffer by buffer, and asked ACL no padding where
    :func:`_check_no_padding_asked` says it need not."""
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    caches = dict(backend=backend, facts_cache=folder / "facts", model_cache=folder / "models")
    with TfliteRunner(path, **caches) as first:
        assert first.facts_cache.state == "cold" and first.functions_recalled == 0
        made = _decisions(first)
        padding = {b: p.padding for b, p in first.buffer_plans.items()}
        plans = first.function_plans()
    assert made and all(d is not None for d in made)
    _check_no_padding_asked(first)
    with TfliteRunner(path, **caches) as second:
        assert second.facts_cache.state == "warm" and second.negotiation_recalled
        assert second.functions_recalled == len(second.functions) == len(made)
        assert _decisions(second) == made
        assert {b: p.padding for b, p in second.buffer_plans.items()} == padding
        assert second.function_plans() == plans


@pytest.mark.parametrize("name", sorted(MODEL_FILES))
def test_the_first_start_decides_what_the_second_recalls(name, tmp_path):
    check_first_start_recalled(model_file(name), tmp_path)


@pytest.mark.parametrize("name", ["face_detection_front", "face_landmark", "keyword_spotting_alexa",
                                  "anomaly_detection", "visual_wake_words"])
def test_the_first_start_in_one_call_decides_as_one_at_a_time(name, monkeypatch):
    """The first start's functions made in one native call (acl_bridge.configure_cold) have
    the decisions, buffers and bits of the same start making them one at a time (face_landmark
    repeats blocks of one content: about half its functions take the decision made for an
    earlier one, configure_cold.Decided; a call on plain tensors of a signature planned before
    takes that plan, its descriptions packed from their infos: configure_cold._plain_signature)."""
    from acl_bridge import configure_cold
    from acl_bridge.configure_batch import RecalledFunctions
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file(name)
    planned = []
    plan_function = configure_cold.plan_function
    monkeypatch.setattr(configure_cold, "plan_function", lambda *a, **k: planned.append(1) or plan_function(*a, **k))
    with TfliteRunner(path, facts_cache=False, model_cache=False) as batched:
        probed = batched._session.calls["probe"]  # each probed call is planned again with the probe's findings
        assert len(planned) - probed <= len(batched.functions)
        if name == "keyword_spotting_alexa" and batched._unasked:  # 55 functions of a few signatures
            assert len(planned) - probed < len(batched.functions) // 2, (len(planned), len(batched.functions))
        staged = sum(bool(p.staged) for p in batched.function_plans())
        if staged:  # ACL 20.08 stages some of the int8 model's outputs: those made alone, the rest in one call
            assert "stages" in batched.batch_refused
            assert batched.functions_batched == len(batched.functions) - staged > 0
        else:
            assert isinstance(batched.functions, RecalledFunctions), batched.batch_refused
            assert batched.functions_batched == len(batched.functions)
        assert batched.functions_recalled == 0
        monkeypatch.setattr(TfliteRunner, "batch_first_start", False)
        with TfliteRunner(path, facts_cache=False, model_cache=False) as alone:
            assert alone.functions_batched == 0 and not isinstance(alone.functions, RecalledFunctions)
            assert _decisions(batched) == _decisions(alone)
            assert not any(f.decision_recalled for f in batched.functions)
            assert {b: p.padding for b, p in batched.buffer_plans.items()} == \
                {b: p.padding for b, p in alone.buffer_plans.items()}
            assert_same_bits(alone, batched, 5, f"{name}: one call and one at a time differ")


def test_a_staging_function_is_made_alone_beside_the_one_call(monkeypatch, tmp_path):
    """A function whose plan stages a tensor is made one at a time, in its place, and every
    other in the one native call, on a first start and from the kept decisions alike; the
    decisions are one at a time's and the outputs the same bits as a start with nothing staged.
    No fetched model stages on 24.11 (20.08 stages int8 convolution outputs): here the probe is
    made to answer that the additions compute otherwise on their channel slices (front's folded
    PAD+ADDs), so those stage."""
    from acl_bridge import executor
    from acl_bridge.configure_batch import RecalledFunctions
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file("face_detection_front")
    with TfliteRunner(path, facts_cache=False, model_cache=False) as plain:
        assert not any(p.staged for p in plain.function_plans())
        real = executor.probe

        def probe(kind, params, descs):
            writes, same = real(kind, params, descs)
            return writes, same and kind != "add"

        monkeypatch.setattr(executor, "probe", probe)
        caches = dict(facts_cache=tmp_path / "facts", model_cache=False)
        made = []
        for start in ("first", "second"):  # the second from the first's kept decisions
            with TfliteRunner(path, **caches) as r:
                assert r.facts_cache.state == ("cold" if start == "first" else "warm")
                assert r.functions_recalled == (0 if start == "first" else len(r.functions))
                staged = [k for k, p in enumerate(r.function_plans()) if p.staged]
                assert staged and {r.plan.steps[k].kind for k in staged} == {"add"}
                assert r.functions_batched == len(r.functions) - len(staged) > 0
                assert f"{len(staged)} of {len(r.functions)} functions made one at a time" in r.batch_refused
                assert "stages" in r.batch_refused and not isinstance(r.functions, RecalledFunctions)
                # the schedule: native segments between the staging functions' Python ones
                assert [kind for kind, _ in r.schedule.segments].count("python") == len(staged)
                assert_same_bits(plain, r, 3, f"the {start} start with staging functions")
                made.append(_decisions(r))
        assert made[1] == made[0]
        monkeypatch.setattr(TfliteRunner, "batch_first_start", False)
        with TfliteRunner(path, facts_cache=False, model_cache=False) as alone:
            assert alone.functions_batched == 0
            assert _decisions(alone) == made[0]


def test_a_refused_batch_negotiates_again_with_validate_asked(monkeypatch):
    """A first start negotiates without asking validate() on each step's negotiated layouts
    (the one native call asks it on the final ones, or the decision pass where they differ);
    where that call refuses, the runner negotiates again with validate() asked, as one at a
    time does, and makes the same functions as a start that never batched."""
    check_refused_batch_negotiates_again(monkeypatch, model_file("tflite_micro_speech"))


def refuse_first_start_batches(monkeypatch, why: str) -> None:
    """A first start's functions refused as one batch with ``why``, made after its decision
    pass (configure_kept) or in pieces beside it (MadeBeside: made, then let go); kept
    decisions' batches as before."""
    from acl_bridge.configure_beside import MadeBeside
    from acl_bridge.models.runtime import tflite_runner

    kept, made_beside = tflite_runner.configure_kept, MadeBeside.made
    monkeypatch.setattr(tflite_runner, "configure_kept", lambda calls, decided, decided_here=False:
                        (None, why) if decided_here else kept(calls, decided, decided_here))
    monkeypatch.setattr(MadeBeside, "made", lambda self, batch: (made_beside(self, batch), (None, why))[1])


def check_refused_batch_negotiates_again(monkeypatch, path, backend: str = "neon") -> None:
    """Where the first start's one native call refuses (made to here), the runner negotiates
    again asking validate() per step (and ACL's padding: ``negotiate``'s ``checks``) and makes
    the functions a start that never batched makes."""
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    options = dict(backend=backend, facts_cache=False, model_cache=False)
    with TfliteRunner(path, **options) as batched:
        if batched._unchecked:  # (else ACL refused the negotiated layouts and was asked again: 20.08)
            staged = sum(bool(p.staged) for p in batched.function_plans())
            assert batched.functions_batched == len(batched.functions) - staged
            assert batched._session.calls["check_layouts"] < len(batched.plan.steps)
        made = _decisions(batched)
    refuse_first_start_batches(monkeypatch, "refused for the test")
    with TfliteRunner(path, **options) as again:
        assert not again._unchecked and again.functions_batched == 0 and again.batch_refused == "refused for the test"
        assert again._session.calls["check_layouts"] + again._session.reused["check_layouts"] >= len(again.plan.steps)
        assert again._session.calls["negotiate"] + again._session.reused["negotiate"] >= len(again.plan.steps)
        assert _decisions(again) == made
    monkeypatch.setattr(TfliteRunner, "batch_first_start", False)
    with TfliteRunner(path, **options) as alone:
        assert not alone._unchecked and _decisions(alone) == made


def test_a_refusal_after_a_refused_batch_names_its_operator(monkeypatch):
    """ACL's refusal of a step's negotiated layouts that only the negotiation with validate()
    asked sees (the batch refused first): AclRefusedError naming the operator, as a start that
    never batched raises it; with the fallback, that operator is planned onto it."""
    from acl_bridge import executor
    from acl_bridge.errors import AclStatusError
    from acl_bridge.models.runtime.step_calls import AclRefusedError
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file("tflite_micro_speech")
    refuse_first_start_batches(monkeypatch, "refused")
    real = executor._layouts_rejected

    def refuse_softmax(ffi, lib, kind, params, descs):
        if kind == "softmax":
            raise AclStatusError("validate() refused it for the test", what=f"{kind}: check_layouts")
        return real(ffi, lib, kind, params, descs)

    monkeypatch.setattr(executor, "_layouts_rejected", refuse_softmax)
    with pytest.raises(AclRefusedError, match=r"operator #\d+ SOFTMAX .*refused it for the test") as e:
        TfliteRunner(path, facts_cache=False, model_cache=False, fallback=False)
    with TfliteRunner(path, facts_cache=False, model_cache=False) as partitioned:
        assert set(partitioned.acl_refused) == set(e.value.refused)


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting_alexa"])
def test_the_work_beside_the_pass_answers_as_asked_in_turn(monkeypatch, name):
    """A first start's probes asked, and its functions made, on a second thread while its
    decision pass goes on (acl_bridge.question_thread, acl_bridge.configure_beside) give the
    decisions, the kept answers, the probed steps, the functions made in one batch and the
    bits of the same start asking each probe in turn and making the functions in one call
    after the pass (face_detection_front: 15 probes, its folded PAD+ADDs' channel slices and
    its head's concatenated outputs; keyword_spotting_alexa: 55 functions, no probe on 24.11,
    24 on 20.08)."""
    from acl_bridge import configure_cold
    from acl_bridge.configure_session import ConfigureSession, encode_answers
    from acl_bridge.models.runtime import tflite_runner
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    kept = []  # each load's answers, as its session held them at the load's end
    forget = ConfigureSession.forget
    monkeypatch.setattr(ConfigureSession, "forget", lambda self: kept.append(self.kept()) or forget(self))
    path = model_file(name)
    runs = {}
    for beside in (False, True):  # (on 20.08 too, where the pass asks ACL its own questions meanwhile)
        monkeypatch.setattr(tflite_runner, "decide_calls",
                            lambda *a, beside=beside, **k: configure_cold.decide_calls(*a, probes_beside=beside, **k))
        monkeypatch.setattr(tflite_runner, "beside_worthwhile", lambda padding_asked, beside=beside: beside)
        runner = TfliteRunner(path, facts_cache=False, model_cache=False)
        s = runner._session
        probed = sorted(k for k, c in s.step_seconds.items() if c.get("probe"))
        # (the seconds of ACL's work beside the pass are meaningful summed: a wait for a probe
        # queued behind a piece waits for both; ConfigureSession.add_beside)
        runs[beside] = (runner, s.calls["probe"], probed, s.calls["configure"],
                        s.beside.get("probe", 0.0) + s.beside.get("configure", 0.0),
                        s.seconds["probe"] + s.seconds["configure"])
    (alone, n1, steps1, pieces1, beside1, _) = runs[False]
    (beside, n2, steps2, pieces2, beside2, seconds2) = runs[True]
    try:
        assert n1 == n2 and steps1 == steps2 and len(steps1) == n1 and (n1 > 0 or name != "face_detection_front")
        # one native call after the pass, or pieces beside it (the first as soon as a call is
        # decided); a staging function (20.08) made alone after either
        assert beside1 == 0.0 and pieces2 >= pieces1 + 1 and 0.0 < beside2 <= seconds2
        assert alone.functions_batched == beside.functions_batched > 0
        assert _decisions(beside) == _decisions(alone)
        assert len(kept) == 2 and encode_answers(kept[1]) == encode_answers(kept[0])
        assert_same_bits(alone, beside, 3, "probes beside the pass and in turn differ")
    finally:
        alone.close()
        beside.close()
