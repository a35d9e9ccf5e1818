"""acl_bridge.models.profiling.paired_timing (the main job's timings): every contender once per round,
the order rotated, ratios paired within rounds; checked on a fake clock."""

import pytest

from acl_bridge.models.profiling import paired_timing


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
    # worked out by hand: the call k (warm-ups 1-3) costs cost * (1 + k // 3), so round by round
    # armnn/bridge is 1.5/2, 1.5/4, 2/4, 3/5 and tflite/bridge 4/2, 6/4, 10/4, 10/5; the paired
    # ratio is the median of those (0.55 and 2.0), not a ratio of medians (1.75/4 = 0.4375)
    assert times.ratios("armnn") == pytest.approx([0.75, 0.375, 0.5, 0.6], rel=1e-12)
    assert times.ratios("tflite") == pytest.approx([2.0, 1.5, 2.5, 2.0], rel=1e-12)
    assert times.ratio("armnn") == pytest.approx(0.55, rel=1e-12)
    assert times.ratio("tflite") == pytest.approx(2.0, rel=1e-12)
    assert times.ratio_range("armnn") == pytest.approx((0.375, 0.75), rel=1e-12)
    assert times.ratio("bridge") == 1.0
    assert "paired ratio" in times.text() and times.text().startswith("time per inference, 4 interleaved rounds")


def test_bad_arguments_are_refused():
    with pytest.raises(KeyError, match="base 'x'"):
        paired_timing.interleaved({"a": lambda: None}, 3, "x")
    with pytest.raises(ValueError, match="rounds is 0"):
        paired_timing.interleaved({"a": lambda: None}, 0, "a")
