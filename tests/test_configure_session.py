"""ACL's answers kept by content within one load, and the seconds of native calls by
category and step (acl_bridge.configure_session); the configure profile's record and its
renderings (acl_bridge.models.profiling.configure_profile). Pure Python: the calls here stand in for
the executor's native ones, which the `acl` runner tests exercise."""

import dataclasses
import json

import pytest

from acl_bridge import configure_session as cs
from acl_bridge.models.profiling.configure_profile import ConfigureProfile, NativeTime, PhaseTime, StepTime


def counter():
    asked = []

    def make(answer):
        def call():
            asked.append(answer)
            return answer
        return call
    return asked, make


def test_outside_a_session_every_question_is_asked():
    asked, make = counter()
    assert cs.current() is None
    for _ in range(3):
        assert cs.ask("negotiate", lambda: ("k",), make(7)) == 7
    assert asked == [7, 7, 7]


def test_a_session_asks_each_content_once_and_times_what_it_asked():
    asked, make = counter()
    s = cs.ConfigureSession()
    with s.active():
        assert cs.current() is s
        s.step = 4
        assert cs.ask("negotiate", lambda: ("conv", b"\x01"), make("a")) == "a"
        assert cs.ask("negotiate", lambda: ("conv", b"\x01"), make("b")) == "a"  # same content: the kept answer
        assert cs.ask("negotiate", lambda: ("conv", b"\x02"), make("c")) == "c"
        assert cs.ask("probe", lambda: ("conv", b"\x01"), make("d")) == "d"  # another question, same content
        with cs.timed("configure"):
            pass
        assert cs.ask("configure", lambda: ("conv",), make("e")) == "e"  # configure is never reused
        assert cs.ask("configure", lambda: ("conv",), make("f")) == "f"
    assert cs.current() is None
    assert asked == ["a", "c", "d", "e", "f"]
    assert (s.calls["negotiate"], s.reused["negotiate"], s.calls["probe"], s.calls["configure"]) == (2, 1, 1, 3)
    assert set(s.step_seconds[4]) == {"negotiate", "probe", "configure"}
    assert all(v >= 0 for v in s.seconds.values())


def test_reuse_false_asks_every_time_and_still_times():
    asked, make = counter()
    s = cs.ConfigureSession(reuse=False)
    with s.active():
        for _ in range(2):
            cs.ask("negotiate", lambda: ("k",), make(1))
    assert asked == [1, 1] and (s.calls["negotiate"], s.reused["negotiate"]) == (2, 0)


def test_a_question_that_raises_is_timed_and_not_kept():
    s = cs.ConfigureSession()

    def fails():
        raise RuntimeError("ACL refused")
    with s.active():
        with pytest.raises(RuntimeError, match="ACL refused"):
            cs.ask("check_layouts", lambda: ("k",), fails)
        assert cs.ask("check_layouts", lambda: ("k",), lambda: None) is None
    assert (s.calls["check_layouts"], s.reused["check_layouts"]) == (2, 0)


def test_forget_drops_the_answers_and_keeps_the_times():
    asked, make = counter()
    s = cs.ConfigureSession()
    with s.active():
        cs.ask("negotiate", lambda: ("k",), make(1))
        s.forget()
        cs.ask("negotiate", lambda: ("k",), make(2))
    assert asked == [1, 2] and s.calls["negotiate"] == 2


def profile(first_run=None):
    phases = (PhaseTime("read", 0.5), PhaseTime("lower", 0.25),
              PhaseTime("negotiation", 2.0, (NativeTime("negotiate", 1.5, 10, 4),)),
              PhaseTime("configure", 4.0, (NativeTime("negotiate", 0.0, 0, 14), NativeTime("configure", 3.0, 14, 0))))
    steps = (StepTime(0, 0, "CONV_2D", "convolution", ((1, 8, 8, 3), (1, 8, 8, 4)), 0.75,
                      (("negotiate", 0.25), ("configure", 0.5))),)
    return ConfigureProfile("m.tflite", "neon", True, 1, phases, steps, first_run)


def test_profile_sums_its_phases_and_adds_the_first_run():
    p = profile()
    assert p.configure_seconds == 6.75 and p.first_result_seconds is None
    assert p.phases[2].python_seconds == 0.5 and p.phases[0].python_seconds == 0.5
    totals = p.native_totals()
    assert (totals["negotiate"].calls, totals["negotiate"].reused, totals["negotiate"].seconds) == (10, 18, 1.5)
    q = profile(first_run=1.25)
    assert q.first_result_seconds == 8.0


def test_profile_renders_as_text_and_json():
    p = profile(first_run=1.25)
    text = p.text()
    assert "negotiation" in text and "10 / 4" in text and "time to the first result" in text
    assert "step   0 op   0 CONV_2D" in text
    d = json.loads(json.dumps(p.as_dict()))
    assert d["configure_seconds"] == 6.75 and d["first_result_seconds"] == 8.0
    assert d["phases"][3]["native"][1] == {"category": "configure", "seconds": 3.0, "calls": 14, "reused": 0}
    assert d["steps"][0]["shapes"] == [[1, 8, 8, 3], [1, 8, 8, 4]]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.model = "other"  # type: ignore[misc]


def test_operator_profile_medians_shares_and_kinds():
    from acl_bridge.models.profiling.operator_profile import FunctionTime, OperatorProfile

    fs = (FunctionTime(0, 0, "CONV_2D", "convolution", ((1, 8, 8, 3), (1, 8, 8, 4)), (3.0, 1.0, 2.0)),
          FunctionTime(1, 1, "ADD", "add", ((1, 8, 8, 4), (1, 8, 8, 4), (1, 8, 8, 4)), (1.0, 1.0, 5.0)),
          FunctionTime(2, 2, "CONV_2D", "convolution", ((1, 8, 8, 4), (1, 8, 8, 4)), (1.0, 1.0, 1.0)))
    p = OperatorProfile("m.tflite", "neon", 3, fs)
    assert [f.median_seconds for f in fs] == [2.0, 1.0, 1.0] and p.total_median_seconds == 4.0
    assert p.by_kind() == {"convolution": (2, 3.0), "add": (1, 1.0)}
    d = json.loads(json.dumps(p.as_dict()))
    assert d["by_kind"]["convolution"] == {"functions": 2, "median_seconds": 3.0, "share": 0.75}
    assert [f["share"] for f in d["functions"]] == [0.5, 0.25, 0.25]
    text = p.text()
    assert "convolution" in text and "75.0%" in text and "step   0 op   0 CONV_2D" in text


def test_a_per_channel_question_is_spelled_as_its_fields_each_time():
    """A PerChannelQuantization's text in a question id is its fields' (scales by float.hex),
    kept per object only where nothing inside can change: a list of scales changed in place
    changes the id."""
    from acl_bridge.configure_session import _canonical, question_id
    from acl_bridge.mapping import PerChannelQuantization

    q = PerChannelQuantization((0.25, 0.5), 1)
    text = "PerChannelQuantization((0x1.0000000000000p-2,0x1.0000000000000p-1),1)"
    assert _canonical(q) == _canonical(q) == text
    assert question_id("negotiate", (q,)) == question_id("negotiate", (PerChannelQuantization((0.25, 0.5), 1),))
    mutable = PerChannelQuantization([0.25, 0.5], 1)
    before = question_id("negotiate", (mutable,))
    mutable.scales.append(1.0)
    assert question_id("negotiate", (mutable,)) != before
