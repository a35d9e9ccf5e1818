"""Timing contenders the way the benchmarks do (benchmarks/bench.py): in interleaved rounds,
each round running every contender once, in an order rotated from round to round, and
comparing them by the median over rounds of each one's time over the base's time in the same
round. On a shared machine (and under QEMU) the load drifts between rounds; within a round
the contenders see the same load, so the paired ratio is steadier than a ratio of medians
taken one after the other. Pure Python (the main job and the command line use it)."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping


@dataclass(frozen=True)
class PairedTimes:
    seconds: Dict[str, List[float]]  # per contender, one time per round
    base: str

    def median_ms(self, name: str) -> float:
        return statistics.median(self.seconds[name]) * 1e3

    def ratios(self, name: str) -> List[float]:
        """``name``'s time over the base's time, round by round."""
        return [a / b for a, b in zip(self.seconds[name], self.seconds[self.base])]

    def ratio(self, name: str) -> float:
        """Median over rounds of ``name``'s time over the base's time in the same round."""
        return statistics.median(self.ratios(name))

    def ratio_range(self, name: str) -> tuple:
        r = self.ratios(name)
        return min(r), max(r)

    def text(self) -> str:
        n = len(self.seconds[self.base])
        parts = []
        for name in self.seconds:
            if name == self.base:
                parts.append(f"{name} {self.median_ms(name):.1f} ms")
            else:
                lo, hi = self.ratio_range(name)
                parts.append(f"{name} {self.median_ms(name):.1f} ms (paired ratio {self.ratio(name):.2f}, "
                             f"{lo:.2f}-{hi:.2f})")
        return f"time per inference, {n} interleaved rounds, median: " + "; ".join(parts)


def interleaved(contenders: Mapping[str, Callable[[], object]], rounds: int, base: str) -> PairedTimes:
    """Run each contender once per round, ``rounds`` rounds, the order rotated each round
    (after one untimed warm-up call each); ``base`` names the contender ratios are taken to."""
    if base not in contenders:
        raise KeyError(f"base {base!r} is not among the contenders {list(contenders)}")
    if rounds < 1:
        raise ValueError(f"rounds is {rounds}, expected >= 1")
    names = list(contenders)
    for name in names:
        contenders[name]()
    seconds: Dict[str, List[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t = time.perf_counter()
            contenders[name]()
            seconds[name].append(time.perf_counter() - t)
    return PairedTimes(seconds, base)


__all__ = ["PairedTimes", "interleaved"]
