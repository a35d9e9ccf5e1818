"""A first start with the padding negotiation unasked (ACL 24.11 NEON: its kernels ask no
padding, acl_bridge.native.kernels_ask_padding) against the same start asking ACL each step's
padding (the gate forced to "asks", as before), on constructed models with and without an
operator on the CPU fallback, among them one ACL refuses at configure: what the optimistic
attempt costs where the one native call refuses and the runner negotiates again.

    python3 benchmarks/unasked_negotiation.py [--rounds 7] [--steps 60]

Both contenders in one process, taking turns (the order alternating each round), caches off
(every load a first start); each prints its partition and ACL calls once, and the decisions and
partition of the two are compared (an error where they differ). Per model: medians of the
configure (the runner's constructor) and the median, min-max of the rounds' paired ratio
unasked / asked. The models (``tests/models/graph_tflite``): ``--steps`` float32 activations in
a row on (1, 16, 16, 8), alone, then a COS (no rule: the fallback), then an int64 ARG_MAX
(NEArgMinMaxLayer::validate refuses it on 24.11: the fallback after ACL's refusal), and that
ARG_MAX alone. Needs ACL: ``./docker/emulate.sh run trixie -- python3 benchmarks/unasked_negotiation.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from typing import List, Optional

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests' graph maker, after the installed package

SHAPE = (1, 16, 16, 8)
ACTIVATIONS = ("TANH", "LOGISTIC", "RELU6", "HARD_SWISH")


def model(steps: int, tail: Optional[str]) -> bytes:
    """``steps`` activations in a row, then ``tail``: None, "cos" or "argmax64"."""
    from tests.models.graph_tflite import graph_model

    names = ["x"] + [f"t{k}" for k in range(steps)]
    tensors = [(m, SHAPE, "float32", None, None) for m in names]
    ops = [(ACTIVATIONS[k % len(ACTIVATIONS)], [names[k]], [names[k + 1]], None) for k in range(steps)]
    out = names[-1]
    if tail == "argmax64":
        tensors += [("axis", (1,), "int32", np.array([3], np.int32), None), ("y", SHAPE[:3], "int64", None, None)]
        ops.append(("ARG_MAX", [out, "axis"], ["y"], ("ArgMaxOptions", {"OutputType": 4})))  # TensorType.INT64
        out = "y"
    elif tail == "cos":
        tensors.append(("y", SHAPE, "float32", None, None))
        ops.append(("COS", [out], ["y"], None))
        out = "y"
    return graph_model(tensors, ops, ["x"], [out])


def load(data: bytes, asked: bool):
    """(seconds, (fallbacks, decisions, required paddings asked, layout checks asked))."""
    from acl_bridge import configure_cold
    from acl_bridge.models.runtime import negotiation
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    users = (negotiation, configure_cold)  # every module that reads the gate (the runner through negotiation.asks_acl)
    real = [m.kernels_ask_padding for m in users]
    if asked:
        for m in users:
            m.kernels_ask_padding = lambda name, data_layout="NCHW": True
    try:
        t0 = time.perf_counter()
        r = TfliteRunner(data, model_cache=False, facts_cache=False)
        seconds = time.perf_counter() - t0
    finally:
        for m, f in zip(users, real):
            m.kernels_ask_padding = f
    f = r.functions
    made = tuple(f.decisions) if hasattr(f, "decisions") else tuple(x.decision for x in f)
    info = ([(x.op_index, x.kind) for x in r.plan.fallbacks], made, r._session.calls.get("negotiate", 0),
            r._session.calls.get("check_layouts", 0))
    r.close()
    return seconds, info


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--steps", type=int, default=60)
    args = ap.parse_args(argv)
    from acl_bridge import native

    native.require_native()
    native.set_num_threads(1)
    warnings.simplefilter("ignore")
    n = args.steps
    for name, steps, tail in [(f"{n} activations", n, None), (f"{n} activations + COS (no rule)", n, "cos"),
                              (f"{n} activations + ARG_MAX int64 (ACL refuses)", n, "argmax64"),
                              ("ARG_MAX int64 alone (ACL refuses)", 0, "argmax64")]:
        data = model(steps, tail)
        load(data, False)
        load(data, True)  # each path's first load in the process apart (imports, ACL's first use)
        times = {False: [], True: []}
        ratios = []
        for k in range(args.rounds):
            pair, infos = {}, {}
            for asked in ((False, True) if k % 2 == 0 else (True, False)):
                pair[asked], infos[asked] = load(data, asked)
                times[asked].append(pair[asked])
            if infos[True][:2] != infos[False][:2]:
                raise RuntimeError(f"{name}: the unasked and asked first starts decide otherwise")
            if k == 0:
                for asked, info in sorted(infos.items()):
                    print(f"    {'asked' if asked else 'unasked'}: fallback {info[0]}, required paddings asked "
                          f"{info[2]}, layout checks asked {info[3]}")
            ratios.append(pair[False] / pair[True])
        print(f"{name}: configure unasked {statistics.median(times[False]) * 1e3:.1f} ms, asked "
              f"{statistics.median(times[True]) * 1e3:.1f} ms, paired unasked / asked {statistics.median(ratios):.3f} "
              f"({min(ratios):.3f}-{max(ratios):.3f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
