"""acl_bridge.models.paired_timing (the main job's timings): every contender once per round,
the order rotated, ratios paired within rounds; checked on a fake clock."""

import pytest

from acl_bridge.models import paired_timing


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def test_rounds_rotate_and_ratios_pair_within_a_round(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(paired_timing.time, "perf_counter", clock.perf_counter)
    calls = []
    cost = {"bridge": 1.0, "tflite": 2.0, "armnn": 0.5}

    def contender(name):
        def run():
            calls.append(name)
            # the machine gets slower each round: a paired ratio does not see it
            clock.now += cost[name] * (1 + len(calls) // 3)
        return run

    times = paired_timing.interleaved({n: contender(n) for n in cost}, 4, "bridge")
    timed = calls[3:]  # after one warm-up call each
    assert [timed[i:i + 3] for i in range(0, 12, 3)] == [
        ["bridge", "tflite", "armnn"], ["tflite", "armnn", "bridge"],
        ["armnn", "bridge", "tflite"], ["bridge", "tflite", "armnn"]]
    assert times.ratio("tflite") == pytest.approx(2.0, rel=0.35)
    assert times.ratio("armnn") == pytest.approx(0.5, rel=0.35)
    assert times.ratio("bridge") == 1.0
    assert "paired ratio" in times.text() and times.text().startswith("time per inference, 4 interleaved rounds")


def test_bad_arguments_are_refused():
    with pytest.raises(KeyError, match="base 'x'"):
        paired_timing.interleaved({"a": lambda: None}, 3, "x")
    with pytest.raises(ValueError, match="rounds is 0"):
        paired_timing.interleaved({"a": lambda: None}, 0, "a")
