"""Start-up of a model in a fresh process: the bridge's first start, its second start (its
caches warm) and Arm NN's, taking turns.

    python3 benchmarks/start_time.py [--models face_detection_front,face_landmark] [--rounds 3]
                                     [--threads 1] [--base DIR] [--json FILE]

A start is what a program pays once per process: ``import`` (the runtime's Python modules and
its native libraries: ``acl_bridge.models.runtime.tflite_runner`` and the shim with libarm_compute;
``pyarmnn`` with libarmnn, through :func:`acl_bridge.armnn.load`), ``configure`` (the file to
a runtime ready to run: the bridge's ``TfliteRunner``, Arm NN's TfLite parser, runtime,
optimize and load on CpuAcc) and the first inference (ACL prepares weights there):
``first result`` = configure + first inference. Contenders, each in a process of its own
(``--child``), in an order rotated each round:

* ``bridge first``: the bridge's caches empty (new directories each time: the model is read
  with the ``tflite`` package, which is imported then, and ACL answers every question);
* ``bridge second``: the parsed-model cache and ACL's kept answers (acl_bridge.facts_cache)
  holding this model, both filled once before the rounds (every function made from its kept
  decision, acl_bridge.decisions: checked);
* ``bridge parsed only``: the parsed-model cache warm, ACL's answers not kept
  (``facts_cache=False``): what the kept answers add;
* ``bridge second unchecked``: the second start with the caches' trust checks taken out by
  this benchmark (:func:`without_trust_checks`: owner and mode checks, the decoders' reader
  limits, the batch's comparison of each decision with its call): what those checks cost,
  reported as the paired ratio second / unchecked;
* ``bridge first unprobed``: the first start with ACL's probe (``acl_shim_probe``: does a
  function write outside a strided or offset tensor's elements, and compute what it computes
  on dense buffers) answered "nothing outside, the same" by this benchmark without running
  ACL (:func:`without_probes`): what the probes cost a first start, reported as the paired
  ratio first / unprobed. A measurement only: the library never skips a probe;
* ``bridge first in turn``: the first start with its probes asked in turn on the decision
  pass's thread and its functions made in one call after the pass (:func:`probes_in_turn`), as
  where one CPU is available; the library asks the probes and makes the functions on a second
  thread beside the pass (acl_bridge.question_thread, acl_bridge.configure_beside): what that
  saves, reported as the paired ratio first / in turn;
* ``bridge first uncached``: the first start with both caches off (``model_cache=False``,
  ``facts_cache=False``): what looking for kept files and keeping them cost a first start,
  reported as the paired ratio first / uncached;
* ``armnn``: Arm NN's parser on CpuAcc (pyarmnn 23.08 or 20.08; absent: skipped, saying so; a
  model it refuses, as 20.08 refuses five of the nine: the bridge alone there, the refusal in
  the table);
* ``base first``: with ``--base DIR``, the bridge's first start with the Python packages of
  another checkout (``acl_bridge`` and ``ndarray`` in DIR, over this install's native module:
  ``PYTHONPATH``), taking turns with the others: a change's before and after paired round by
  round in one run, reported as the ratio bridge first / base first;
* ``base second``: with ``--base DIR``, the base's second start (its caches filled once by a
  start of the base before the rounds, apart from this checkout's: their formats may differ),
  reported as the ratio bridge second / base second.

Each child says what its caches did, and the parent checks it (a cold start that found a warm
cache, or the reverse, is an error, not a number). Each child also says where its configure
went (:func:`phases_of`: the bridge's ``configure_profile()`` phases with ACL's calls apart from
the Python around them, Arm NN's parse, optimize and load), printed after the table as medians.
Per contender the median over rounds; the
ratios bridge / Arm NN are medians of the rounds' own ratios (paired: the machine's drift
between rounds cancels) with their min-max. One ACL thread by default (``--threads 0``: each
runtime's default): Arm NN 23.08 is given CpuAcc's ``NumberOfThreads``; Arm NN 20.08's pyarmnn
has no backend options, and its CpuAcc runs on the ACL library the shim loads (one
``libarm_compute`` in the process), so ACL's scheduler set to the count is its count too; every
contender's count is checked after its first result. Python byte code is compiled before the
rounds (``compileall`` of the packages: a device's pip install does it), so no contender pays
for compiling modules. Needs
ACL: ``./docker/emulate.sh run trixie -- python3 benchmarks/start_time.py``. Under QEMU only
the ratios of one run mean anything.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import _write_json  # noqa: E402
CONTENDERS = ("bridge first", "bridge second", "bridge second unchecked", "bridge parsed only",
              "bridge first unprobed", "bridge first in turn", "bridge first uncached", "armnn", "base first",
              "base second")
#: what each bridge contender's caches must have done: (parsed-model cache, ACL's answers)
EXPECTED_CACHES = {"bridge first": ("cold", "cold"), "base first": ("cold", "cold"), "bridge second": ("warm", "warm"),
                   "base second": ("warm", "warm"),
                   "bridge second unchecked": ("warm", "warm"), "bridge parsed only": ("warm", "off"),
                   "bridge first unprobed": ("cold", "cold"), "bridge first in turn": ("cold", "cold"),
                   "bridge first uncached": ("off", "off")}
#: the contenders whose caches start empty (a new directory each round): none of theirs warm
COLD = tuple(c for c, caches in EXPECTED_CACHES.items() if "warm" not in caches)
#: (contender, the one it is paired with, the ratio's name, what the ratio says)
RATIOS = (("bridge second", "bridge second unchecked", "unchecked", "second start with the trust checks / without"),
          ("bridge first", "bridge first unprobed", "unprobed", "first start with the probes / without"),
          ("bridge first", "bridge first in turn", "in turn", "first start, ACL beside the pass / in turn"),
          ("bridge first", "bridge first uncached", "uncached", "first start with the caches / without"),
          ("bridge first", "base first", "base", "first start, this checkout / the base"),
          ("bridge second", "base second", "base", "second start, this checkout / the base"))
MODELS = ("face_detection_front", "face_landmark", "face_detection_full_range", "face_detection_back")


# ---------------------------------------------------------------------------- one start (child)
def read_as_it_is(path, max_bytes=0, *, alignment_in_bytes=1, private=False) -> memoryview:
    """A cache file's bytes as ``user_cache.read_trusted`` returns them, without its checks."""
    import numpy as np

    data = open(path, "rb").read()
    raw = np.empty(len(data) + alignment_in_bytes, np.uint8)
    skip = -raw.ctypes.data % alignment_in_bytes
    raw[skip:skip + len(data)] = np.frombuffer(data, np.uint8)
    return memoryview(raw[skip:skip + len(data)]).toreadonly()


