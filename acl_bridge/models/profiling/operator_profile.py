"""Where an inference's time goes, function by function: :meth:`TfliteRunner.profile`'s record.

Each row is one ACL function of the schedule (one bridge step): its TFLite operator (index
and opcode), the bridge's kind, the shapes of its tensors (inputs then output, numpy order),
and its run times over the rounds, timed inside the native layer around each function's run
(``acl_shim_schedule_profile``: no Python between functions). The median per function, its
share of the sum of medians, and the medians summed per kind are what :meth:`text` shows;
:meth:`as_dict` is the JSON of ``run-tflite --profile --json``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Dict, Tuple


@dataclass(frozen=True)
class FunctionTime:
    step: int
    op_index: int
    opcode: str
    kind: str
    shapes: Tuple[Tuple[int, ...], ...]
    seconds: Tuple[float, ...]  # one per round

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)


@dataclass(frozen=True)
class OperatorProfile:
    model: str
    backend: str
    rounds: int
    functions: Tuple[FunctionTime, ...]  # schedule order

    @property
    def total_median_seconds(self) -> float:
        """The sum of the functions' medians (an inference, without the input copy)."""
        return sum(f.median_seconds for f in self.functions)

    def by_kind(self) -> Dict[str, Tuple[int, float]]:
        """kind -> (functions, summed median seconds), costliest first."""
        out: Dict[str, Tuple[int, float]] = {}
        for f in self.functions:
            n, s = out.get(f.kind, (0, 0.0))
            out[f.kind] = (n + 1, s + f.median_seconds)
        return dict(sorted(out.items(), key=lambda kv: -kv[1][1]))

    def as_dict(self) -> Dict[str, object]:
        total = self.total_median_seconds or 1e-12
        return {
            "model": self.model, "backend": self.backend, "rounds": self.rounds,
            "total_median_seconds": round(self.total_median_seconds, 9),
            "by_kind": {k: {"functions": n, "median_seconds": round(s, 9), "share": round(s / total, 4)}
                        for k, (n, s) in self.by_kind().items()},
            "functions": [{"step": f.step, "op_index": f.op_index, "opcode": f.opcode, "kind": f.kind,
                           "shapes": [list(x) for x in f.shapes], "median_seconds": round(f.median_seconds, 9),
                           "share": round(f.median_seconds / total, 4),
                           "seconds": [round(x, 9) for x in f.seconds]} for f in self.functions],
        }

    def text(self, top: int = 15) -> str:
        total = self.total_median_seconds or 1e-12
        rows = [f"operator profile: {self.model} on {self.backend}, {len(self.functions)} functions, median of "
                f"{self.rounds} rounds, timed inside the native schedule; sum of medians {1e3 * total:.3f} ms",
                f"{'kind':<14}{'functions':>10}{'ms':>10}{'share':>8}"]
        for k, (n, s) in self.by_kind().items():
            rows.append(f"{k:<14}{n:>10}{1e3 * s:>10.3f}{100 * s / total:>7.1f}%")
        rows.append(f"costliest functions:")
        for f in sorted(self.functions, key=lambda f: -f.median_seconds)[:top]:
            rows.append(f"  step {f.step:>3} op {f.op_index:>3} {f.opcode:<20} {f.kind:<12} "
                        f"{' '.join('x'.join(map(str, x)) for x in f.shapes):<32} {1e3 * f.median_seconds:>9.3f} ms "
                        f"{100 * f.median_seconds / total:>5.1f}%")
        return "\n".join(rows)


__all__ = ["OperatorProfile", "FunctionTime"]
