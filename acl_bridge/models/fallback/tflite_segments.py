"""Fallback segments on TFLite's own interpreter, where it is installed and faster.

A fallback segment (consecutive operators the partition gives the fallback) is cut from the
source file into a small model of its own (:func:`cut_segment`: exactly those operators, their
options, quantization and constants, the tensors they read from outside made its inputs and
those read after it or by the graph its outputs) and loaded once in TFLite's interpreter
(ai-edge-litert, one thread; int8 segments on its optimized builtin kernels without the
XNNPACK delegate, bit for bit with its reference kernels; float32 ones with it). The
interpreter's input and output tensors are bound once as numpy views; a run copies the inputs
from the bridge's buffers (the elements only) into them, calls the native invoke, and copies
the outputs back; :attr:`FallbackSegment.copied_bytes_per_run` counts both. Where the bridge's
buffer is the interpreter's tensor itself (:meth:`SegmentBinder.memory`, asked by the runners
before they allocate: :mod:`..runtime.boundary_memory`) nothing is copied. Without
ai-edge-litert, or where it refuses the cut model, the segment runs on the numpy kernels
(:func:`.registry.prepare`) and the segment's :class:`SegmentEngine` says why.

``engine``: ``"numpy"`` (the kernels), ``"tflite"`` (the interpreter wherever it loads),
``"tflite-default"`` (the same with XNNPACK on quantized segments too: 2-7x faster there, not
bit for bit with the reference kernels), ``"auto"`` (``"tflite"`` for segments holding an
operator of :data:`HEAVY`, where numpy's passes over memory cost more than the interpreter's
fixed cost a call: measured by ``benchmarks/fallback_speed.py``, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple, Union

import numpy as np

from ndarray.errors import UnsupportedOptionError

from ..format.tflite_reader import ModelSpec, OperatorSpec
from .registry import prepare

ENGINES = ("auto", "numpy", "tflite", "tflite-default")
# what the bridge asks of memory it hands to ACL (acl_bridge.executor's allocations)
MEMORY_ALIGNMENT_IN_BYTES = 64

# (opcode, dtype of its first input) where the segment on the interpreter (its fixed cost a
# call included: 2-3 us until the tensors were bound as views, 0.2-0.5 us since) took less time
# than the numpy kernel, on every shape measured (host, paired rounds: ``benchmarks/fallback_speed.py
# --opcodes all --synthetic``, docs/performance.md); not where they tied or numpy won: float32
# CONV_2D (BLAS: 1.1x on the large one), int8 ADD, MEAN and the int8 pools (TFLite's builtin
# int8 kernels without XNNPACK are as slow or slower), the elementwise and data-movement
# operators (numpy makes one pass where the segment makes three: its copies in and out), and
# since stop 48 the index maps of MIRROR_PAD, TILE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and
# RESIZE_NEAREST_NEIGHBOR, BATCH_MATMUL's one product and LRN's band product (0.15-0.9x TFLite's
# own time). float32 FULLY_CONNECTED, LOGISTIC, ELU and MEAN joined when the fixed cost fell
# (1.7-10x, 9x, 4.8x, 2.7-3.6x)
_F, _Q = ("float32",), ("int8", "uint8")
HEAVY: Dict[str, Tuple[str, ...]] = {
    "CONV_2D": _Q, "DEPTHWISE_CONV_2D": _F + _Q, "FULLY_CONNECTED": _F + _Q, "TRANSPOSE_CONV": _F + _Q, "CONV_3D": _F,
    "SOFTMAX": _F + _Q, "LOG_SOFTMAX": _F, "AVERAGE_POOL_2D": _F, "MAX_POOL_2D": _F,
    "L2_POOL_2D": _F, "L2_NORMALIZATION": _F, "RESIZE_BILINEAR": _F,
    "GELU": _F, "HARD_SWISH": _F, "PRELU": _F, "QUANTIZE": _F, "LOGISTIC": _F, "ELU": _F, "MEAN": _F,
}


def heavy(op: OperatorSpec, model: ModelSpec) -> bool:
    """Whether ``op`` is one of :data:`HEAVY` (its opcode with its first input's dtype)."""
    dtypes = HEAVY.get(op.opcode, ())
    return bool(dtypes) and op.inputs[0] >= 0 and str(model.tensors[op.inputs[0]].dtype) in dtypes


# The kernels a cut segment runs on: with a quantized tensor (int8, uint8, int16), TFLite's
# optimized builtin kernels without the default XNNPACK delegate, bit for bit with its reference
# kernels (and the numpy kernels; XNNPACK's int8 convolutions round some outputs 1 step apart, 3-6x
# faster); float32 segments with the default delegate, as TFLite runs the whole model
EXACT, DEFAULT = "BUILTIN_WITHOUT_DEFAULT_DELEGATES", "AUTO"
_QUANTIZED = (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16))

