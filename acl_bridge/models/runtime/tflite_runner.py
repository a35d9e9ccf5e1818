"""Run a TFLite model on the bridge's ACL functions: NHWC, configure once, run many.

Loading (:class:`TfliteRunner`) does everything once:

1. read and plan the model (:mod:`.tflite_reader`, :mod:`.tflite_plan`); unsupported
   operators or options are refused here, naming them. The parsed model is kept by content
   between processes (:mod:`.model_cache`; ``model_cache=False`` turns it off, a directory
   puts it elsewhere; :attr:`TfliteRunner.model_cache` reports what it did), and so is the
   lowered plan (:mod:`.plan_cache`, in the same directory): a second start reads the plan
   whole, parses and lowers nothing and imports no ``tflite`` package;
2. padding negotiation: every step asks ACL (``Cls.required_padding`` on shapes only) which
   padding each of its tensors needs; a tensor's buffer gets the union over every function
   that reads or writes it (``PaddingSize.union``), so no function has to stage it;
3. buffers (``padded_descriptor``, exactly that padding, bridge-owned): on NEON the
   intermediates share one arena, each in a slot placed by its lifetime
   (:mod:`.memory_plan`: no two buffers alive at one step share a byte), graph inputs and
   outputs in allocations of their own; ``arena=False`` (and CL, where overlapping host
   memory under several buffers is undefined) gives every buffer its own. RESHAPE outputs
   and CONCATENATION inputs are views of another buffer (:meth:`Plan.bind`), and so are the
   channel slices of PADs folded into their ADDs (:func:`.tflite_plan._fold_channel_pads`). A
   buffer with views keeps no padding (a reshape of a padded buffer is no view), except under
   those channel slices (``Plan.padding_kept``): where a function needs padding on such a
   tensor, the bridge stages it and the copy is counted;
4. every function is configured on those buffers (validate, configure, import). On NEON the
   weights and biases of the convolutions and fully connected layers (ACL takes them as
   ``const ITensor *``) go to ACL in the model's own memory where ACL asks no padding for
   them (``share_constants=False``: a copy each, as on CL); other constants are copied into
   padded buffers of the bridge's own. The buffers
   are the bridge's own (``padded_empty``), so ACL may write into their padding (20.08's
   border filling); a view whose neighbouring bytes hold other elements is protected by the
   bridge's probe (it would stage, and the copy would be counted);
5. where ``validate()`` on the final buffers wants more padding than the negotiation reported
   (ACL 20.08, NHWC depthwise: "Insufficient Padding!"), the bridge would stage the tensor;
   instead the padding it asked for there is added to the buffer's union and everything is
   configured again (at most twice: :attr:`TfliteRunner.renegotiations`);
6. a :class:`~acl_bridge.Schedule` runs all functions in one native call per inference.

ACL's answers in steps 2, 4 and 5 (negotiated padding, validate() on exact layouts, the
probe) depend only on the function kind, its parameters and the layouts: within one load
each is asked once per content (:mod:`acl_bridge.configure_session`; identical steps, and a
function asking again what the negotiation asked, reuse it; ``reuse_facts=False`` asks
per function). Kept between processes (:mod:`acl_bridge.facts_cache`) with the whole
negotiation and every function's decision (:mod:`acl_bridge.decisions`), a second start of the
same model negotiates nothing and makes every function from its decision in one native call
(:mod:`acl_bridge.configure_batch`; :attr:`TfliteRunner.functions_recalled`): ACL's validate()
and configure() and the imports, no description, planning or probe, and each function's
Python object made only when :attr:`TfliteRunner.functions` is read. The probe is not made
for a function whose in-place tensors are all dense
buffers of the bridge's own (:func:`acl_bridge.plan.plan_function`: nothing it could find
would stage them). :meth:`TfliteRunner.configure_profile` says where the load's seconds
went, phase by phase and step by step, and the first inference's (weights prepared);
:meth:`TfliteRunner.profile` where an inference's time goes, ACL function by function.

``backend="cl"`` runs the same plan on ACL's OpenCL functions: the negotiation asks the CL
functions, the buffers are the same NdArrays (CLTensors over their own memory), and the
schedule returns with the results in them. OpenCL starts first (``opencl.cl_init``: an
:class:`~acl_bridge.errors.AclNoDeviceError` saying what is missing where ACL cannot use the
device), then ACL's compiled programs are restored from the program cache before configuring
and saved after it (:mod:`acl_bridge.cl_program_cache`; ``program_cache=False`` turns it off,
a directory puts it elsewhere; :attr:`TfliteRunner.program_cache` reports what it did).

int8 models (the int8-contract of the lowering): a step's ``("quantization", ((role, q), ...))``
parameter goes to its function and to the padding negotiation as ``quantization=`` (``q`` is
``(scale, zero_point)``, or ``(scales, 0)`` per output channel for int8 weights: ACL's
QSYMM8_PER_CHANNEL); every buffer and constant has the model's dtype (int8 activations, int32
bias), graph inputs and outputs included. Where the ACL version refuses a step (20.08: int8
depthwise with per-channel weights), loading fails with UnsupportedModelError naming the
operator, its tensors' types and ACL's own validate() message.

An inference (:meth:`TfliteRunner.run`) copies the caller's input into the input buffer
(or the caller writes it in place: :attr:`input_array`), runs the functions and returns
views of the output buffers. :attr:`copied_bytes_per_inference` says what a run copies:
the input, plus whatever the bridge had to stage (``staged``), plus explicit copy steps.
"""

from __future__ import annotations

import functools
import os
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

import ndarray
from ndarray import NdArray, ShapeDescriptor
from ndarray.errors import ArgumentTypeError, LayoutError

from ... import functions as F
from ...backend import backend_named
from ...cl_program_cache import CacheReport, ProgramCache
from ...decisions import code_identity
from ...configure_batch import RecalledFunctions, configure_kept
from ...configure_cold import decide_calls
from ...configure_session import (CATEGORIES, CONFIGURED_PLAN, MEMORY_PLAN, NEGOTIATED_PLAN, ConfigureSession, encode,
                                 question_id)
from ...executor import BRIDGE_SLACK_IN_BYTES, bridge_allocate, bridge_slot, origin_of
from ...errors import AclError, AclStatusError, AclUnavailableError
from ...facts_cache import FactsCache, FactsCacheReport
from ...facts_cache import identity as facts_identity
from ...user_cache import check_cache_option, sources_stamp
from ...mapping import PaddingSize, clear_description_caches, data_type_for, padded_descriptor
from ...opencl import cl_init
from ...plan import FunctionPlan, Origin, Reason
from ...schedule import Schedule
from ...workspace import Workspace
from ..profiling.configure_profile import PHASES, ConfigureProfile, NativeTime, PhaseTime, StepTime
from ..planning.memory_plan import MemoryPlan, lifetimes, place, plan_memory
from ..format.model_cache import ModelCacheReport, ModelCacheWarning, read_model_cached
from ..planning.plan_cache import kept_report, lowering_code_identity, read_plan_cached
from ..planning.replanned_cache import ReplannedPlanCache, refused_by_acl
from ..profiling.operator_profile import FunctionTime, OperatorProfile
from .segments import SegmentedRun, SegmentTime
from ..planning.tflite_plan import Plan, Step, graph_inputs, plan_model, slice_index
from ..format.tflite_reader import ModelSpec, UnsupportedModelError, fold_constant_dequantize, model_bytes
from . import function_kinds
from .function_kinds import ROLES


