"""Every model, per issue 36: operators on ACL and on the CPU fallback, the fallback's share of
an inference, and the time per inference against TFLite's interpreter and Arm NN.

    python3 benchmarks/model_fallback.py [--models a,b] [--rounds 3] [--profile-rounds 3]
                                         [--threads 1] [--json FILE]

Per model (default: every model in the fetch cache, :data:`acl_bridge.models.apps.fetch.MODELS`),
in one process, with the contenders and rounds of benchmarks/model_speed.py (the bridge's
``TfliteRunner`` with its default ``fallback=True``, Arm NN's TfLite parser on CpuAcc, TFLite's
interpreter with its default kernels where ai-edge-litert 1.x is installed; ``--rounds``
rounds, each contender once per round in an order rotated each round; ratios: the median of
the rounds' own bridge / other ratios, with their min-max):

* operators: the model's operators, those on the fallback (``runner.fallback_operators()``:
  each with its kind and reason) and the rest on ACL (as functions, or fused, folded or views),
  and the ACL segments of the partitioned plan;
* the fallback's share: fallback segments' seconds over all segments' seconds in
  ``runner.segment_profile(--profile-rounds)`` (the ``run-tflite --profile`` figures), taken
  after the paired rounds, on the same input;
* per inference: each contender's median, and bridge / TFLite and bridge / Arm NN paired by round.

TFLite's interpreter is first tried per model in a child process (load, allocate, two
invokes on the same seeded input): where that child dies (ai-edge-litert's default kernels
crash on some models under qemu-user) the interpreter is reported as crashed, with the
child's exit status, and left out of that model's rounds so that the others still run.
Under QEMU absolute times mean little; ratios within one run do.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import model_speed as ms  # noqa: E402  (benchmarks/model_speed.py: contenders, rounds, ratios)

# the child that tries the interpreter alone: argv = model path, threads, seed
_TFLITE_CHILD = """
import sys, numpy as np
sys.path.insert(0, {here!r})
import model_speed as ms
from acl_bridge.models.oracles.tflite_oracle import interpreter
path, threads = sys.argv[1], int(sys.argv[2])
x = ms.seeded_input(ms.model_input(path))
it, _ = interpreter(path, num_threads=threads)
i = it.get_input_details()[0]["index"]
for _ in range(2):
    it.set_tensor(i, x)
    it.invoke()