# operators a cut segment cannot hold (other subgraphs, resource variables)
_NOT_CUT = frozenset({"WHILE", "IF", "CALL_ONCE", "CALL", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE",
                      "STABLEHLO_COMPOSITE"})


def check_engine(engine: object) -> str:
    """``engine`` if it is one of :data:`ENGINES`; refused naming the choices."""
    if engine not in ENGINES:
        raise UnsupportedOptionError(f"fallback_engine is {engine!r}, expected one of {list(ENGINES)}")
    return engine  # type: ignore[return-value]


class SegmentRefused(Exception):
    """The sub-interpreter cannot run this segment (the message says why)."""


def _litert():
    """ai-edge-litert's interpreter module and schema, or SegmentRefused saying why not."""
    try:
        import ai_edge_litert
        from ai_edge_litert import interpreter as litert
        from ai_edge_litert import schema_py_generated as schema
    except ImportError as e:
        raise SegmentRefused(f"ai-edge-litert is not installed ({e})") from None
    version = getattr(ai_edge_litert, "__version__", "?")
    if not version.startswith(("0.", "1.")):
        from ...emulation import emulated

        if emulated():  # its 2.x builds crash loading models under qemu-user (oracles.tflite_oracle)
            raise SegmentRefused(f"ai-edge-litert {version} crashes loading models under QEMU emulation")
    return litert, schema


@dataclass(frozen=True)
class CutSegment:
    """A segment as a model of its own: the file's bytes, the source model's tensor indices
    of its inputs and outputs in the cut model's order, and the interpreter's op resolver for it
    (:data:`EXACT` where a tensor is quantized, else :data:`DEFAULT`)."""

    data: bytes
    inputs: Tuple[int, ...]
    outputs: Tuple[int, ...]
    resolver: str = EXACT


def _dtype(schema, code: int):
    names = {v: k for k, v in vars(schema.TensorType).items() if not k.startswith("_")}
    try:
        return np.dtype(names[code].lower())
    except (KeyError, TypeError):
        return None