def _kwargs(step: Step) -> Dict[str, object]:
    """The bridge function's keyword arguments for a step, its quantization per role included
    (an int8 step's ``("quantization", ((role, q), ...))``: the int8-contract)."""
    kw = _options(step)
    q = step.param("quantization")
    if q:
        kw["quantization"] = {role: tuple(v) if isinstance(v, list) else v for role, v in q}
    return kw


def _options(step: Step) -> Dict[str, object]:
    return function_kinds.options(step.kind, dict(step.params))


def _places(step: Step) -> bool:
    """Whether a step moves one tensor into another's memory where no view could be made: a
    ``copy`` (into a concatenation's slice, or a reshape), or a requantizing ``quantize`` into
    a concatenation's slice (int8 inputs whose scales differ from the output's)."""
    return function_kinds.places(step.kind, dict(step.params))


def _operands(step: Step, tensors: Dict[int, object], constants: Dict[str, object]) -> List[object]:
    """Positional arrays of the bridge function, in its role order."""
    if _places(step):
        p = dict(step.params)
        src = tensors[step.inputs[0]]
        if isinstance(src, ShapeDescriptor):  # negotiation: the destination has the source's shape
            return [src, src]
        if "into" in p:
            _, axis, start = p["slice"]
            return [src, tensors[p["into"]][slice_index(len(src.shape), axis, start, src.shape[axis])]]
        return [src, tensors[step.output].reshape(src.shape)]
    roles = ROLES[step.kind].roles
    return [constants[r] if i is None else tensors[i] for r, i in zip(roles, _tensor_ids(step))]


def _tensor_ids(step: Step) -> List[Optional[int]]:
    """Model tensor id per role of the bridge function, in its role order (None: a constant
    of the step, by role name): the function's output roles take the step's output, the
    other roles its inputs in order."""
    if _places(step):
        return [step.inputs[0], dict(step.params).get("into", step.output)]
    cls = ROLES[step.kind]
    constant_roles = {role for role, _ in step.constants}
    inputs = iter(step.inputs)
    return [None if r in constant_roles else step.output if r in cls.outputs else next(inputs) for r in cls.roles]


class _DenseShapes(dict):
    """{tensor id: the dense ShapeDescriptor of its shape and dtype}, each made when first
    looked up (the negotiation names a model's activations, not its constants)."""

    def __init__(self, tensors):
        super().__init__()
        self._tensors = {t.index: t for t in tensors}

    def __missing__(self, i: int) -> ShapeDescriptor:
        t = self._tensors[i]
        d = self[i] = ShapeDescriptor.dense(tuple(t.shape), t.dtype)
        return d


def _types(step: Step, operands: List[object]) -> str:
    """'src int8 QASYMM8_SIGNED, weights int8 QSYMM8_PER_CHANNEL, ...' of a step's tensors."""
    quant = _kwargs(step).get("quantization") or {}
    cls = ROLES[step.kind]
    parts = []
    for role, a in zip(cls.roles, operands):
        if a is None:
            continue
        dtype = np.dtype(getattr(a, "dtype"))
        try:
            acl = data_type_for(dtype, quant.get(role))
        except LayoutError:
            acl = "?"
        parts.append(f"{role} {dtype} {acl}")
    return ", ".join(parts)


class AclRefusedError(UnsupportedModelError):
    """ACL's validate() refused functions at load: ``refused`` maps each operator to the text
    (the first is the message). With the fallback on, the runner plans again with those
    operators on the CPU fallback instead (all of one pass at once)."""

    def __init__(self, refused: Dict[int, str]):
        super().__init__(next(iter(refused.values())) + ("" if len(refused) == 1 else
                                                          f" (and {len(refused) - 1} more refused)"))
        self.refused = dict(refused)


def _raise_refused(refused: Dict[int, str]) -> None:
    """AclRefusedError for the refusals of one pass over the steps, where there are any."""
    if refused:
        raise AclRefusedError(refused)


def _refused(step: Step, operands: List[object], e: AclStatusError) -> str:
    """ACL's refusal of one step at load, naming the operator, its tensors' types and ACL's
    own validate() message (e.g. ACL 20.08 and int8 depthwise with per-channel weights)."""
    from ...native import acl_version

    return (f"operator #{step.op_index} {step.opcode} ({step.kind}: {_types(step, operands)}) is refused by "
            f"ACL {acl_version()}: {e.message}")


_HERE = Path(__file__).resolve().parent
# The sources that fix every buffer's layout from a plan and its negotiated padding (the
# allocation, the views, the memory plan, the descriptors), with the batch that checks kept
# decisions against them: a load's decisions are kept under a stamp of them too, so that a
# changed layout code starts with fresh decisions instead of a batch that refuses every one.
_LAYOUT_SOURCES = ((_HERE, ("tflite_runner.py", "function_kinds.py")), (_HERE.parent / "planning", ("tflite_plan.py", "memory_plan.py")),
                   (_HERE.parent.parent, ("configure_batch.py",)),
                   (Path(ndarray.__file__).resolve().parent, ("descriptor.py", "array.py", "strides.py", "memory.py")))


@functools.lru_cache(maxsize=None)
def layout_code_identity() -> str:
    """A stamp of :data:`_LAYOUT_SOURCES` (user_cache.sources_stamp), made once per process
    (OSError when unreadable)."""
    return "".join(sources_stamp(d, names)[:16] for d, names in _LAYOUT_SOURCES)


def resident_bytes() -> Optional[int]:
    """The process's resident memory now (Linux: /proc/self/statm), or None elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class BufferPlan:
    """Where a buffer's padding comes from: the union of what each function asked for."""

    tensor: int
    name: str
    shape: Tuple[int, ...]
    padding: PaddingSize
    asked_by: Tuple[Tuple[int, str, PaddingSize], ...]  # (operator index, role, padding)
    has_views: bool


MAX_RENEGOTIATIONS = 2


