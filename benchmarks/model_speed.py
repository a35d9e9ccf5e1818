"""The model section of the benchmark: whole TFLite models on the bridge's runner (ACL NEON),
Arm NN's TfLite parser on CpuAcc and TFLite's interpreter, in one process.

    python3 benchmarks/bench.py --sections models [--models a,b] [--threads 1,0] [--rounds 9] [--cl] [--json FILE]

Per thread setting (``--threads``: 1 = one thread each; 0 = each runtime's default: ACL's
scheduler with one thread per core it sees, Arm NN's CpuAcc without the ``NumberOfThreads``
option, so on that same scheduler, TFLite's interpreter with as many threads as ACL's
default, since its own default is one) and per model (default: every model in the fetch
cache, :data:`acl_bridge.models.apps.fetch.MODELS`):

* each contender is started in turn: ``configure`` is the seconds from the file to a runtime
  ready to run (the bridge: read, plan, negotiate, configure; Arm NN: parse, optimize, load;
  the interpreter: build, allocate tensors); ``first result`` adds the first inference (where
  ACL prepares weights). A contender that refuses the model is reported as ``refused: <its
  message>`` (the library's own error; Arm NN's and the interpreter's exception text) and the
  others carry on;
* then ``--rounds`` rounds: each runs every started contender once on the same seeded input,
  in an order rotated by one each round (so no contender always runs first, after the
  same neighbour). Per contender the median time per inference (the user-level call: input in,
  outputs out); the ratio bridge / other is the median over rounds of the two times of the
  same round, with the spread of those ratios (min-max, quartiles in the JSON);
* what each runtime says about its threads: ACL's scheduler (``acl_bridge.native.num_threads``,
  which Arm NN's CpuAcc shares when one libarm_compute is mapped, as the maps show), the
  ``NumberOfThreads`` option given to Arm NN (or why it cannot be given), the interpreter's
  ``num_threads`` and the threads each start added to the process (``/proc/self/task``).

With ``--cl`` the bridge on ACL's OpenCL backend is one more contender (``cl``: the same plan
through ``backend="cl"``, its results in the NdArrays when ``run()`` returns; needs an OpenCL
device, ``ACL_NDARRAY_CL_LAYER=1`` for a software one); bridge / cl is then NEON over CL, paired
by round. Under QEMU with PoCL that ratio says how the two backends compare on the emulated CPU,
nothing about a Mali GPU.

Also ``keyword_spotting_alexa`` (int8) against its float32 twin on each runtime (the bridge's
ratio is the goal, Arm NN's and the interpreter's are for reference), all in the same
rotating rounds, the ratio int8 / float32 per runtime paired by round: the int8 input is
seeded, the twin gets the same values dequantized with the int8 input's scale and zero point.

Under QEMU (20-30x slower than a device) keep ``--rounds`` small; only ratios within one run
mean anything. Inputs are seeded noise in the model's input dtype (float: uniform in -1..1;
integer: uniform over the type's range). The interpreter is skipped where ai-edge-litert is
2.x (the trixie image): its default kernels crash under qemu-user there and its reference
kernels (:mod:`acl_bridge.models.oracles.tflite_oracle`) are no speed contender.

benchmarks/model_fallback.py runs these contenders and rounds per model with, beside them, the
operators on ACL and on the CPU fallback and the fallback's share of an inference (issue 36).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import acl_bridge  # noqa: F401  (the installed package, with its native module)
except ImportError:  # a source tree without installing: use the tree
    sys.path.insert(0, os.path.dirname(HERE))

from ndarray.errors import AclNdarrayError  # noqa: E402

CONTENDERS = ("bridge", "armnn", "tflite")
TITLES = {"bridge": "bridge (ACL NEON)", "armnn": "Arm NN CpuAcc", "tflite": "TFLite interpreter", "cl": "bridge (ACL CL)"}
INT8_PAIR = ("keyword_spotting_alexa", "keyword_spotting_alexa_float32")


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Started:
    """A contender ready to run: ``run()`` is one inference on the section's input."""

    name: str
    run: Callable[[], object]
    configure_s: float
    first_result_s: float
    threads: Dict[str, object]
    close: Callable[[], None] = lambda: None