def cut_segment(source, model: ModelSpec, operators: Sequence[OperatorSpec], read_after: Set[int]) -> CutSegment:
    """The ``operators`` (the plan's) of ``source`` (the file's schema object, ``ModelT``) as a
    model of their own (:class:`CutSegment`); ``read_after``: tensors read outside the
    segment (its outputs among them are the cut model's). Refused (SegmentRefused) where the
    file's operators are not the plan's (indices, tensors), a stateful or control-flow
    operator, or a constant the plan folded of another type than the file's tensor."""
    _, schema = _litert()
    import copy

    sub = source.subgraphs[0]
    ops = []
    for spec in operators:
        i = spec.index
        if spec.opcode in _NOT_CUT:
            raise SegmentRefused(f"#{i} {spec.opcode} uses another subgraph or a resource variable")
        # MediaPipe's operators run in the interpreter only through XNNPACK, whose MaxPoolingWithArgmax2D
        # writes its indices as int32 bits into the float32 index tensor the fallback's kernel fills
        if spec.opcode.startswith("CUSTOM:"):
            raise SegmentRefused(f"#{i} {spec.opcode} is a custom operator (the fallback's kernel is its definition)")
        if i >= len(sub.operators) or tuple(sub.operators[i].inputs if sub.operators[i].inputs is not None else ()) \
                != spec.inputs or tuple(sub.operators[i].outputs if sub.operators[i].outputs is not None else ()) \
                != spec.outputs:
            raise SegmentRefused(f"the file's operator #{i} is not the plan's {spec.opcode}")
        ops.append((sub.operators[i], spec))
    written = [o for _, spec in ops for o in spec.outputs]
    inside = set(written)
    used: List[int] = []
    for op, spec in ops:
        for t in list(spec.inputs) + list(op.intermediates or []) + list(spec.outputs):
            if t >= 0 and t not in used:
                used.append(t)
    new = {t: k for k, t in enumerate(used)}
    buffers = [schema.BufferT()]  # buffer 0: the empty one every non-constant tensor names
    tensors = []
    for t in used:
        ft = copy.copy(sub.tensors[t])
        if ft.isVariable:
            raise SegmentRefused(f"tensor #{t} {model.tensors[t].name!r} is a variable")
        spec_t = model.tensors[t]
        ft.buffer = 0
        if spec_t.is_constant and t not in inside:
            if _dtype(schema, ft.type) != spec_t.data.dtype:
                raise SegmentRefused(f"tensor #{t}'s constant is {spec_t.data.dtype}, the file's tensor "
                                     f"{_dtype(schema, ft.type)}")
            b = schema.BufferT()  # the plan's value: the file's, densified or folded where the plan did
            b.data = np.ascontiguousarray(spec_t.data).reshape(-1).view(np.uint8)
            ft.sparsity = None
            ft.buffer = len(buffers)
            buffers.append(b)
        tensors.append(ft)
    inputs = tuple(t for t in used if t not in inside and not model.tensors[t].is_constant)
    outputs = tuple(t for t in dict.fromkeys(written) if t in read_after)
    if not outputs:
        raise SegmentRefused("nothing it writes is read after it")
    cut_ops = []
    for op, _ in ops:
        c = copy.copy(op)
        c.inputs = [new[t] if t >= 0 else -1 for t in op.inputs]
        c.outputs = [new[t] for t in op.outputs]
        c.intermediates = [new[t] for t in op.intermediates] if op.intermediates is not None else None
        c.mutatingVariableInputs = None
        cut_ops.append(c)
    g = schema.SubGraphT()
    g.tensors, g.operators = tensors, cut_ops
    g.inputs, g.outputs = [new[t] for t in inputs], [new[t] for t in outputs]
    g.name = "fallback segment"
    m = schema.ModelT()
    m.version, m.description = 3, "acl_bridge fallback segment"
    m.operatorCodes, m.buffers, m.subgraphs = source.operatorCodes, buffers, [g]
    import flatbuffers

    b = flatbuffers.Builder(1024 + sum(x.data.size for x in buffers[1:]))
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    quantized = any(model.tensors[t].dtype in _QUANTIZED for t in used)
    return CutSegment(bytes(b.Output()), inputs, outputs, EXACT if quantized else DEFAULT)


def read_after(model: ModelSpec, op_indices: Sequence[int]) -> Set[int]:
    """Tensors read by an operator not in ``op_indices`` or that are graph outputs."""
    mine = set(op_indices)
    out = set(model.outputs)
    for op in model.operators:
        if op.index not in mine:
            out.update(t for t in op.inputs if t >= 0)
    return out


class _Run(NamedTuple):
    run: Callable[[], None]
    copied: int
    invoke: Callable[[], None]
    interpreter: object  # whoever runs must hold it: its constants live in the model bytes it keeps
    views_bound: bool


class _Loaded(NamedTuple):
    """A cut segment loaded in TFLite's interpreter: its input and output details, and
    :func:`_bound_views`' result (None where its tensors are not bound as views)."""

    cut: CutSegment
    interpreter: object
    ins: Tuple[dict, ...]
    outs: Tuple[dict, ...]
    bound: Optional[tuple]