class _Phases:
    """Wall-clock seconds per loading phase, with the session's native calls made in each
    (a phase entered again, as renegotiation is, adds up)."""

    def __init__(self, session: ConfigureSession):
        self.session = session
        self._seconds: Dict[str, float] = {}
        self._native: Dict[str, Dict[str, List[float]]] = {}

    @contextmanager
    def phase(self, name: str):
        s = self.session
        before = {c: (s.seconds.get(c, 0.0), s.calls.get(c, 0), s.reused.get(c, 0)) for c in CATEGORIES}
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self._seconds[name] = self._seconds.get(name, 0.0) + time.perf_counter() - t0
            native = self._native.setdefault(name, {})
            for c, (sec, calls, reused) in before.items():
                d = [s.seconds.get(c, 0.0) - sec, s.calls.get(c, 0) - calls, s.reused.get(c, 0) - reused]
                if d[1] or d[2]:
                    acc = native.setdefault(c, [0.0, 0, 0])
                    for i in range(3):
                        acc[i] += d[i]

    def rows(self) -> Tuple[PhaseTime, ...]:
        out = []
        for name in PHASES:
            if name not in self._seconds or (name == "program_cache" and not self._native.get(name)
                                              and self._seconds[name] < 1e-4):
                continue
            native = self._native.get(name, {})
            out.append(PhaseTime(name, self._seconds[name], tuple(
                NativeTime(c, native[c][0], int(native[c][1]), int(native[c][2])) for c in CATEGORIES if c in native)))
        return tuple(out)