def without_trust_checks() -> None:
    """Take the caches' trust checks (docs/robustness.md, "What the caches trust") out of this
    process, for the ``bridge second unchecked`` contender only: files read as they are, the
    decoders without the reader's quantization checks, the batch without comparing decisions
    with their calls. Never done by the library."""
    import acl_bridge.configure_batch as cb
    import acl_bridge.facts_cache as fc
    import acl_bridge.models.format.model_cache as mc

    fc.read_trusted = mc.read_trusted = read_as_it_is
    mc.check_quantization = lambda *args: None
    mc._queue_values = lambda *args: True
    mc._values_hold = lambda *args: True
    cb._not_this_call = lambda *args: ("", {})
    cb._expected_desc = lambda *args: b""
    cb._descs_not_the_calls = lambda *args: ""


def without_probes() -> None:
    """Answer every probe of this process "nothing written outside the elements, the same
    result" without running ACL, for the ``bridge first unprobed`` contender only: what the
    probes cost a first start. Never done by the library."""
    import acl_bridge.executor as ex

    ex.probe = lambda kind, params, descs: (tuple(0 for _ in descs), True)


def probes_in_turn() -> None:
    """A first start's probes asked in turn on the decision pass's thread and its functions made
    after the pass, as on a machine with one CPU (acl_bridge.question_thread), for the ``bridge
    first in turn`` contender only: what asking ACL beside the pass saves."""
    import acl_bridge.configure_cold as cc

    cc.cpus_available = lambda: 1