def _load(cut: CutSegment) -> _Loaded:
    """``cut`` loaded in TFLite's interpreter (one thread, ``cut.resolver``), its tensors bound
    as views where :func:`_bound_views` finds that safe; SegmentRefused where it refuses."""
    litert, _ = _litert()
    try:
        it = litert.Interpreter(model_content=cut.data, num_threads=1,
                                experimental_op_resolver_type=getattr(litert.OpResolverType, cut.resolver))
        it.allocate_tensors()
    except (ValueError, RuntimeError) as e:
        raise SegmentRefused(f"TFLite's interpreter refused the segment: {str(e).strip().splitlines()[0]}") from None
    ins, outs = tuple(it.get_input_details()), tuple(it.get_output_details())
    return _Loaded(cut, it, ins, outs, _bound_views(it, ins, outs))


def _same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether ``a`` and ``b`` are the same dense bytes (a boundary with nothing to copy)."""
    return (a.nbytes == b.nbytes and _address(a) == _address(b) and a.flags.c_contiguous
            and b.flags.c_contiguous)


class InterpreterMemory:
    """Bytes of an interpreter's tensor as numpy sees them (``np.asarray`` of it), holding the
    interpreter (its arena, and the model bytes its constants live in) as long as any array
    over them lives."""

    def __init__(self, view: np.ndarray, interpreter: object):
        self.interpreter = interpreter
        self.__array_interface__ = {"shape": (view.nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (_address(view), False)}


def _interpreter_run(loaded: _Loaded, views: Mapping[int, np.ndarray]) -> _Run:
    """(the function running the loaded segment in TFLite's interpreter between the views,
    bytes copied per run, the interpreter's invoke alone, the interpreter, whether its tensors
    are bound as views); SegmentRefused where a tensor differs. With bound views a run is one
    copy per tensor each way (:func:`_pair`) and the native invoke, no copy where the bridge's
    buffer is the interpreter's tensor (:meth:`SegmentBinder.memory`); else the tensors are
    copied through its Python API per call."""
    cut, it = loaded.cut, loaded.interpreter
    sides: List[List[tuple]] = []
    for details, tensors in ((loaded.ins, cut.inputs), (loaded.outs, cut.outputs)):
        side = []
        for d, t in zip(details, tensors):
            view = views.get(t)
            if view is None or np.dtype(d["dtype"]) != view.dtype or int(np.prod(d["shape"])) != view.size:
                raise SegmentRefused(f"tensor #{t}: the interpreter's {np.dtype(d['dtype'])}{list(d['shape'])} is "
                                     f"not the bridge's buffer {None if view is None else (view.dtype, view.shape)}")
            side.append((d, view))
        sides.append(side)
    ins, outs = sides
    if loaded.bound is None:
        copied = sum(view.nbytes for _, view in ins + outs)
        return _Run(_copying_run(it, ins, outs), copied, it.invoke, it, False)
    inner_in, inner_out, invoke = loaded.bound
    pairs_in = tuple(_pair(inner.reshape(view.shape), view) for inner, (_, view) in zip(inner_in, ins)
                     if not _same_memory(inner, view))
    pairs_out = tuple(_pair(view, inner.reshape(view.shape)) for inner, (_, view) in zip(inner_out, outs)
                      if not _same_memory(inner, view))
    copied = sum(src.nbytes for _, src in pairs_in + pairs_out)
    if not pairs_in and not pairs_out:  # every boundary the interpreter's own memory
        return _Run(invoke, 0, invoke, it, True)
    if len(pairs_in) == 1 and len(pairs_out) == 1:  # the common case without a loop
        (a, b), (c, e) = pairs_in[0], pairs_out[0]

        def run_one() -> None:
            a[:] = b
            invoke()
            c[:] = e

        return _Run(run_one, copied, invoke, it, True)

    def run() -> None:
        for dst, src in pairs_in:
            dst[:] = src
        invoke()
        for dst, src in pairs_out:
            dst[:] = src

    return _Run(run, copied, invoke, it, True)


def _pair(dst: np.ndarray, src: np.ndarray) -> tuple:
    """(dst, src) for ``dst[:] = src``: as byte memoryviews where both are C-contiguous (a memcpy,
    about half numpy's fixed cost on small tensors), else the arrays (numpy's strided copy: a
    padded buffer's elements only)."""
    if dst.flags.c_contiguous and src.flags.c_contiguous and dst.ndim:
        return memoryview(dst.reshape(-1).view(np.uint8)), memoryview(src.reshape(-1).view(np.uint8))
    return dst, src


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _bound_views(it, ins: Sequence[dict], outs: Sequence[dict]):
    """(views of the interpreter's input tensors, of its output tensors, its native invoke),
    held for the interpreter's life; None where that is not safe or possible: a 0-d tensor
    (numpy gives a scalar, not a view), a dynamic shape (-1 in its signature), no native invoke
    in this ai-edge-litert, a trial invoke failing, an input the trial invokes wrote into, or a
    tensor whose memory is not where it was after two trial invokes on ones (ones,
    not zeros: no integer division by zero; an operator with a dynamic output, whose sizes
    TFLite plans anew during invoke, may move its arena: a view held across that would write
    into freed memory). The interpreter's Python ``invoke()`` refuses while views are held (it
    cannot tell a fixed arena from a moving one), so the run calls the native one its wrapper
    holds."""
    native = getattr(it, "_interpreter", None)
    invoke = getattr(native, "Invoke", None)
    if invoke is None or not hasattr(native, "tensor"):
        return None
    details = list(ins) + list(outs)
    if any(len(d["shape"]) == 0 or any(int(s) < 0 for s in d.get("shape_signature", ())) for d in details):
        return None
    try:
        views = [it.tensor(d["index"])() for d in details]
        if not all(isinstance(v, np.ndarray) and v.size == int(np.prod(d["shape"])) for v, d in zip(views, details)):
            return None
        where = [_address(v) for v in views]
        for v in views[:len(ins)]:
            v.fill(1)
        for _ in range(2):
            invoke()
            if [_address(it.tensor(d["index"])()) for d in details] != where:
                return None
        if not all((v == 1).all() for v in views[:len(ins)]):  # the interpreter wrote into an input
            return None
    except (ValueError, RuntimeError, TypeError):
        return None
    for v in views:  # zeros, as the bridge's own buffers start
        v.fill(0)
    return views[:len(ins)], views[len(ins):], invoke


def _copying_run(it, ins: Sequence[tuple], outs: Sequence[tuple]) -> Callable[[], None]:
    """The run through the interpreter's Python API, for an interpreter whose tensors are not
    bound: ``set_tensor`` per input, ``invoke()``, a copy per output (:func:`_copier`)."""
    copy_in = tuple(_copier(it, d, view, into_interpreter=True) for d, view in ins)
    copy_out = tuple(_copier(it, d, view, into_interpreter=False) for d, view in outs)
    invoke = it.invoke

    def run() -> None:
        for c in copy_in:
            c()
        invoke()
        for c in copy_out:
            c()

    return run


def _copier(it, details, view: np.ndarray, into_interpreter: bool) -> Callable[[], None]:
    """One copy between the interpreter's tensor and the bridge's view (its elements only):
    in, ``set_tensor`` (one call; a padded view is first gathered by numpy); out, a view of the
    interpreter's memory made per call (it must not outlive invoke()), or ``get_tensor`` for a
    0-d tensor (whose view numpy gives as a scalar)."""
    index, shape, copyto = details["index"], tuple(int(n) for n in details["shape"]), np.copyto
    if into_interpreter:
        set_tensor = it.set_tensor
        if tuple(view.shape) == shape:
            return lambda: set_tensor(index, view)
        return lambda: set_tensor(index, view.reshape(shape))
    if not shape:
        return lambda: copyto(view, it.get_tensor(index).reshape(view.shape))
    raw, mine = it.tensor(index), tuple(view.shape)
    return lambda: copyto(view, raw().reshape(mine))


@dataclass(frozen=True)
class SegmentEngine:
    """Which engine runs a fallback segment and why (``reason``: where the engine asked for is
    not the one running it, or the rule that chose)."""

    operators: Tuple[int, ...]
    engine: str
    reason: str


class FallbackSegment:
    """A fallback segment bound once to the bridge's buffers: calling it runs the segment.
    ``invoke``: on the interpreter, its invoke alone (no boundary copies; for profiling);
    ``interpreter``: the interpreter it runs on, held for the segment's life; ``views_bound``:
    its tensors bound once as numpy views (else copied through its Python API per call)."""

    def __init__(self, run: Callable[[], None], report: SegmentEngine, copied_bytes_per_run: int,
                 invoke: Optional[Callable[[], None]] = None, interpreter: object = None,
                 views_bound: bool = False):
        self.run = run
        self.interpreter = interpreter
        self.views_bound = views_bound
        self.report = report
        self.copied_bytes_per_run = copied_bytes_per_run
        self.invoke = invoke

    def __call__(self) -> None:
        self.run()


class SegmentBinder:
    """Binds a plan's fallback segments with ``engine`` (:data:`ENGINES`); ``source``: the
    model file's bytes or a function reading them, called once when a segment first asks (None:
    a plan or spec was given, so the numpy kernels run)."""

    def __init__(self, engine: str, source: Union[None, bytes, Callable[[], bytes]]):
        self.engine = check_engine(engine)
        self._source = source
        self._parsed = None
        self._why_not: Optional[str] = None
        self._loaded: Dict[tuple, object] = {}

    def _file(self):
        if self._parsed is None and self._why_not is None:
            if self._source is None:
                self._why_not = "no model file (a plan or spec was given)"
            else:
                try:
                    _, schema = _litert()
                    data = self._source() if callable(self._source) else self._source
                    self._parsed = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
                except SegmentRefused as e:
                    self._why_not = str(e)
                except Exception as e:  # unreadable here: the plan came from it, so the numpy kernels run it
                    self._why_not = f"the model file does not parse as a schema object ({type(e).__name__}: {e})"
        if self._why_not is not None:
            raise SegmentRefused(self._why_not)
        return self._parsed

    def _choice(self, model: ModelSpec, ops: Tuple[int, ...]) -> Tuple[str, str]:
        """(the engine asked for ``ops``, the rule that chose it)."""
        by = {op.index: op for op in model.operators}
        if self.engine != "auto":
            return self.engine, f"fallback_engine={self.engine!r}"
        holds = sorted({by[i].opcode for i in ops if heavy(by[i], model)})
        return ("tflite", f"auto: holds {', '.join(holds)}") if holds else ("numpy", "auto: no operator of the heavy set")

    def _load(self, model: ModelSpec, ops: Tuple[int, ...], want: str, outputs: Optional[Set[int]]) -> _Loaded:
        """The segment ``ops`` cut and loaded in the interpreter, once per segment (the runner
        asks first for :meth:`memory`, then binds); SegmentRefused (kept) where it cannot."""
        key = (ops, want, None if outputs is None else frozenset(outputs))
        got = self._loaded.get(key)
        if got is None:
            try:
                # the operators between the segment's first and last that run nowhere else (those the
                # plan made views of their input: a RESHAPE between two fallback operators) are cut
                # with it, so that the interpreter computes what they would show
                span = [op for op in model.operators if min(ops) <= op.index <= max(ops)]
                after = read_after(model, [op.index for op in span]) if outputs is None else outputs
                cut = cut_segment(self._file(), model, span, after)
                if want == "tflite-default":  # XNNPACK on quantized segments too: faster, not bit for bit
                    cut = replace(cut, resolver=DEFAULT)
                got = _load(cut)
            except SegmentRefused as e:
                got = e
            except Exception as e:  # the schema classes or the interpreter on an unforeseen file: never the model's end
                got = SegmentRefused(f"cutting or loading the segment failed ({type(e).__name__}: {e})")
            self._loaded[key] = got
        if isinstance(got, SegmentRefused):
            raise got
        return got

    def memory(self, model: ModelSpec, op_indices: Sequence[int]) -> Dict[int, np.ndarray]:
        """{source tensor: its bytes in the interpreter (uint8, 64-byte aligned, holding the
        interpreter)} for the segment's inputs and outputs whose memory the bridge may use as
        its buffer, so that the boundary copies nothing: bound as views (memory fixed across
        invokes), sharing no byte with another of the segment's tensors (an in-place RESHAPE's
        output is its input's memory), of the plan's dtype and size, not 0-d. Empty where the
        segment runs on numpy."""
        ops = tuple(op_indices)
        want, _ = self._choice(model, ops)
        if want == "numpy":
            return {}
        try:
            loaded = self._load(model, ops, want, None)
        except SegmentRefused:
            return {}
        if loaded.bound is None:
            return {}
        inner = list(loaded.bound[0]) + list(loaded.bound[1])
        tensors = list(loaded.cut.inputs) + list(loaded.cut.outputs)
        spans = [(_address(v), _address(v) + v.nbytes) for v in inner]
        out: Dict[int, np.ndarray] = {}
        for k, (t, v) in enumerate(zip(tensors, inner)):
            lo, hi = spans[k]
            alone = all(hi <= o_lo or o_hi <= lo for j, (o_lo, o_hi) in enumerate(spans) if j != k)
            mine = model.tensors[t]
            fits = v.dtype == np.dtype(mine.dtype) and v.size == int(np.prod(mine.shape, dtype=np.int64))
            if alone and fits and v.nbytes and lo % MEMORY_ALIGNMENT_IN_BYTES == 0 and t not in out:
                out[t] = np.asarray(InterpreterMemory(v, loaded.interpreter))
        return out

    def bind(self, model: ModelSpec, op_indices: Sequence[int], views: Mapping[int, np.ndarray],
             outputs: Optional[Set[int]] = None) -> FallbackSegment:
        """``op_indices`` (consecutive fallback operators) bound to ``views``; ``outputs``: the
        tensors the interpreter's run writes back (None: those read after the segment)."""
        ops = tuple(op_indices)
        by = {op.index: op for op in model.operators}
        want, rule = self._choice(model, ops)
        if want in ("tflite", "tflite-default"):
            try:
                r = _interpreter_run(self._load(model, ops, want, outputs), views)
                return FallbackSegment(r.run, SegmentEngine(ops, "tflite", rule), r.copied, r.invoke, r.interpreter,
                                       r.views_bound)
            except SegmentRefused as e:
                rule = f"{rule}, but {e}"
        calls = tuple(prepare(by[i], model, views) for i in ops)

        def run_numpy() -> None:
            for f in calls:
                f()

        return FallbackSegment(run_numpy, SegmentEngine(ops, "numpy", rule), 0)


def describe(reports: Sequence[SegmentEngine]) -> str:
    """One line: how many fallback segments run on each engine, and why any asked-for engine
    is not the one running (for the runners' summary())."""
    if not reports:
        return ""
    on = {e: sum(1 for r in reports if r.engine == e) for e in ("tflite", "numpy")}
    why = sorted({r.reason for r in reports if ", but " in r.reason})
    return (f"; fallback segments: {on['tflite']} on TFLite's interpreter, {on['numpy']} on numpy kernels"
            + (f" ({'; '.join(why)})" if why else ""))


__all__ = ["ENGINES", "HEAVY", "heavy", "CutSegment", "FallbackSegment", "InterpreterMemory", "SegmentBinder",
           "SegmentEngine", "check_engine",
           "cut_segment", "describe", "read_after"]