class TfliteRunner:
    """A TFLite model configured once on ACL functions over NdArrays. ``backend``: "neon" (the
    default), "cl", "numpy" (the same plan on numpy kernels, any machine: a
    :class:`~.numpy_backend.NumpyRunner` is made) or "auto" (NEON where ACL's NEON functions
    load, else numpy)."""

    def __new__(cls, *args, backend="neon", **kwargs):
        if cls is TfliteRunner:
            from .numpy_backend import NumpyRunner, resolve_backend

            if resolve_backend(backend) == "numpy":
                return NumpyRunner.__new__(NumpyRunner)
        return super().__new__(cls)

    # a first start decides every function, then makes them all in one native call
    # (acl_bridge.configure_cold); False: one at a time (what the decisions are compared with)
    batch_first_start = True

    def __init__(self, model, *, allow_copy: bool = True, backend="neon", program_cache=True,
                 arena: Optional[bool] = None, reuse_facts: bool = True, share_workspaces: bool = True,
                 model_cache=True, share_constants: bool = True, facts_cache=True, fallback: bool = True):
        if backend == "auto":
            from .numpy_backend import resolve_backend

            backend = resolve_backend(backend)
        self.backend = backend_named(backend)
        from ...native import native_available

        ok, why = native_available()
        if not ok:  # said before anything is read (a cache would otherwise be blamed)
            raise AclUnavailableError(f"backend={self.backend.name!r} needs the native ACL module: {why}; "
                                      f"backend='numpy' runs the same plan on numpy on any machine")
        if not isinstance(fallback, bool):
            raise ArgumentTypeError(f"fallback is {fallback!r}, expected True or False")
        # operators the lowering or ACL does not take run on the CPU fallback (:mod:`.fallback`,
        # :mod:`.segments`); False: such a model is refused naming the operator
        self.fallback = fallback
        self.acl_refused: Dict[int, str] = {}  # operators ACL's validate() refused, re-planned onto the fallback
        self._replan_from = None
        self._model_read: Optional[Tuple[bytes, str]] = None  # the file's bytes and MD5, read once per load
        if not isinstance(share_constants, bool):
            raise ArgumentTypeError(f"share_constants is {share_constants!r}, expected True or False")
        # NEON: dense constants ACL takes as const (weights, bias) are handed to it in the model's
        # own memory instead of a copy (:meth:`_constant`); CL keeps copies (its buffers wrap
        # host memory with alignment rules of the device's own)
        self.share_constants = share_constants and self.backend.name == "neon"
        for name, value in (("model_cache", model_cache), ("facts_cache", facts_cache)):
            check_cache_option(name, value)
        if not isinstance(share_workspaces, bool):
            raise ArgumentTypeError(f"share_workspaces is {share_workspaces!r}, expected True or False")
        # one ACL memory manager for every function's scratch tensors (acl_bridge.workspace),
        # or one per function (what each function would hold alone, measured the same way)
        self.share_workspaces = share_workspaces
        self.workspaces: List[Workspace] = []
        if arena is None:
            # OpenCL leaves the result of commands on buffers over overlapping host memory
            # undefined (clCreateBuffer, CL_MEM_USE_HOST_PTR): CL keeps one buffer per tensor
            arena = self.backend.name != "cl"
        if not isinstance(arena, bool):
            raise ArgumentTypeError(f"arena is {arena!r}, expected True, False or None (the backend's default)")
        self.use_arena = arena
        self.memory: Optional[MemoryPlan] = None
        check_cache_option("program_cache", program_cache)
        if not isinstance(reuse_facts, bool):
            raise ArgumentTypeError(f"reuse_facts is {reuse_facts!r}, expected True or False")
        self.reuse_facts = reuse_facts
        self._session = ConfigureSession(reuse=reuse_facts)
        self._phases = _Phases(self._session)
        self._first_run_seconds: Optional[float] = None
        self.model_name = (os.path.basename(os.fspath(model)) if isinstance(model, (str, os.PathLike))
                           else type(model).__name__)
        try:
            with self._session.active():
                self._load_or_cold(model, program_cache, allow_copy, model_cache, facts_cache)
        finally:
            self._session.forget()  # the answers were for this load only; the times stay
            clear_description_caches()  # the same for the descriptions kept by content

    def _load_or_cold(self, model, program_cache, allow_copy: bool, model_cache, facts_cache) -> None:
        """:meth:`_load_partitioned`; where a load that used kept files fails (a damaged or
        crafted file past every check of the caches: a MemoryError, an error of this library's),
        a :class:`~.model_cache.ModelCacheWarning` and the same load with the parsed-model and
        facts caches off: a cold start, whose error, if any, is the model's own. A refusal of the
        model (UnsupportedModelError: an operator ACL or the lowering does not take, with the
        fallback off) is the model's, not the caches', and is raised as it is."""
        try:
            return self._load_partitioned(model, program_cache, allow_copy, model_cache, facts_cache)
        except UnsupportedModelError:
            raise
        except Exception as e:
            used = [name for name, report in (("the kept plan or parsed model", getattr(self, "model_cache", None)),
                                              ("ACL's kept answers", getattr(self, "facts_cache", None)))
                    if report is not None and report.state == "warm"]
            if not used:
                raise
            if hasattr(self, "functions"):
                self._close_functions()
            self.workspaces = []
            warnings.warn(ModelCacheWarning(f"a start from {' and '.join(used)} failed ({type(e).__name__}: {e}); "
                                            f"starting cold without the caches"), stacklevel=3)
        return self._load_partitioned(model, program_cache, allow_copy, False, False)

    def _load_partitioned(self, model, program_cache, allow_copy: bool, model_cache, facts_cache) -> None:
        """:meth:`_load`; where ACL's validate() refuses an operator (and the fallback is on),
        the model is planned again with that operator on the CPU fallback and loaded again; that
        plan is kept for the next start on this ACL (:mod:`..planning.replanned_cache`), which
        loads it directly."""
        replanned = self._replanned_cache(model, model_cache)
        kept = replanned.load() if replanned is not None else None
        if kept is not None:
            self.acl_refused.update(refused_by_acl(kept))
            self._replan_from = replanned.data
            model = kept
        while True:
            try:
                self._load(model, program_cache, allow_copy, model_cache, facts_cache)
                if kept is not None:
                    self.model_cache = kept_report(replanned, 0.0)
                if replanned is not None and self.acl_refused and (
                        kept is None or set(self.acl_refused) != set(refused_by_acl(kept))):
                    replanned.save(self.plan)
                return None
            except AclRefusedError as e:
                if not self.fallback or set(e.refused) <= set(self.acl_refused) or self._replan_from is None:
                    raise
                self.acl_refused.update(e.refused)
                if getattr(self, "functions", None):
                    self._close_functions()  # those configured before the refusal
                spec = self._replan_from
                if not isinstance(spec, ModelSpec):  # the file's bytes (its plan came from the plan cache)
                    spec, _ = read_model_cached(spec, model_cache, dequantized=True)
                    self._replan_from = spec
                with self._phases.phase("lower"):
                    model = plan_model(spec, fallback=True, acl_refused=self.acl_refused)

    def _replanned_cache(self, model, model_cache) -> Optional[ReplannedPlanCache]:
        """The file for this model's plan re-planned on this ACL, or None (the fallback or the
        cache off, a plan or spec given, no identity for this ACL)."""
        if not self.fallback or model_cache is False or isinstance(model, (Plan, ModelSpec)):
            return None
        try:
            data = model_bytes(model)
            cache = ReplannedPlanCache(data, facts_identity(self.backend.name),
                                       None if model_cache is True else model_cache)
            self._model_read = (data, str(cache.key["model_md5"]))  # the plan cache's own read and key
        except (OSError, AclError):  # unreadable (the load says so), no ACL identity: nothing kept
            return None
        return cache

    def _load(self, model, program_cache, allow_copy: bool, model_cache, facts_cache) -> None:
        phase = self._phases.phase
        # what the parsed-model cache did (:mod:`.model_cache`); None: given a spec or plan
        self.model_cache: Optional[ModelCacheReport] = None
        if isinstance(model, Plan):
            plan = model
        elif isinstance(model, ModelSpec):
            with phase("lower"):
                spec = fold_constant_dequantize(model)
                self._replan_from = spec
                plan = plan_model(spec, fallback=self.fallback)
        else:
            with phase("read"):  # the lowered plan kept by an earlier process (:mod:`.plan_cache`)
                source, md5 = self._model_read if self._model_read is not None else (model, None)
                kept_plan, plans, data, seconds = read_plan_cached(source, model_cache, md5)
                self._replan_from = data
                if kept_plan is not None:
                    plan, self.model_cache = kept_plan, kept_report(plans, seconds)  # type: ignore[arg-type]
                else:  # its constant DEQUANTIZEs folded, and kept so (the parsed-model cache's own file)
                    spec, self.model_cache = read_model_cached(data, model_cache, dequantized=True)
            if kept_plan is None:
                with phase("lower"):  # and kept for the next start (encoded, read back, compared, written)
                    self._replan_from = spec
                    plan = plan_model(spec, fallback=self.fallback)
                    if plans is not None:
                        why = plans.save(plan)
                        self.model_cache = replace(self.model_cache, reason=f"{self.model_cache.reason}; {why}")
        if plan.fallbacks and not self.fallback:  # a kept plan lowered with the fallback on
            raise UnsupportedModelError(plan.fallbacks[0].reason + (
                "" if len(plan.fallbacks) == 1 else f" (and {len(plan.fallbacks) - 1} more operators that do not lower)"))
        self.plan = plan
        t0 = time.perf_counter()
        with phase("program_cache"):
            cache = self._restore_programs(program_cache)
        with phase("facts_cache"):
            facts = self._open_facts(facts_cache)
        with phase("negotiation"):
            asked, const_pad = self._negotiate_or_recall(facts)
            decided = self._recall_decisions(facts, allow_copy)
            self._recall_arena(facts)
        kept = set(plan.padding_kept)
        self.roots_with_views = {plan.root(v.tensor) for v in plan.views
                                 if v.how[0] != "alias" and v.tensor not in kept}
        # the functions, step by step: AclFunctions, or after a batch of recalled ones a
        # RecalledFunctions, whose objects are made when first asked for (acl_bridge.configure_batch)
        self.functions: Sequence[F.AclFunction] = []
        self.renegotiations = 0
        for attempt in range(MAX_RENEGOTIATIONS + 1):
            with phase("allocate" if attempt == 0 else "renegotiation"):
                self._allocate(asked)
            with phase("configure" if attempt == 0 else "renegotiation"):
                self._configure(const_pad, allow_copy, decided if attempt == 0 else None)
                grow = self._padding_still_missing()
            if not grow or attempt == MAX_RENEGOTIATIONS:
                break
            # validate() on the final infos wanted more than the resizable negotiation said
            # (20.08 NHWC depthwise: "Insufficient Padding!"): give every buffer what ACL
            # asked for there, and configure again, instead of staging it on every run
            with phase("renegotiation"):
                for key, (who, pad) in grow.items():
                    if isinstance(key, tuple):
                        const_pad[key[0]][key[1]] = const_pad[key[0]][key[1]].union(pad)
                    else:
                        asked.setdefault(key, []).append(who + (pad,))
                self._close_functions()
            self.renegotiations += 1
        # one call into the native layer per inference (split only around staged functions);
        # the workspaces' pools are made once every function has joined
        with phase("schedule"):
            self.workspace_bytes = sum(w.allocate() for w in self.workspaces)
            # a plan with fallback operators: one schedule per ACL segment, the fallback between
            self.schedule = SegmentedRun(plan, self.functions, self.arrays) if plan.fallbacks \
                else Schedule(self.functions)
        self.configure_seconds = time.perf_counter() - t0
        if cache is not None:
            cache.save()
            self.program_cache = cache.report
        if facts is not None:
            answers = self._session.answers()
            if self._negotiation_made is not None:  # after any renegotiation (it grows them in place)
                key, made = self._negotiation_made
                answers.setdefault(NEGOTIATED_PLAN, {})[key] = encode(NEGOTIATED_PLAN, made)
            if self._arena_key is not None and self.memory is not None and not self.memory_recalled:
                answers.setdefault(MEMORY_PLAN, {})[self._arena_key] = encode(
                    MEMORY_PLAN, [(s.tensor, s.offset_in_bytes) for s in self.memory.slots])
            if self._decisions_key is not None and self.functions_recalled < len(self.functions):
                f = self.functions  # (a batch's decisions as columns, without making its functions' objects)
                made_decisions = f.decisions if isinstance(f, RecalledFunctions) else tuple(x.decision for x in f)
                if isinstance(f, RecalledFunctions) or all(d is not None for d in made_decisions):
                    answers.setdefault(CONFIGURED_PLAN, {})[self._decisions_key] = encode(CONFIGURED_PLAN,
                                                                                          made_decisions)
            saved, why = facts.save(answers)
            self.facts_cache = replace(self.facts_cache, saved=saved,  # type: ignore[type-var]
                                       reason="; ".join(r for r in (self.facts_cache.reason, why) if r))
        self.input_index = plan.model.inputs[0]
        self.input_array: NdArray = self.arrays[self.input_index]
        # every graph input's buffer, by tensor (a model with several inputs: run() takes them all)
        self.input_arrays: Dict[int, NdArray] = {i: self.arrays[i] for i in plan.model.inputs}
        self.output_names = tuple(plan.model.tensors[i].name for i in plan.model.outputs)

    def _restore_programs(self, program_cache):
        """CL: start OpenCL (the device error comes here, before anything is built) and
        restore the program cache; the cache object, or None (NEON, or the cache is off)."""
        self.program_cache: Optional[CacheReport] = None
        if self.backend.name != "cl":
            return None
        cl_init()
        if program_cache is False:
            self.program_cache = CacheReport("off", None, "program_cache=False")
            return None
        cache = ProgramCache(None if program_cache is True else program_cache)
        self.program_cache = cache.restore()
        return cache

    def _open_facts(self, facts_cache) -> Optional[FactsCache]:
        """ACL's answers of an earlier process with the same ACL, shim, CPU and device, given
        to this load's session (:mod:`acl_bridge.facts_cache`); the cache, or None (off)."""
        self.facts_cache: Optional[FactsCacheReport] = None
        if facts_cache is False or not self.reuse_facts:
            self.facts_cache = FactsCacheReport("off", None, "facts_cache=False" if facts_cache is False
                                                else "reuse_facts=False")
            return None
        try:
            ident = facts_identity(self.backend.name)
        except (OSError, AclError) as e:  # no /proc (not Linux), no ACL: nothing to key answers by
            self.facts_cache = FactsCacheReport("off", None, f"no identity for ACL's answers: {e}")
            return None
        facts = FactsCache(self.plan.model.sha256, ident, None if facts_cache is True else facts_cache)
        self.facts_cache = facts.load()
        self._session.known = facts.decoded
        return facts

    def _negotiate_or_recall(self, facts: Optional[FactsCache]):
        """:meth:`_negotiate`, or its result kept by an earlier process for a plan of the same
        content on the same ACL, shim, CPU and device (:mod:`acl_bridge.facts_cache`): the
        negotiation then costs no Python per step. What is kept is the negotiation as the load
        ended it: a renegotiation's growth (validate() wanting more than the resizable
        negotiation said) is in it, so a second start configures every function once. Every
        function is then configured on the buffers (ACL's validate() and configure() always
        run), from its kept decision where one matches (:meth:`_recall_decisions`), else by
        planning (and probing, renegotiating or staging) as on a first start."""
        self._negotiation_made = None
        key = self._negotiation_key() if facts is not None else None
        self._plan_id = key
        if key is not None:
            kept = facts.decoded.get(NEGOTIATED_PLAN, {}).get(key)  # type: ignore[union-attr]
            if kept is not None:  # decoded (and so checked) by the cache's load
                self.negotiation_recalled = True
                return kept
        self.negotiation_recalled = False
        made = self._negotiate()
        if key is not None:
            self._negotiation_made = (key, made)
        return made

    def _recall_decisions(self, facts: Optional[FactsCache], allow_copy: bool):
        """Every function's decisions (:mod:`acl_bridge.decisions`) kept by an earlier process
        for a plan of the same content, the same options, the same deciding code
        (:func:`~acl_bridge.decisions.code_identity`) and the same ACL, shim, CPU and device
        (the facts cache's identity), one per step; None when there are none. Each is used only where its
        content matches its step's call (else that function is configured as on a first
        start): :attr:`functions_recalled` counts those made from them."""
        self._decisions_key = None
        if facts is None or self._plan_id is None:
            return None
        try:
            code = code_identity() + layout_code_identity()
        except OSError:  # the sources are not readable: nothing to key decisions by
            return None
        self._decisions_key = question_id(CONFIGURED_PLAN, (self._plan_id, bool(allow_copy), self.share_constants,
                                                            self.use_arena, code))
        kept = facts.decoded.get(CONFIGURED_PLAN, {}).get(self._decisions_key)
        return kept if kept is not None and len(kept) == len(self.plan.steps) else None

    def _recall_arena(self, facts: Optional[FactsCache]) -> None:
        """The arena placement an earlier process kept for a plan of the same content (where each
        buffer went: :mod:`.memory_plan`), to be checked and used by :meth:`_allocate` instead of
        searching again; :attr:`memory_recalled` says whether it was."""
        self._arena_key = self._kept_arena = None
        self.memory_recalled = False
        if facts is not None and self._plan_id is not None and self.use_arena:
            self._arena_key = question_id(MEMORY_PLAN, (self._plan_id,))
            self._kept_arena = facts.decoded.get(MEMORY_PLAN, {}).get(self._arena_key)

    def _negotiation_key(self) -> Optional[str]:
        """The content :meth:`_negotiate` depends on, as a question id: per step its operator,
        kind, parameters, constants' shapes and dtypes, and its tensors' ids, shapes, dtypes
        and owning buffers; the backend. None where a parameter has no canonical text. A plan
        this runner read and lowered itself is that content's function of the file and the
        reading and lowering code: then the file's sha256 and a stamp of that code stand for it
        (the same key at a fraction of the cost: no walk over every step)."""
        if self.model_cache is not None:
            try:
                return question_id(NEGOTIATED_PLAN, ("lowered file", self.backend.name, self.plan.model.sha256,
                                                     lowering_code_identity()))
            except OSError:  # the sources are not readable: key by the content itself
                pass
        plan, t = self.plan, self.plan.model.tensors
        root = {v.tensor: plan.root(v.tensor) for v in plan.views}
        content = (self.backend.name, tuple(
            (s.op_index, s.kind, s.params, tuple((r, tuple(v.shape), v.dtype) for r, v in s.constants),
             tuple((i, tuple(t[i].shape), t[i].dtype, root.get(i, i)) for i in _tensor_ids(s) if i is not None))
            for s in plan.steps))
        try:
            return question_id(NEGOTIATED_PLAN, content)
        except TypeError:  # a parameter with no canonical text: negotiate every time
            return None

    def _negotiate(self):
        """Padding each step's function asks for, per buffer (shapes only, no memory)."""
        plan = self.plan
        shapes = _DenseShapes(plan.model.tensors)  # each tensor's described when a step first names it
        asked: Dict[int, List[Tuple[int, str, PaddingSize]]] = {}
        const_pad: List[Dict[str, PaddingSize]] = []
        refused: Dict[int, str] = {}  # every refusal of this pass (the fallback takes them at once)
        for k, s in enumerate(plan.steps):
            self._session.step = k
            cls = ROLES[s.kind]
            consts = {role: ShapeDescriptor.dense(v.shape, v.dtype) for role, v in s.constants}
            operands = _operands(s, shapes, consts)
            try:
                need = cls.required_padding(*operands, **_kwargs(s), data_layout="NHWC", backend=self.backend)
            except AclStatusError as e:
                if not self.fallback:
                    raise AclRefusedError({s.op_index: _refused(s, operands, e)}) from e
                refused[s.op_index] = _refused(s, operands, e)
                const_pad.append({})
                continue
            const_pad.append({role: need[role] for role, _ in s.constants})
            for role, tid in zip(cls.roles, _tensor_ids(s)):
                if tid is not None:
                    asked.setdefault(plan.root(tid), []).append((s.op_index, role, need[role]))
        self._session.step = None
        _raise_refused(refused)
        return asked, const_pad

    def _allocate(self, asked) -> None:
        """A buffer per owning tensor with the union of the padding asked for it: with the
        arena, intermediates in slots of one allocation placed by lifetime
        (:mod:`.memory_plan`), graph inputs and outputs in allocations of their own."""
        t = self.plan.model.tensors
        self.buffer_plans: Dict[int, BufferPlan] = {}
        descriptors: Dict[int, ShapeDescriptor] = {}
        for b in self.plan.buffers():
            pad = PaddingSize()
            has_views = b in self.roots_with_views
            if not has_views:
                for *_, p in asked.get(b, ()):
                    pad = pad.union(p)
            pad = pad.for_rank(len(t[b].shape))
            self.buffer_plans[b] = BufferPlan(b, t[b].name, tuple(t[b].shape), pad, tuple(asked.get(b, ())), has_views)
            descriptors[b] = padded_descriptor(tuple(t[b].shape), t[b].dtype, pad)  # the model's dtype
        owned: Dict[int, NdArray] = {}
        if self.use_arena:
            sizes = {b: d.alloc_size_in_bytes + BRIDGE_SLACK_IN_BYTES for b, d in descriptors.items()}
            self.memory = plan_memory(self.plan.for_memory_plan(), sizes, kept=self._kept_arena)
            # the kept placement, when it is one of these buffers (checked: every buffer, aligned,
            # no two alive at one step sharing a byte), else placed afresh (and kept at save)
            self.memory_recalled = self._kept_arena is not None and [
                (s.tensor, s.offset_in_bytes) for s in self.memory.slots] == list(self._kept_arena)
            self.arena = bridge_allocate(ShapeDescriptor.create((max(self.memory.arena_size_in_bytes, 1),), "uint8"))
            for slot in self.memory.slots:
                owned[slot.tensor] = bridge_slot(self.arena, slot.offset_in_bytes, descriptors[slot.tensor])
        for b, d in descriptors.items():
            if b not in owned:
                owned[b] = bridge_allocate(d)
        self.arrays: Dict[int, NdArray] = self.plan.bind(owned)

    def memory_report(self) -> Dict[str, object]:
        """Bytes this model holds: activations (the arena, or one buffer per tensor; the lower
        bound: the most bytes alive at one step), graph inputs and outputs, constants as the
        file has them and as the bridge hands them to ACL, and the process's resident memory
        now (ACL's prepared weights are inside that figure only). Workspaces: the pools of
        ACL's memory managers (one shared by every function, or one per function with
        ``share_workspaces=False``); scratch tensors of functions whose ACL constructor takes
        no memory manager are not in it."""
        lives, pinned = lifetimes(self.plan.for_memory_plan())
        arena_tensors = {life.tensor for life in lives}
        own = {b: a.allocation.nbytes + BRIDGE_SLACK_IN_BYTES for b, a in self.arrays.items() if b in self.buffer_plans}
        if self.memory is not None:
            activations = self.memory.arena_size_in_bytes
            bound = self.memory.lower_bound_in_bytes
            one_each = self.memory.total_size_in_bytes
        else:
            # the same figures as the arena's: sizes rounded up to its alignment (each
            # allocation is that aligned), so the two runners' reports compare exactly
            sizes = {b: n for b, n in own.items() if b in arena_tensors}
            alone = place([(life, sizes[life.tensor]) for life in lives])
            one_each = activations = alone.total_size_in_bytes
            bound = alone.lower_bound_in_bytes
        model = self.plan.model
        file_constants = sum(int(t.data.nbytes) for t in model.tensors if t.data is not None)
        unused = self.constants_marked_unused()
        # each allocation once (the model's memory of a constant two functions read is one)
        given = {a.allocation.ctypes.data: a for consts in self.constants for a in consts.values()}.values()
        copied = sum(a.allocation.nbytes for a in given if origin_of(a) is Origin.BRIDGE)
        shared = sum(a.allocation.nbytes for a in given if origin_of(a) is not Origin.BRIDGE)
        return {
            "arena": self.use_arena,
            "activations_bytes": activations,
            "activations_lower_bound_bytes": bound,
            "activations_one_buffer_each_bytes": one_each,
            "inputs_outputs_bytes": sum(n for b, n in own.items() if b in pinned),
            "workspaces_shared": self.share_workspaces,
            "workspaces_bytes": self.workspace_bytes,
            "functions_in_workspaces": sum(w.report().functions for w in self.workspaces),
            "constants_in_file_bytes": file_constants,
            "constants_given_to_acl_bytes": copied + shared,
            # of those, the bridge's own padded copies, and the model's own memory given in place
            "constants_copied_bytes": copied,
            "constants_shared_bytes": shared,
            # after the first inference (ACL prepares there): the bridge's constants that ACL
            # marked unused (ITensor::is_used), by function kind; kept (see constants_marked_unused)
            "constants_marked_unused_bytes": None if unused is None else sum(unused.values()),
            "constants_marked_unused_by_kind": unused,
            "resident_bytes": resident_bytes(),
        }

    def constants_marked_unused(self) -> Optional[Dict[str, int]]:
        """Bytes of the constants handed to ACL that ACL marked unused (``ITensor::is_used``)
        after preparing a copy of its own (reshaped or transformed weights), by function
        kind; None before the first inference, where ACL prepares. ACL's mark is its claim,
        not a promise the bridge can act on: ACL 24.11 marks the int32 bias of an int8
        depthwise convolution unused and still reads it at run (a runner that let go of it gave
        wrong outputs once the memory was reused: docs/performance.md, "Model memory"), so the
        bridge keeps every constant and this figure is an upper bound of what ACL prepared."""
        if self._first_run_seconds is None:
            return None
        out: Dict[str, int] = {}
        for f, consts in zip(self.functions, self.constants):
            configured = f._configured
            if configured is None:
                continue
            for role in consts:
                t = configured.tensors.get(role)
                if t is not None and not t.used_by_acl:
                    out[f.kind] = out.get(f.kind, 0) + consts[role].allocation.nbytes
        return out

    def _configure(self, const_pad, allow_copy: bool, decided=None) -> None:
        """Every step's function on the buffers: with a kept decision for every step, all in
        one native call (:func:`~acl_bridge.configure_batch.configure_kept`); else, or
        where that refuses (:attr:`batch_refused` says why), one at a time."""
        plan = self.plan
        self.constants: List[Dict[str, NdArray]] = []
        calls = []
        roots_with_views = self.roots_with_views
        for k, (s, cpad) in enumerate(zip(plan.steps, const_pad)):
            self._session.step = k
            cls = ROLES[s.kind]
            consts = {role: self._constant(cls, role, value, cpad[role]) for role, value in s.constants}
            shared = any(plan.root(tid) in roots_with_views for tid in _tensor_ids(s) if tid is not None)
            calls.append((s, _operands(s, self.arrays, consts),
                          dict(_kwargs(s), data_layout="NHWC", allow_copy=allow_copy,
                               allow_padding_writes=not shared, backend=self.backend)))
            self.constants.append(consts)
        self._session.step = None
        self.batch_refused: Optional[str] = None
        self.functions_batched = 0  # made in one native call (a second start's, or a first start's: configure_cold)
        cold = decided is None and self.share_workspaces and self.batch_first_start
        if cold:  # a first start: every function decided first, then made as a second start makes them
            decided, why = decide_calls([(ROLES[s.kind], tuple(operands), kwargs) for s, operands, kwargs in calls],
                                        self._session_step)
            self._session.step = None
            self.batch_refused = why or None
        if decided is not None and self.share_workspaces:
            self.workspaces = [Workspace(self.backend)]
            for _, _, kwargs in calls:  # (a refused batch's one-at-a-time path gives its own)
                kwargs["workspace"] = self.workspaces[0]
            functions, why = configure_kept([(ROLES[s.kind], tuple(operands), kwargs)
                                             for s, operands, kwargs in calls], decided)
            self.batch_refused = why or None
            if functions is not None:
                self.functions = functions
                self.functions_batched = len(functions)
                functions.recalled = not cold
                self.functions_recalled = 0 if cold else len(functions)
                for k, seconds in enumerate(functions.seconds):  # the configure profile's steps
                    self._session.step_seconds[k]["configure"] += seconds
                return
        elif decided is not None:
            self.batch_refused = "a workspace per function (share_workspaces=False): one native call takes one"
        made: List[F.AclFunction] = []
        refused: Dict[int, str] = {}  # every refusal of this pass (the fallback takes them at once)
        self.functions = made
        # a fresh workspace: a refused batch may have joined functions to the last one
        self.workspaces = [Workspace(self.backend)] if self.share_workspaces else []
        for k, (s, operands, kwargs) in enumerate(calls):
            self._session.step = k
            if not self.share_workspaces:
                self.workspaces.append(Workspace(self.backend))
            try:
                f = ROLES[s.kind](*operands, **dict(kwargs, workspace=self.workspaces[-1]),
                                  decided=None if decided is None or cold else decided[k])
            except AclStatusError as e:
                if not self.fallback:
                    raise AclRefusedError({s.op_index: _refused(s, operands, e)}) from e
                refused[s.op_index] = _refused(s, operands, e)
                continue
            made.append(f)
        self._session.step = None
        _raise_refused(refused)
        # functions made from a kept decision (nothing described, negotiated, planned or probed)
        self.functions_recalled = sum(f.decision_recalled for f in made)

    def _session_step(self, k: Optional[int]) -> None:
        self._session.step = k

    def _constant(self, cls, role: str, value: np.ndarray, padding: PaddingSize) -> NdArray:
        """The NdArray a step's constant is handed to ACL in: the model's own memory (no copy)
        where ACL takes the role as ``const ITensor *`` (it writes none of its bytes: the
        planner needs no probe for it), asked for no padding, and the value is dense and
        element-aligned; else a bridge-owned copy with the negotiated padding."""
        # no padding it can have (PaddingSize.for_rank: a 1-D tensor has no top or bottom)
        unpadded = not (padding.right or padding.left or value.ndim >= 2 and (padding.top or padding.bottom))
        if (self.share_constants and role in cls.const_roles and unpadded and value.size
                and value.flags.c_contiguous and value.flags.aligned):
            # its own bytes only, dense (not NdArray.from_numpy, which would describe it as a
            # padded view of the whole file it lies in): a third of the cost, and a dense
            # constant ACL takes as const needs no probe
            return NdArray(value.reshape(-1).view(np.uint8), ShapeDescriptor.dense(value.shape, value.dtype))
        a = F.AclFunction.padded_empty(value.shape, value.dtype, padding.for_rank(value.ndim))
        a.numpy()[...] = value
        return a

    def _padding_still_missing(self):
        """{buffer or (step, constant role): ((op index, role), padding)} for tensors a function
        staged only for want of padding a buffer of our own could have had."""
        grow = {}
        for k, (s, plan) in enumerate(zip(self.plan.steps, self.function_plans())):
            ids = dict(zip(ROLES[s.kind].roles, _tensor_ids(s)))
            for tp in plan.tensors:
                if tp.reason not in (Reason.PADDING_MISSING, Reason.RENEGOTIATED):
                    continue
                tid = ids.get(tp.role)
                key = (k, tp.role) if tid is None else self.plan.root(tid)
                if tid is not None and key in self.roots_with_views:
                    continue  # a view: no padding to give (the copy stays, counted)
                old = grow.get(key, ((s.op_index, tp.role), PaddingSize()))[1]
                grow[key] = ((s.op_index, tp.role), old.union(tp.padding))
        return grow

    # ------------------------------------------------------------------ facts
    @property
    def input_shape(self) -> Tuple[int, ...]:
        return tuple(self.plan.model.tensors[self.input_index].shape)

    @property
    def input_dtype(self) -> np.dtype:
        """The model's input dtype (int8 for a full-integer model): run() takes exactly it."""
        return np.dtype(self.plan.model.tensors[self.input_index].dtype)

    def staged(self) -> List[Tuple[int, str, str, Tuple[str, ...]]]:
        """(operator index, opcode, bridge kind, staged roles) of every function that copies."""
        return [(s.op_index, s.opcode, s.kind, p.staged) for s, p in zip(self.plan.steps, self.function_plans())
                if p.staged]

    @property
    def copied_bytes_per_inference(self) -> Dict[str, int]:
        """Bytes one :meth:`run` copies: the input, bridge staging, explicit copy steps (with
        the requantizing steps into a concatenation: they too move a tensor where no view
        could be)."""
        staging = 0
        for k, plan in enumerate(self.function_plans()):
            for t in plan.tensors:
                if t.copies_per_run:
                    a = self.functions[k].arrays[t.role]
                    staging += t.copies_per_run * a.descriptor.size * a.dtype.itemsize
        t = self.plan.model.tensors
        copies = sum(int(np.prod(t[s.inputs[0]].shape)) * t[s.inputs[0]].dtype.itemsize
                     for s in self.plan.steps if _places(s))
        inp = sum(int(np.prod(t[i].shape)) * t[i].dtype.itemsize for i in self.plan.model.inputs)
        out = {"input": inp, "staged": staging, "copy_steps": copies, "total": inp + staging + copies}
        if self.plan.fallbacks:  # what the boundaries between ACL and the fallback copy (SegmentedRun)
            out["fallback_boundaries"] = self.schedule.copied_bytes_per_run
            out["total"] += out["fallback_boundaries"]
        return out

    # ------------------------------------------------------------------ running
    def run(self, x=None) -> Dict[str, np.ndarray]:
        """One inference. ``x``: the input (shape :attr:`input_shape`, dtype
        :attr:`input_dtype`: nothing is cast), or for a model with several inputs a sequence
        in the graph's order or a dict by input name; copied into the input buffers. ``None``
        runs on what :attr:`input_arrays` hold. Returns read-only views of the output
        buffers by tensor name, in the model's dtypes (overwritten by the next run)."""
        if x is not None:
            for i, value in graph_inputs(self.plan.model, x).items():  # dtype and shape checked there
                self.input_arrays[i].numpy()[...] = value
        self.run_in_place()
        return self.outputs()

    def run_in_place(self) -> None:
        """One inference on what the input buffers hold, its results left in the output
        buffers (:meth:`run` without the input's copy or the outputs' views)."""
        if self._first_run_seconds is None:  # the first inference: ACL prepares weights there
            t0 = time.perf_counter()
            self.schedule.run()
            self._first_run_seconds = time.perf_counter() - t0
        else:
            self.schedule.run()

    def profile(self, rounds: int = 5) -> OperatorProfile:
        """Per ACL function, its time in an inference (:mod:`.operator_profile`): ``rounds``
        runs of the schedule on what :attr:`input_array` holds, each function timed inside
        the native layer (:meth:`Schedule.profile`). The first inference runs before, untimed
        here (it prepares weights: :meth:`configure_profile` has it)."""
        if self._first_run_seconds is None:
            self.run()
        seconds = self.schedule.profile(rounds)
        shapes = {t.index: tuple(t.shape) for t in self.plan.model.tensors}
        rows = tuple(FunctionTime(k, s.op_index, s.opcode, s.kind,
                                  tuple(shapes[i] for i in (*s.inputs, s.output) if i in shapes), seconds[k])
                     for k, s in enumerate(self.plan.steps))
        return OperatorProfile(self.model_name, self.backend.name, len(seconds[0]) if seconds else rounds, rows)

    def segment_profile(self, rounds: int = 5) -> Tuple[SegmentTime, ...]:
        """Per segment (ACL functions in one native call, or fallback operators), its mean
        seconds in an inference over ``rounds`` runs on what the input buffers hold (a model
        without fallback operators is one ACL segment)."""
        if self._first_run_seconds is None:
            self.run()
        if isinstance(self.schedule, SegmentedRun):
            return self.schedule.profile_segments(rounds)
        t0 = time.perf_counter()
        for _ in range(rounds):
            self.schedule.run()
        ops = tuple((s.op_index, s.opcode) for s in self.plan.steps)
        return (SegmentTime(0, "acl", ops, (time.perf_counter() - t0) / max(rounds, 1)),)

    def fallback_operators(self) -> List[Dict[str, object]]:
        """Every operator on the CPU fallback: its index, opcode, why it is not on ACL (the
        partition's kind: ``custom``, ``no rule``, ``refused by the rule``, ``refused by
        ACL``) and the reason's text."""
        return [{"operator": f.op_index, "opcode": f.opcode, "kind": f.kind, "reason": f.reason}
                for f in self.plan.fallbacks]

    def configure_profile(self) -> ConfigureProfile:
        """Where this model's start-up time went (:mod:`.configure_profile`): the phases of the
        load with their native calls, every step's native seconds, and the first inference
        once it has run."""
        steps = []
        shapes = {t.index: tuple(t.shape) for t in self.plan.model.tensors}
        for k, s in enumerate(self.plan.steps):
            native = self._session.step_seconds.get(k, {})
            steps.append(StepTime(k, s.op_index, s.opcode, s.kind,
                                  tuple(shapes[i] for i in (*s.inputs, s.output) if i in shapes),
                                  sum(native.values()), tuple((c, native[c]) for c in CATEGORIES if c in native)))
        return ConfigureProfile(self.model_name, self.backend.name, self.reuse_facts, len(self.plan.steps),
                                self._phases.rows(), tuple(steps), self._first_run_seconds,
                                self.functions_recalled)

    def outputs(self) -> Dict[str, np.ndarray]:
        out = {}
        for i in self.plan.model.outputs:
            v = self.arrays[i].numpy().view()
            v.flags.writeable = False
            out[self.plan.model.tensors[i].name] = v
        return out

    def function_plans(self) -> Tuple[FunctionPlan, ...]:
        """Every step's function plan (what stays in place, what is staged, why), without
        making the objects of functions made in one batch (:attr:`functions`)."""
        f = self.functions
        return f.plans if isinstance(f, RecalledFunctions) else tuple(x.plan for x in f)

    def _close_functions(self) -> None:
        if isinstance(self.functions, RecalledFunctions):
            self.functions.close()  # their objects, or where none were made the native functions
        else:
            for f in self.functions:
                f.close()
        self.functions = []

    def close(self) -> None:
        self._close_functions()
        self.schedule = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def padded_buffers(self) -> str:
        """'name shape (top, right, bottom, left)' of each buffer that has padding."""
        return "; ".join(f"{b.name} {list(b.shape)} {b.padding.as_tuple()}"
                         for b in self.buffer_plans.values() if any(b.padding.as_tuple()))

    def summary(self) -> str:
        counts = {}
        for s in self.plan.steps:
            counts[s.kind] = counts.get(s.kind, 0) + 1
        padded = sum(1 for b in self.buffer_plans.values() if any(b.padding.as_tuple()))
        c = self.copied_bytes_per_inference
        cache = "" if self.program_cache is None else (
            f"; program cache {self.program_cache.state} ({self.program_cache.programs_restored} restored, "
            f"{self.program_cache.programs_saved} saved)")
        if self.model_cache is not None:
            kept_plan = self.model_cache.reason == "lowered plan kept"
            cache += f"; {'lowered-plan' if kept_plan else 'parsed-model'} cache {self.model_cache.state}"
        if self.facts_cache is not None:
            cache += f"; ACL's answers {self.facts_cache.state} ({self.facts_cache.answers} kept, {self.facts_cache.saved} saved)"
        fallback = ""
        if self.plan.fallbacks:
            acl_segments, _ = self.schedule.segment_count
            fallback = (f"; {len(self.plan.fallbacks)} operator(s) on the CPU fallback, {acl_segments} ACL segment(s): "
                        + ", ".join(f"#{f.op_index} {f.opcode} ({f.kind})" for f in self.plan.fallbacks))
        return (f"{len(self.plan.model.operators)} operators -> {len(self.functions)} ACL {self.backend.name} "
                f"functions {counts} "
                f"({len(self.plan.fused)} activations fused, {len(self.plan.folded_pads)} PADs folded, "
                f"{len(self.plan.views)} views); "
                f"{len(self.buffer_plans)} buffers, {padded} padded ({self.padded_buffers()}), "
                f"{self.renegotiations} renegotiation(s); {self.schedule.native_calls_per_run} native "
                f"call(s) per inference; copied per inference: {c['total']} bytes "
                f"(input {c['input']}, staged {c['staged']}, copy steps {c['copy_steps']}); "
                f"configured in {self.configure_seconds:.2f} s{cache}{fallback}")


__all__ = ["TfliteRunner", "BufferPlan", "ConfigureProfile", "OperatorProfile"]