def child(contender: str, path: str, threads: int) -> Dict[str, object]:
    import numpy as np

    if contender == "bridge second unchecked":
        without_trust_checks()
    if contender == "bridge first unprobed":
        without_probes()
    if contender == "bridge first in turn":
        probes_in_turn()

    t0 = time.perf_counter()
    from acl_bridge import native

    if contender == "armnn":
        import warnings

        from acl_bridge import armnn

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pyarmnn's deprecation notice
            armnn.load()  # pyarmnn and libarmnn: Arm NN's import, as the shim is the bridge's
        from acl_bridge.models.oracles.armnn_tflite import ArmnnTfliteModel, thread_option_support
    else:
        from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    native.require_native()
    import_s = time.perf_counter() - t0
    native.set_num_threads(threads)
    armnn_threads = threads if threads > 0 else None
    if contender == "armnn" and armnn_threads is not None and thread_option_support() is not None:
        armnn_threads = None  # Arm NN 20.08: its CpuAcc runs on ACL's scheduler, just set (checked below)
    t1 = time.perf_counter()
    if contender == "armnn":
        try:
            m = ArmnnTfliteModel(path, number_of_threads=armnn_threads)
        except armnn.ArmnnError as e:  # this Arm NN does not run the model: no contender for it
            return {"refused": str(e)}
        shape, dtype = m._input_shape, m.input_dtype
    else:
        off = {"bridge parsed only": {"facts_cache": False},
               "bridge first uncached": {"model_cache": False, "facts_cache": False}}.get(contender, {})
        m = TfliteRunner(path, **off)
        shape, dtype = m.input_shape, m.input_dtype
    configure_s = time.perf_counter() - t1
    m.run(np.zeros(shape, dtype))
    first_s = time.perf_counter() - t1
    if threads > 0 and native.num_threads() != threads:
        raise RuntimeError(f"{contender}: ACL's scheduler runs {native.num_threads()} threads after the first "
                           f"result, expected {threads}: the timing would not be of {threads} thread(s)")
    out: Dict[str, object] = {"import_s": import_s, "configure_s": configure_s, "first_result_s": first_s,
                              "phases": phases_of(m, contender)}
    if contender != "armnn":
        out["caches"] = [m.model_cache.state if m.model_cache is not None else "none",
                         m.facts_cache.state if m.facts_cache is not None else "none"]
        out["functions"] = [m.functions_recalled, len(m.functions)]  # made from kept decisions / all
    return out


BASE: List[str] = []  # --base DIR: the other checkout's packages ("base first")