@dataclass(frozen=True)
class Refused:
    """A contender that did not start: ``message`` is its error's own text."""

    name: str
    message: str
    error: str  # the exception's type name
    expected: bool = True  # the library's own error (or Arm NN's / the interpreter's refusal)

    def __str__(self) -> str:
        return f"{'refused' if self.expected else 'failed'}: {self.message}"


@dataclass(frozen=True)
class RatioSummary:
    """Paired per-round ratios a / b: their median and spread."""

    median: float
    minimum: float
    maximum: float
    q1: float
    q3: float
    rounds: int

    def as_dict(self) -> Dict[str, float]:
        return dict(median=self.median, min=self.minimum, max=self.maximum, q1=self.q1, q3=self.q3,
                    rounds=self.rounds)

    def __str__(self) -> str:
        return f"{self.median:.2f} ({self.minimum:.2f}-{self.maximum:.2f})"


def paired_ratios(samples: Dict[str, Sequence[float]], name: str, base: str) -> List[float]:
    """name's time / base's time, round by round (both lists hold one time per round)."""
    a, b = samples[name], samples[base]
    if len(a) != len(b):
        raise ValueError(f"{name} has {len(a)} rounds and {base} {len(b)}: paired ratios need the same rounds")
    return [x / y for x, y in zip(a, b)]


def summarize(ratios: Sequence[float]) -> RatioSummary:
    """Median, min, max and quartiles (inclusive: within min-max) of per-round ratios."""
    if not ratios:
        raise ValueError("no rounds to summarize")
    r = sorted(ratios)
    q1, _, q3 = statistics.quantiles(r, n=4, method="inclusive") if len(r) > 1 else (r[0], r[0], r[0])
    return RatioSummary(statistics.median(r), r[0], r[-1], q1, q3, len(r))


def rotating_rounds(runs: Dict[str, Callable[[], object]], rounds: int,
                    clock: Callable[[], int] = time.perf_counter_ns) -> Tuple[Dict[str, List[float]], List[List[str]]]:
    """({contender: [ns per round]}, the order of each round). Each round runs every
    contender once; round k starts with the contender k places down the list."""
    names = list(runs)
    samples: Dict[str, List[float]] = {n: [] for n in names}
    orders: List[List[str]] = []
    for k in range(rounds):
        order = names[k % len(names):] + names[:k % len(names)] if names else []
        for n in order:
            t0 = clock()
            runs[n]()
            samples[n].append(float(clock() - t0))
        orders.append(order)
    return samples, orders


def refusal(name: str, e: BaseException) -> Refused:
    """The contender's error as a refusal: the library's own types (Arm NN's errors are
    ArmnnError, also the library's) and the interpreter's ValueError / RuntimeError (how it
    refuses a file) are expected; anything else is reported as failed, still carried on."""
    expected = isinstance(e, AclNdarrayError) or (name == "tflite" and isinstance(e, (ValueError, RuntimeError)))
    return Refused(name, " ".join(str(e).split()), type(e).__name__, expected)


# ---------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class ModelInput:
    shape: Tuple[int, ...]
    dtype: str
    scale: Optional[float] = None  # the input's quantization (integer inputs)
    zero_point: Optional[int] = None


def model_input(path) -> ModelInput:
    from acl_bridge.models.format.tflite_reader import read_model

    spec = read_model(path)
    t = spec.tensors[spec.inputs[0]]
    q = t.quantization
    return ModelInput(tuple(int(d) for d in t.shape), str(np.dtype(t.dtype)),
                      None if q is None else float(q.scale[0]), None if q is None else int(q.zero_point[0]))