print("ok")
"""


def tflite_in_a_child(path, threads: int, timeout_s: float = 600.0) -> Optional[str]:
    """None where TFLite's interpreter loads and runs the model in a child process, else what
    happened to the child: "crashed ..." (a signal) or "failed ..." (an exit status: the
    interpreter refused the file), with the last line it wrote on stderr."""
    try:
        p = subprocess.run([sys.executable, "-c", _TFLITE_CHILD.format(here=HERE), str(path), str(threads)],
                           capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"the interpreter's child did not finish in {timeout_s:.0f} s"
    if p.returncode == 0 and p.stdout.strip().endswith("ok"):
        return None
    last = " ".join((p.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1].split())[:160]
    if p.returncode < 0:
        return f"crashed in a child process (killed by signal {-p.returncode}): {last}"
    return f"failed in a child process (exit status {p.returncode}): {last}"


class BridgeProbe:
    """The bridge's contender, keeping what the runner says before it is closed: the
    operators on the fallback and the per-segment profile."""

    def __init__(self, profile_rounds: int):
        self.profile_rounds = profile_rounds
        self.operators = 0
        self.fallbacks: List[Dict[str, object]] = []
        self.acl_segments: Optional[int] = None
        self.segments: List[Dict[str, object]] = []
        self.profile_error = ""

    def start(self, path, x, threads: int) -> ms.Started:
        from acl_bridge.models.runtime.tflite_runner import TfliteRunner

        def build():
            r = TfliteRunner(path)
            self.operators = len(r.plan.model.operators)
            self.fallbacks = r.fallback_operators()
            self.acl_segments = r.schedule.segment_count[0] if r.plan.fallbacks else 1

            def close():
                try:
                    if self.profile_rounds > 0:
                        r.run(x)  # the profile runs on what the input buffer holds
                        self.segments = [dict(index=s.index, side=s.side, operators=len(s.operators), seconds=s.seconds)
                                         for s in r.segment_profile(self.profile_rounds)]
                except Exception as e:  # noqa: BLE001  (reported beside the model's row)
                    self.profile_error = f"{type(e).__name__}: {' '.join(str(e).split())}"
                finally:
                    r.close()
            return (lambda: r.run(x)), close

        return ms._timed_start("bridge", build, lambda: {"acl_scheduler": threads})

    def fallback_share(self) -> Optional[float]:
        total = sum(s["seconds"] for s in self.segments)
        if not self.segments or total <= 0:
            return None
        return sum(s["seconds"] for s in self.segments if s["side"] == "fallback") / total


def measure_one(model: str, threads: int, rounds: int, profile_rounds: int) -> Dict[str, object]:
    """One model's row (see the module's docstring)."""
    from acl_bridge.models.apps import fetch

    row: Dict[str, object] = {"model": model}
    try:
        path = fetch.model_path(model)
        inp = ms.model_input(path)
    except Exception as e:  # noqa: BLE001  (not in the cache, or unreadable)
        row["note"] = f"{type(e).__name__}: {' '.join(str(e).split())}"
        return row
    x = ms.seeded_input(inp)
    probe = BridgeProbe(profile_rounds)
    starters = {"bridge": lambda: probe.start(path, x, threads),
                "armnn": ms._bind(ms.start_armnn, path, x, threads)}
    why_not = ms.tflite_available()
    crashed = None if why_not is not None else tflite_in_a_child(path, threads)
    if why_not is None and crashed is None:
        starters["tflite"] = ms._bind(ms.start_tflite, path, x, threads)
    t0 = time.perf_counter()
    result = ms.measure(model, threads, inp, starters, rounds)
    row["seconds"] = time.perf_counter() - t0
    row.update(result.as_dict())
    if why_not is not None:
        row["contenders"]["tflite"] = {"refused": why_not, "error": "ImportError"}
    elif crashed is not None:
        row["contenders"]["tflite"] = {"failed": crashed, "error": "crash" if crashed.startswith("crashed") else "child"}
    if isinstance(result.contenders.get("bridge"), ms.Started):
        row["operators"] = probe.operators
        row["fallback"] = probe.fallbacks
        row["acl_segments"] = probe.acl_segments
        row["segments"] = probe.segments
        row["fallback_share"] = probe.fallback_share()
        if probe.profile_error:
            row["profile_error"] = probe.profile_error
    return row


# ---------------------------------------------------------------------------- output
def _time(c: Dict[str, object]) -> str:
    if "per_inference_ms" in c:
        return ms._ms(c["per_inference_ms"])  # type: ignore[arg-type]
    return "crashed" if c.get("error") == "crash" else "refused" if "refused" in c else "failed"


def _ratio(row: Dict[str, object], other: str) -> str:
    r = row.get("bridge_over", {}).get(other)  # type: ignore[union-attr]
    return "-" if not r else f"{r['median']:.2f} ({r['min']:.2f}-{r['max']:.2f})"


def grouped(fallbacks: List[Dict[str, object]]) -> str:
    """'13x DEPTHWISE_CONV_2D (refused by ACL)': the fallback operators counted by opcode and kind."""
    counts: Dict[str, int] = {}
    for f in fallbacks:
        key = f"{f['opcode']} ({f['kind']})"
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{n}x {key}" for key, n in counts.items()) or "-"


def markdown_rows(rows: List[Dict[str, object]]) -> List[str]:
    """The docs table: a line per model."""
    lines = ["| model | operators: ACL / fallback | ACL segments | fallback operators (kind) | fallback share "
             "| bridge | TFLite | bridge / TFLite | Arm NN | bridge / Arm NN |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        if row.get("note"):
            lines.append(f"| {row['model']} | not measured: {row['note']} |" + " |" * 8)
            continue
        c = row["contenders"]
        assert isinstance(c, dict)
        if "operators" in row:
            fb = row["fallback"]
            assert isinstance(fb, list)
            ops = f"{row['operators'] - len(fb)} / {len(fb)}"
            which = grouped(fb)
            share = row.get("fallback_share")
            share_text = "-" if share is None else f"{100 * share:.1f} %"
            segs = str(row["acl_segments"])
        else:
            ops, which, share_text, segs = "bridge refused", "-", "-", "-"
        lines.append(f"| {row['model']} | {ops} | {segs} | {which} | {share_text} | {_time(c['bridge'])} | "
                     f"{_time(c.get('tflite', {}))} | {_ratio(row, 'tflite')} | {_time(c['armnn'])} | "
                     f"{_ratio(row, 'armnn')} |")
    return lines


def problems(rows: List[Dict[str, object]]) -> List[str]:
    """Every refusal, failure and crash in full, and every fallback operator's reason."""
    out = []
    for row in rows:
        for name, c in row.get("contenders", {}).items():  # type: ignore[union-attr]
            for verdict in ("refused", "failed"):
                if verdict in c:
                    out.append(f"{row['model']}: {ms.TITLES.get(name, name)} {verdict}: {c[verdict]}")
        for f in row.get("fallback", []):  # type: ignore[union-attr]
            out.append(f"{row['model']}: fallback #{f['operator']} {f['opcode']} ({f['kind']}): {f['reason']}")
        if "profile_error" in row:
            out.append(f"{row['model']}: segment profile failed: {row['profile_error']}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="", help="comma-separated model names (default: every model in the cache)")
    ap.add_argument("--rounds", type=int, default=3, help="paired rounds per model (few under emulation)")
    ap.add_argument("--profile-rounds", type=int, default=3, help="runs of the bridge's per-segment profile")
    ap.add_argument("--threads", type=int, default=1, help="threads for every runtime (0: ACL's default)")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    from acl_bridge import native
    from acl_bridge.models.apps import fetch

    models = args.models.split(",") if args.models else list(fetch.MODELS)
    ok, why = native.native_available()
    if ok:
        native.set_num_threads(args.threads)
    print(f"ACL: {native.acl_version() if ok and hasattr(native, 'acl_version') else ('native ok' if ok else why)}; "
          f"TFLite's interpreter: {ms.tflite_available() or 'default kernels'}; threads {args.threads}; "
          f"{args.rounds} paired rounds; segment profile over {args.profile_rounds} runs", flush=True)
    rows = []
    for model in models:
        row = measure_one(model, args.threads, args.rounds, args.profile_rounds)
        rows.append(row)
        print(markdown_rows([row])[-1], f"[{row.get('seconds', 0):.0f} s]", flush=True)
        if args.json:  # written after every model: a later crash keeps what was measured
            with open(args.json, "w") as f:
                json.dump(dict(threads=args.threads, rounds=args.rounds, models=rows), f, indent=1, default=str)
    print("\n".join(markdown_rows(rows)))
    print("\n".join(["refusals, crashes and fallback reasons, in full:"] + problems(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