def _run_child(contender: str, path: str, threads: int, cache_dir: str) -> Dict[str, object]:
    env = dict(os.environ, ACL_NDARRAY_MODEL_CACHE=os.path.join(cache_dir, "models"),
               ACL_NDARRAY_FACTS_CACHE=os.path.join(cache_dir, "facts"))
    if contender.startswith("base "):
        env["PYTHONPATH"] = os.pathsep.join(BASE + [p for p in [os.environ.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", contender, path, str(threads)],
                       capture_output=True, text=True, env=env, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"{contender} on {path}: exit {r.returncode}: {r.stderr.strip()[-800:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def check_caches(contender: str, sample: Dict[str, object]) -> None:
    """The child's caches did what its contender means, else RuntimeError."""
    expected = EXPECTED_CACHES.get(contender)
    recalled, functions = sample.get("functions", (0, 0))  # type: ignore[misc]
    if contender in ("bridge second", "bridge second unchecked", "base second") and recalled != functions:
        raise RuntimeError(f"{contender}: {recalled} of {functions} functions made from kept decisions, "
                           f"expected all: the timing would not be of a second start")
    if expected is not None and tuple(sample["caches"]) != expected:  # type: ignore[arg-type]
        raise RuntimeError(f"{contender}: caches (parsed model, ACL's answers) {sample['caches']}, "
                           f"expected {list(expected)}: the timing would not be of that start")


def phases_of(m, contender: str) -> Dict[str, float]:
    """Where the start's configure went, in seconds: Arm NN's parse, optimize and load; the
    bridge's phases (``TfliteRunner.configure_profile``), ACL's own calls in the negotiation
    and the configure apart from the Python around them (the probe apart from the rest, and
    how much of ACL's work ran beside the decision pass: acl_bridge.question_thread)."""
    if contender == "armnn":
        return dict(getattr(m, "seconds", {}))
    out: Dict[str, float] = {}
    for p in m.configure_profile().phases:
        native = {n.category: n.seconds for n in p.native}
        out[p.phase] = out.get(p.phase, 0.0) + p.seconds
        if p.phase in ("negotiation", "configure"):
            probe = native.pop("probe", 0.0)
            out[f"{p.phase}: ACL"] = out.get(f"{p.phase}: ACL", 0.0) + sum(native.values())
            if p.phase == "configure":
                out["configure: probe"] = out.get("configure: probe", 0.0) + probe
                # ACL's seconds (probes, functions made) that ran beside the decision pass, not waited for
                out["configure: ACL beside"] = out.get("configure: ACL beside", 0.0) + p.beside_seconds
            out[f"{p.phase}: Python"] = out.get(f"{p.phase}: Python", 0.0) + p.python_seconds
    return out


# ---------------------------------------------------------------------------- rounds (parent)
def armnn_missing() -> Optional[str]:
    try:
        import pyarmnn  # noqa: F401
    except ImportError as e:
        return f"pyarmnn is not installed ({e})"
    return None


def compile_packages() -> None:
    """Byte-compile the packages the contenders import (quietly; what pip does on a device)."""
    import importlib.util

    for name in ("acl_bridge", "ndarray", "tflite", "flatbuffers", "numpy", "cffi", "pyarmnn"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            for where in spec.submodule_search_locations:
                compileall.compile_dir(where, quiet=2, workers=1)


def measure_model(name: str, rounds: int, threads: int, contenders: List[str]) -> Dict[str, object]:
    from acl_bridge.models.apps.fetch import model_path

    path = str(model_path(name))
    warm = tempfile.mkdtemp(prefix="start-time-warm-")
    check_caches("bridge first", _run_child("bridge first", path, threads, warm))  # fills both caches
    warm_base = None
    if "base second" in contenders:  # the base's own warm caches (its file formats may differ)
        warm_base = tempfile.mkdtemp(prefix="start-time-warm-base-")
        check_caches("base first", _run_child("base first", path, threads, warm_base))
    refused = None
    if "armnn" in contenders:  # a model this Arm NN refuses (20.08's parser and CpuAcc refuse some): the bridge alone
        refused = _run_child("armnn", path, threads, warm).get("refused")
        if refused is not None:
            contenders = [c for c in contenders if c != "armnn"]
    samples: Dict[str, List[Dict[str, object]]] = {c: [] for c in contenders}
    for k in range(rounds):
        order = contenders[k % len(contenders):] + contenders[:k % len(contenders)]
        for c in order:
            cache = (tempfile.mkdtemp(prefix="start-time-cold-") if c in COLD
                     else warm_base if c == "base second" else warm)
            samples[c].append(_run_child(c, path, threads, cache))
            check_caches(c, samples[c][-1])
    out: Dict[str, object] = {"model": name, "rounds": rounds, "threads": threads, "order": contenders}
    if refused is not None:
        out["armnn_refused"] = refused
    for c in contenders:
        out[c] = {f: statistics.median(s[f] for s in samples[c])  # type: ignore[misc]
                  for f in ("import_s", "configure_s", "first_result_s")}
        phases = [p for s in samples[c] for p in s["phases"]]  # type: ignore[attr-defined]
        out[c]["phases"] = {p: statistics.median(s["phases"].get(p, 0.0) for s in samples[c])  # type: ignore
                            for p in dict.fromkeys(phases)}
        out[c]["samples"] = samples[c]
    # paired ratios: what the trust checks, the probes and the caches cost; this checkout's first start / the base's
    for c, other, suffix, _ in RATIOS:
        if {c, other} <= set(contenders):
            for f in ("configure_s", "first_result_s"):
                ratios = sorted(a[f] / b[f] for a, b in zip(samples[c], samples[other]))  # type: ignore[operator]
                out[c][f"{f[:-2]}_ratio_{suffix}"] = {  # type: ignore[index]
                    "median": statistics.median(ratios), "min": ratios[0], "max": ratios[-1]}
    if "armnn" in contenders:
        for c in [c for c in contenders if c != "armnn"]:
            for f in ("configure_s", "first_result_s"):
                ratios = sorted(a[f] / b[f] for a, b in zip(samples[c], samples["armnn"]))  # type: ignore[operator]
                out[c][f"{f[:-2]}_ratio_armnn"] = {"median": statistics.median(ratios), "min": ratios[0],
                                                   "max": ratios[-1]}
    return out


def report(results: List[Dict[str, object]]) -> str:
    lines = ["| model | contender | import | configure | first result | configure / Arm NN | first result / Arm NN |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        for c in r["order"]:  # type: ignore[union-attr]
            m = r[c]  # type: ignore[index]
            ratio = ""
            if "configure_ratio_armnn" in m:
                a, b = m["configure_ratio_armnn"], m["first_result_ratio_armnn"]
                ratio = (f" {a['median']:.2f} ({a['min']:.2f}-{a['max']:.2f}) |"
                         f" {b['median']:.2f} ({b['min']:.2f}-{b['max']:.2f}) |")
            else:
                ratio = " | |"
            lines.append(f"| {r['model']} | {c} | {m['import_s']:.2f} s | {m['configure_s']:.2f} s |"
                         f" {m['first_result_s']:.2f} s |{ratio}")
        if "armnn_refused" in r:
            lines.append(f"| {r['model']} | armnn | refused: {str(r['armnn_refused'])[:160]} | | | | |")
    return "\n".join(lines)


def phase_report(results: List[Dict[str, object]]) -> str:
    """Per model and contender, the medians of where its configure went (:func:`phases_of`)."""
    lines = []
    for r in results:
        for c in r["order"]:  # type: ignore[union-attr]
            phases = r[c].get("phases") or {}  # type: ignore[index, union-attr]
            if phases:
                lines.append(f"{r['model']} {c}: " + ", ".join(f"{p} {s:.3f}" for p, s in phases.items()
                                                               if s >= 0.0005))
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, metavar=("CONTENDER", "PATH", "THREADS"), help=argparse.SUPPRESS)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--contenders", default=",".join(CONTENDERS),
                    help="which to run, comma-separated (default: all)")
    ap.add_argument("--base", help="a directory holding another checkout's acl_bridge and ndarray "
                                   "(contenders 'base first', 'base second')")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    if args.child:
        contender, path, threads = args.child
        print(json.dumps(child(contender, path, int(threads))))
        return 0
    contenders = [c for c in args.contenders.split(",") if c]
    if bool({"base first", "base second"} & set(contenders)) != bool(args.base):
        ap.error("contenders 'base first' / 'base second' and --base DIR go together")
    if args.base:
        BASE.append(os.path.abspath(args.base))
        compileall.compile_dir(BASE[0], quiet=2, workers=1)
    unknown = sorted(set(contenders) - set(CONTENDERS))
    if unknown:
        ap.error(f"--contenders names {unknown}, expected some of {list(CONTENDERS)}")
    why = armnn_missing() if "armnn" in contenders else None
    if why is not None:
        print(f"Arm NN skipped: {why}")
        contenders.remove("armnn")
    t0 = time.perf_counter()
    compile_packages()
    print(f"byte code compiled in {time.perf_counter() - t0:.1f} s")
    results = []
    for name in [m for m in args.models.split(",") if m]:
        results.append(measure_model(name, args.rounds, args.threads, contenders))
        print("\n".join(report(results[-1:]).splitlines()[2:]), flush=True)
    print(report(results))
    print("where each configure went (medians, seconds):")
    print(phase_report(results))
    for r in results:
        for c, _, suffix, what in RATIOS:
            conf = r.get(c, {}).get(f"configure_ratio_{suffix}")  # type: ignore[union-attr]
            if conf:
                first = r[c][f"first_result_ratio_{suffix}"]  # type: ignore[index]
                print(f"{r['model']}: {what}: configure {conf['median']:.3f} ({conf['min']:.3f}-{conf['max']:.3f}), "
                      f"first result {first['median']:.3f} ({first['min']:.3f}-{first['max']:.3f})")
    return _write_json(args, results)


if __name__ == "__main__":
    sys.exit(main())