def seeded_input(inp: ModelInput, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(inp.dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=inp.shape, endpoint=True, dtype=dt)
    return rng.uniform(-1, 1, inp.shape).astype(dt)


def dequantized(x: np.ndarray, inp: ModelInput) -> np.ndarray:
    """An integer input's real values, as float32 (for a float twin of the same network)."""
    if inp.scale is None or inp.zero_point is None:
        raise ValueError(f"the input ({inp.dtype}) has no quantization to dequantize with")
    return ((x.astype(np.float32) - inp.zero_point) * np.float32(inp.scale)).astype(np.float32)


# ---------------------------------------------------------------------------- contenders
def process_threads() -> Optional[int]:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def acl_libraries() -> List[str]:
    """Paths of libarm_compute* mapped into this process (one each: Arm NN and the bridge
    share ACL, and so its scheduler and thread setting)."""
    try:
        with open("/proc/self/maps") as f:
            return sorted({line.split()[-1] for line in f if "libarm_compute" in line})
    except OSError:
        return []


def _timed_start(name: str, build: Callable[[], Tuple[Callable[[], object], Callable[[], None]]],
                 threads: Callable[[], Dict[str, object]]) -> Started:
    before = process_threads()
    t0 = time.perf_counter()
    run, close = build()
    configure_s = time.perf_counter() - t0
    run()
    first_s = time.perf_counter() - t0
    info = threads()
    after = process_threads()
    if before is not None and after is not None:
        info["process_threads_added"] = after - before
    return Started(name, run, configure_s, first_s, info, close)


def acl_threads(threads: int) -> Dict[str, object]:
    """Set ACL's scheduler (0: its default) and say what it reports."""
    from acl_bridge import native

    native.set_num_threads(threads)
    return {"acl_scheduler": native.num_threads(), "process_threads": process_threads()}


def start_bridge(path, x: np.ndarray, threads: int, backend: str = "neon") -> Started:
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    def build():
        r = TfliteRunner(path, backend=backend)
        return (lambda: r.run(x)), r.close

    def said():
        if backend == "cl":  # the OpenCL device's own threads, not ACL's scheduler
            from acl_bridge import opencl

            return {"device": next(str(d) for d in opencl.cl_devices() if d.selected)}
        n = native.num_threads()
        return {"acl_scheduler": n, "asked": threads, "as_asked": n == threads if threads > 0 else None}

    return _timed_start("bridge" if backend == "neon" else backend, build, said)


def start_cl(path, x: np.ndarray, threads: int) -> Started:
    return start_bridge(path, x, threads, backend="cl")


def start_armnn(path, x: np.ndarray, threads: int) -> Started:
    from acl_bridge import native
    from acl_bridge.models.oracles.armnn_tflite import ArmnnTfliteModel, thread_option_support

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyarmnn's deprecation notice, if this imports it
        why_not = thread_option_support()
    option = threads if threads > 0 and why_not is None else None

    def build():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pyarmnn's deprecation notice
            m = ArmnnTfliteModel(path, number_of_threads=option)
        return (lambda: m.run(x)), lambda: None

    def said():
        n = native.num_threads()
        return {"number_of_threads_option": option if option is not None else (
                    why_not if threads > 0 else "not set (ACL's scheduler as the process set it)"),
                "acl_scheduler_after_load": n, "as_asked": n == threads if threads > 0 else None,
                "acl_libraries": acl_libraries()}

    return _timed_start("armnn", build, said)


def tflite_available() -> Optional[str]:
    """None where the interpreter is a speed contender here, else why not."""
    try:
        import ai_edge_litert
    except ImportError as e:
        return f"ai-edge-litert is not installed ({e})"
    version = getattr(ai_edge_litert, "__version__", "?")
    if not version.startswith(("0.", "1.")):
        return (f"ai-edge-litert {version}: its default kernels crash under qemu-user 7.2 and its reference "
                f"kernels are no speed contender (acl_bridge/models/oracles/tflite_oracle.py)")
    return None


def start_tflite(path, x: np.ndarray, threads: int) -> Started:
    from acl_bridge.models.oracles.tflite_oracle import interpreter

    why_not = tflite_available()
    if why_not is not None:
        raise ImportError(why_not)
    what: List[str] = []

    def build():
        it, description = interpreter(path, num_threads=threads)
        what.append(description)
        inp = it.get_input_details()[0]["index"]
        outs = [d["index"] for d in it.get_output_details()]

        def run():
            it.set_tensor(inp, x)
            it.invoke()
            return [it.get_tensor(i) for i in outs]
        return run, lambda: None

    return _timed_start("tflite", build, lambda: {"num_threads": threads, "interpreter": what[0]})


def start_all(starters: Dict[str, Callable[[], Started]]) -> Dict[str, object]:
    """{name: Started or Refused}: each contender started in turn, its refusal carried on."""
    out: Dict[str, object] = {}
    for name, start in starters.items():
        try:
            out[name] = start()
        except ImportError as e:  # the runtime is not here (the interpreter's package)
            out[name] = Refused(name, " ".join(str(e).split()), type(e).__name__)
        except Exception as e:  # noqa: BLE001  (reported, never hidden: see refusal())
            out[name] = refusal(name, e)
    return out


# ---------------------------------------------------------------------------- measuring
@dataclass
class ModelResult:
    model: str
    threads: int
    input: Optional[ModelInput]
    contenders: Dict[str, object] = field(default_factory=dict)  # Started or Refused
    samples_ns: Dict[str, List[float]] = field(default_factory=dict)
    ratios: Dict[str, RatioSummary] = field(default_factory=dict)  # bridge / other
    note: str = ""

    def as_dict(self) -> Dict[str, object]:
        cont: Dict[str, object] = {}
        for name, c in self.contenders.items():
            if isinstance(c, Refused):
                cont[name] = {"refused" if c.expected else "failed": c.message, "error": c.error}
            else:
                assert isinstance(c, Started)
                s = self.samples_ns.get(name, [])
                cont[name] = {"configure_s": c.configure_s, "first_result_s": c.first_result_s,
                              "per_inference_ms": statistics.median(s) / 1e6 if s else None,
                              "rounds_ms": [v / 1e6 for v in s], "threads": c.threads}
        return {"model": self.model, "threads": self.threads, "note": self.note,
                "input": None if self.input is None else dict(shape=list(self.input.shape), dtype=self.input.dtype),
                "contenders": cont, "bridge_over": {k: v.as_dict() for k, v in self.ratios.items()}}


def measure(model: str, threads: int, inp: Optional[ModelInput], starters: Dict[str, Callable[[], Started]],
            rounds: int) -> ModelResult:
    """Start every contender, then ``rounds`` rotating rounds of those that started."""
    result = ModelResult(model, threads, inp)
    result.contenders = start_all(starters)
    running = {n: c for n, c in result.contenders.items() if isinstance(c, Started)}
    try:
        if running and rounds > 0:
            result.samples_ns, _ = rotating_rounds({n: c.run for n, c in running.items()}, rounds)
            if "bridge" in running:
                for other in running:
                    if other != "bridge":
                        result.ratios[other] = summarize(paired_ratios(result.samples_ns, "bridge", other))
    finally:
        for c in running.values():
            c.close()
    return result


def measure_model(model: str, threads: int, interpreter_threads: int, rounds: int, cl: bool = False) -> ModelResult:
    """One model at one thread setting, every contender (and the bridge on CL with ``cl``); the
    interpreter at ``interpreter_threads`` (its own default is one thread: at the default
    setting it gets ACL's default count)."""
    from acl_bridge.models.apps import fetch

    try:
        path = fetch.model_path(model)
        inp = model_input(path)
    except Exception as e:  # noqa: BLE001  (not in the cache, or unreadable: every contender is out)
        r = ModelResult(model, threads, None)
        r.contenders = {n: refusal(n, e) for n in CONTENDERS + (("cl",) if cl else ())}
        r.note = f"{type(e).__name__}: {' '.join(str(e).split())}"
        return r
    x = seeded_input(inp)
    starters = {"bridge": _bind(start_bridge, path, x, threads), "armnn": _bind(start_armnn, path, x, threads),
                "tflite": _bind(start_tflite, path, x, interpreter_threads)}
    if cl:
        starters["cl"] = _bind(start_cl, path, x, threads)
    return measure(model, threads, inp, starters, rounds)


def _bind(start, path, x, threads) -> Callable[[], Started]:
    return lambda: start(path, x, threads)


PAIR_RUNTIMES = CONTENDERS


def measure_pair(threads: int, interpreter_threads: int, rounds: int,
                 pair: Tuple[str, str] = INT8_PAIR) -> Dict[str, object]:
    """An int8 model against its float32 twin, on the bridge (the goal) and, for reference,
    on Arm NN and the interpreter: all of them in the same rotating rounds; per runtime the
    median over rounds of int8 time / float32 time. The twin's input is the int8 input
    dequantized."""
    from acl_bridge.models.apps import fetch

    int8, twin = pair
    out: Dict[str, object] = {"threads": threads, "int8": int8, "float32": twin}
    try:
        paths = {int8: fetch.model_path(int8), twin: fetch.model_path(twin)}
        inp = model_input(paths[int8])
    except Exception as e:  # noqa: BLE001  (not in the cache, or unreadable)
        out["note"] = " ".join(str(e).split())
        return out
    x8 = seeded_input(inp)
    inputs = {int8: x8, twin: dequantized(x8, inp)}
    starts = {"bridge": (start_bridge, threads), "armnn": (start_armnn, threads),
              "tflite": (start_tflite, interpreter_threads)}
    started = start_all({f"{rt}/{m}": _bind(starts[rt][0], paths[m], inputs[m], starts[rt][1])
                         for rt in PAIR_RUNTIMES for m in pair})
    running = {n: c for n, c in started.items() if isinstance(c, Started)}
    try:
        samples = rotating_rounds({n: c.run for n, c in running.items()}, rounds)[0] if rounds > 0 else {}
    finally:
        for c in running.values():
            c.close()
    for rt in PAIR_RUNTIMES:
        row: Dict[str, object] = {}
        for m in pair:
            c = started[f"{rt}/{m}"]
            row[m] = ({"refused" if c.expected else "failed": c.message} if isinstance(c, Refused) else
                      {"configure_s": c.configure_s, "first_result_s": c.first_result_s,
                       "per_inference_ms": statistics.median(samples[f"{rt}/{m}"]) / 1e6 if samples else None})
        if all(f"{rt}/{m}" in running for m in pair) and samples:
            row["int8_over_float32"] = summarize(paired_ratios(samples, f"{rt}/{int8}", f"{rt}/{twin}")).as_dict()
        out[rt] = row
    return out


# ---------------------------------------------------------------------------- output
def _ms(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.2f} ms" if v < 100 else f"{v:.0f} ms"


TABLE_HEAD = (f"{'model':<32} {'contender':<20} {'configure':>10} {'first result':>13} {'per inference':>14}  "
              f"bridge/it (min-max)")


def render_rows(r: ModelResult, width: int = 120) -> List[str]:
    """A model's lines: per contender configure, first result, median per inference and the
    paired ratio bridge / that contender; a refusal with its message (cut at ``width``)."""
    lines = []
    for i, (name, c) in enumerate(r.contenders.items()):
        label = r.model if i == 0 else ""
        if isinstance(c, Refused):
            text, room = str(c), max(width - 54, 20)
            cut = text if len(text) <= room else text[:room - 3] + "..."
            lines.append(f"{label:<32} {TITLES.get(name, name):<20} {cut}")
            continue
        assert isinstance(c, Started)
        s = r.samples_ns.get(name, [])
        ratio = str(r.ratios[name]) if name in r.ratios else ""
        lines.append(f"{label:<32} {TITLES.get(name, name):<20} {c.configure_s:>8.3f} s {c.first_result_s:>11.3f} s "
                     f"{_ms(statistics.median(s) / 1e6 if s else None):>14}  {ratio}".rstrip())
    return lines


def threads_title(threads: int) -> str:
    return f"-- threads {threads}{' (each runtime default)' if threads == 0 else ''}"


def render_table(results: Sequence[ModelResult], width: int = 120) -> str:
    """One block per thread setting (1 before 0): a line per model and contender."""
    lines: List[str] = []
    for threads in sorted({r.threads for r in results}, reverse=True):
        lines += [threads_title(threads), TABLE_HEAD]
        for r in results:
            if r.threads == threads:
                lines += render_rows(r, width)
    return "\n".join(lines)


def render_threads(results: Sequence[ModelResult]) -> str:
    """What each runtime said about its threads, per setting: as the first model that
    started it said, and every model where ACL's scheduler was not at the setting asked for."""
    lines = []
    for threads in sorted({r.threads for r in results}, reverse=True):
        said: Dict[str, str] = {}
        off: Dict[str, List[str]] = {}
        for r in results:
            if r.threads != threads:
                continue
            for name, c in r.contenders.items():
                if not isinstance(c, Started):
                    continue
                said.setdefault(name, ", ".join(f"{k} {v}" for k, v in c.threads.items() if k != "as_asked"))
                if c.threads.get("as_asked") is False:
                    off.setdefault(name, []).append(r.model)
        for name, text in said.items():
            bad = f"; NOT at {threads} thread(s) on {', '.join(off[name])}" if name in off else ""
            lines.append(f"threads {threads}, {TITLES.get(name, name)}: {text}{bad}")
    return "\n".join(lines)


def render_pair(p: Dict[str, object]) -> List[str]:
    """Lines of one measure_pair result: per runtime, each model's time (or refusal, cut)
    and the paired int8 / float32 ratio."""
    if "note" in p:
        return [f"threads {p['threads']}: {p['int8']} / {p['float32']} not measured: {p['note']}"]
    lines = []
    for rt in PAIR_RUNTIMES:
        row = p[rt]
        assert isinstance(row, dict)
        parts = []
        for m in (p["int8"], p["float32"]):
            c = row[m]
            verdict = "refused" if "refused" in c else "failed" if "failed" in c else ""
            text = (f"{verdict}: {c[verdict]}" if verdict else
                    f"{_ms(c['per_inference_ms'])} (configure {c['configure_s']:.2f} s)")
            parts.append(f"{m} {text if len(text) <= 70 else text[:67] + '...'}")
        ratio = row.get("int8_over_float32")
        tail = ("" if not isinstance(ratio, dict) else
                f"; int8 / float32 {ratio['median']:.2f} ({ratio['min']:.2f}-{ratio['max']:.2f})")
        lines.append(f"threads {p['threads']}, {TITLES[rt]}: " + "; ".join(parts) + tail)
    return lines


# ---------------------------------------------------------------------------- the section
def default_models() -> List[str]:
    from acl_bridge.models.apps import fetch

    return list(fetch.MODELS)


def section_models(args, results: Dict[str, object]) -> None:
    """bench.py's ``models`` section (args: models, threads, rounds)."""
    native_ok, _ = _native()
    models = args.models.split(",") if args.models else default_models()
    thread_settings = [int(t) for t in str(args.threads).split(",")]
    rows: List[ModelResult] = []
    pairs: List[Dict[str, object]] = []
    settings = []
    print(f"\n== models: {', '.join(TITLES.values())}; one process; configure = file to ready, first result = "
          f"configure + first inference; {args.rounds} rounds in rotating order; ratios: median of the rounds' "
          f"paired ratios (min-max)", flush=True)
    for threads in thread_settings:
        setting: Dict[str, object] = {"threads": threads}
        if native_ok:
            setting.update(acl_threads(threads))
        else:
            setting["acl_scheduler"] = "none: no native ACL layer"
        interp = threads if threads > 0 else int(setting["acl_scheduler"]) if native_ok else (os.cpu_count() or 1)
        settings.append(setting)
        print(f"{threads_title(threads)}: ACL's scheduler says {setting['acl_scheduler']}\n{TABLE_HEAD}", flush=True)
        for model in models:
            r = measure_model(model, threads, interp, args.rounds, cl=getattr(args, "cl", False))
            rows.append(r)
            print("\n".join(render_rows(r)), flush=True)
        if INT8_PAIR[0] in models:
            pairs.append(measure_pair(threads, interp, args.rounds))
    if native_ok:
        acl_threads(1)  # as bench.py's other sections expect
    print(render_threads(rows))
    print(f"int8 / float32, {INT8_PAIR[0]} and its twin (paired rounds, every runtime's pair together):")
    print("\n".join(line for p in pairs for line in render_pair(p)) or "not measured (not in --models)")
    refusals = [(r, n, c) for r in rows for n, c in r.contenders.items() if isinstance(c, Refused)]
    if refusals:
        print("refusals, in full:")
        seen = set()
        for r, n, c in refusals:
            if (n, c.message) not in seen:
                seen.add((n, c.message))
                print(f"  {r.model} ({TITLES.get(n, n)}, threads {r.threads}): {c}")
    results["models"] = dict(rounds=args.rounds, settings=settings, models=[r.as_dict() for r in rows],
                             int8_vs_float32=pairs)


def _native() -> Tuple[bool, str]:
    try:
        from acl_bridge import native

        return native.native_available()
    except ImportError as e:
        return False, str(e)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", default="", help="comma-separated model names (default: every model in the cache)")
    p.add_argument("--threads", default="1,0", help="thread settings: 1 = one thread each, 0 = each runtime's default")
    p.add_argument("--rounds", type=int, default=9, help="rounds of the models section (few under emulation)")
    p.add_argument("--cl", action="store_true",
                   help="models section: also the bridge on ACL's CL backend (an OpenCL device; ACL_NDARRAY_CL_LAYER=1 "
                        "for a software one)")
