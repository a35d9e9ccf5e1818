"""Run a TFLite model on the bridge's ACL functions: NHWC, configure once, run many.

This module holds the runner's options, the load's order and the inference; each job of the
load is a module of its own: a step as its function's call (:mod:`.step_calls`), the padding
negotiation (:mod:`.negotiation`), the buffers, arena and constants (:mod:`.buffers`), what is
kept between processes and recalled (:mod:`.kept_answers`), the load's phases
(:class:`~..profiling.configure_profile.LoadPhases`), ACL segments with the CPU fallback
between them (:mod:`.segments`), and the numpy backend (:mod:`.numpy_backend`).

Loading (:class:`TfliteRunner`) does everything once:

1. read and plan the model (:mod:`.tflite_reader`, :mod:`.tflite_plan`); unsupported
   operators or options are refused here, naming them. The parsed model is kept by content
   between processes (:mod:`.model_cache`; ``model_cache=False`` turns it off, a directory
   puts it elsewhere; :attr:`TfliteRunner.model_cache` reports what it did), and so is the
   lowered plan (:mod:`.plan_cache`, in the same directory): a second start reads the plan
   whole, parses and lowers nothing and imports no ``tflite`` package. What a load keeps is
   encoded and written once its first result is made (or at :meth:`TfliteRunner.wait_kept`,
   ``close``, a read of the same file, the interpreter's exit), by a background writer
   (:mod:`acl_bridge.keep_writer`, ``keep_in_background``: :attr:`TfliteRunner.kept_pending`);
2. padding negotiation: every step asks ACL (``Cls.required_padding`` on shapes only) which
   padding each of its tensors needs; a tensor's buffer gets the union over every function
   that reads or writes it (``PaddingSize.union``), so no function has to stage it. Where the
   ACL's kernels ask none (NEON, and CL on NHWC, from ACL 24.11: ``native.kernels_ask_padding``) a first start
   that makes its functions in one native call asks nothing and binds no step here (zero
   padding everywhere: ``negotiation.unasked``): the decision pass binds each step once and that
   call's validate() checks them all; a refusal of either negotiates as above;
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
(:mod:`acl_bridge.configure_batch`; :attr:`TfliteRunner.functions_recalled`; a function whose
plan stages a tensor is made one at a time beside it, on a first start too): ACL's validate()
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
import gc
import os
import time
import warnings
from contextlib import contextmanager
from dataclasses import replace
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ndarray import NdArray
from ndarray.errors import ArgumentTypeError

from ... import functions as F
from ...backend import backend_named
from ...cl_program_cache import CacheReport
from ...decisions import code_identity
from ...configure_batch import RecalledFunctions, configure_kept
from ...configure_beside import MadeBeside
from ...configure_cold import beside_worthwhile, decide_calls
from ...configure_session import (CATEGORIES, CONFIGURED_PLAN, MEMORY_PLAN, NEGOTIATED_PLAN, ConfigureSession,
                                 question_id)
from ...errors import AclError, AclStatusError, AclUnavailableError, AclUnsupportedError
from ...facts_cache import FactsCache, FactsCacheReport, FactsCacheWarning
from ...facts_cache import identity as facts_identity
from ...user_cache import check_cache_option
from ...mapping import PaddingSize, clear_description_caches
from ...plan import FunctionPlan
from ...schedule import Schedule
from ...workspace import Workspace
from ..profiling.configure_profile import ConfigureProfile, LoadPhases, StepTime
from ..planning.memory_plan import MemoryPlan
from ..format.model_cache import ModelCacheReport, ModelCacheWarning, read_model_cached
from ..planning.plan_cache import kept_report, read_plan_cached
from ..planning.replanned_cache import ReplannedPlanCache, refused_by_acl
from ..profiling.operator_profile import FunctionTime, OperatorProfile
from .segments import SegmentedRun, SegmentTime
from ..fallback.tflite_segments import SegmentBinder, check_engine, describe
from .boundary_memory import interpreter_memory
from ..planning.tflite_plan import Plan, graph_inputs, plan_model
from ..format.tflite_reader import ModelSpec, UnsupportedModelError, fold_constant_dequantize, model_bytes
from .cl_maps import cl_maps_per_inference
from .buffers import BufferPlan, allocate, constant_array, constants_marked_unused, memory_report
from .function_kinds import ROLES
from .kept_answers import (KeptFiles, answers_kept, encode_kept, keeps_in_background, layout_code_identity, open_facts,
                           restore_programs)
from .negotiation import (MAX_RENEGOTIATIONS, STEP_DATA_LAYOUT, UncheckedRefused, asks_acl, negotiate,
                          negotiation_key, padding_still_missing, unasked)
from .step_calls import AclRefusedError, call_kwargs, places, raise_refused, refusal, step_operands, tensor_ids

# what a kept file's report says in a fork's child, whose writes its parent makes (keep_writer)
_WRITTEN_BY_PARENT = "written by the process that forked this one"


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a load runs, then as it was: a load makes
    tens of thousands of objects, none of them garbage cycles to collect early, and the
    collections the allocations would trigger walk them again and again (a first start's
    generation-1 collection alone took 5-7 ms of ~100 ms natively, more under emulation). After
    it, the objects still young (the load's, which live as long as the runner) are moved into the
    oldest generation (``gc.freeze`` then ``gc.unfreeze``, two list splices) instead of walked by
    the first collection after it (3-5 ms of a first start under emulation); not where the
    caller has frozen objects of its own (unfreezing would let go of them too)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def decisions_key(plan_id: str, allow_copy: bool, share_constants: bool, use_arena: bool) -> Optional[str]:
    """The key of a load's decisions in the facts cache: its plan's (``plan_id``), its options
    and the deciding code's stamps (:func:`~acl_bridge.decisions.code_identity`,
    :func:`.kept_answers.layout_code_identity`); None where those sources cannot be read
    (nothing to key decisions by)."""
    try:
        code = code_identity() + layout_code_identity()
    except OSError:
        return None
    return question_id(CONFIGURED_PLAN, (plan_id, allow_copy, share_constants, use_arena, code))


class TfliteRunner:
    """A TFLite model configured once on ACL functions over NdArrays. ``backend``: "neon" (the
    default), "cl", "numpy" (the same plan on numpy kernels, any machine: a
    :class:`~.numpy_backend.NumpyRunner` is made) or "auto" (NEON where ACL's NEON functions
    load, else numpy)."""

    def __new__(cls, *args, backend="neon", **kwargs):
        # (the ACL backends by name import nothing: the numpy runner's module is a first start's cost)
        if cls is TfliteRunner and not (type(backend) is str and backend in ("neon", "cl")):
            from .numpy_backend import NumpyRunner, resolve_backend

            if resolve_backend(backend) == "numpy":
                return NumpyRunner.__new__(NumpyRunner)
        return super().__new__(cls)

    # a first start decides every function, then makes them all in one native call
    # (acl_bridge.configure_cold); False: one at a time (what the decisions are compared with)
    batch_first_start = True

    def __init__(self, model, *, allow_copy: bool = True, backend="neon", program_cache=True,
                 arena: Optional[bool] = None, reuse_facts: bool = True, share_workspaces: bool = True,
                 model_cache=True, share_constants: bool = True, facts_cache=True, fallback: bool = True,
                 fallback_engine: str = "auto", keep_in_background: Optional[bool] = None):
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
        # what runs each fallback segment: numpy kernels, TFLite's interpreter on the segment cut
        # from the file, or "auto" (:mod:`..fallback.tflite_segments`)
        self.fallback_engine = check_engine(fallback_engine)
        self._fallback_source = None if isinstance(model, (Plan, ModelSpec)) else (
            lambda: self._model_read[0] if self._model_read is not None else model_bytes(model))
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
        # the files this load keeps (plan, ACL's answers), written after its first inference by
        # the background writer (:attr:`kept_pending`, :meth:`wait_kept`), or during the load
        # (False; None: the environment)
        self._kept_files = KeptFiles(keeps_in_background(keep_in_background))
        self._session = ConfigureSession(reuse=reuse_facts)
        self._phases = LoadPhases(self._session)
        self._first_run_seconds: Optional[float] = None
        self.model_name = (os.path.basename(os.fspath(model)) if isinstance(model, (str, os.PathLike))
                           else type(model).__name__)
        loaded = False
        try:
            with self._session.active(), collector_paused():
                self._load_or_cold(model, program_cache, allow_copy, model_cache, facts_cache)
            loaded = True
        finally:
            self._session.forget()  # the answers were for this load only; the times stay
            clear_description_caches()  # the same for the descriptions kept by content
            if loaded:  # its files written once the first result is made (run, run_in_place)
                self._kept_files.start_when_gone(self)
            else:  # a failed load: its files written now
                self._kept_files.start()

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
            used = [name for name, report in (("the kept plan or parsed model", self._model_cache_report),
                                              ("ACL's kept answers", self._facts_cache_report))
                    if report is not None and report.state == "warm"]
            if not used:
                raise
            if hasattr(self, "functions"):
                self._close_functions()
            self.workspaces = []
            self._kept_files.results_ignored()  # (their files are written; the reports are the cold start's)
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
                    self._kept_files.add([replanned.path], functools.partial(replanned.keep, self.plan),
                                         ModelCacheWarning, lambda why: None)
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
                else:  # its constant DEQUANTIZEs folded; kept in the plan's file (below) where plans are kept
                    spec, self.model_cache = read_model_cached(
                        data, model_cache, dequantized=True, keep=plans is None,
                        model_md5=None if plans is None else plans.key["model_md5"])  # type: ignore[arg-type]
            if kept_plan is None:
                with phase("lower"):  # and kept for the next start (encoded, read back, compared, written)
                    self._replan_from = spec
                    plan = plan_model(spec, fallback=self.fallback)
                    if plans is not None:
                        self._kept_files.add([plans.path], functools.partial(plans.keep, plan), ModelCacheWarning,
                                             self._plan_kept)
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
            if decided is not None and self._unchecked:  # kept decisions: made on a checked negotiation
                asked, const_pad = self._negotiate_checked()
            self._recall_arena(facts)
        # a fallback segment's boundary tensor lives in its interpreter's memory where no padding is
        # asked for it (boundary_memory); on NEON only (CL's buffers are its own). The segments'
        # interpreters are loaded here, before the buffers (counted with the schedule, as before)
        with phase("schedule"):
            binder = SegmentBinder(self.fallback_engine, self._fallback_source)
            self._interpreter_memory = interpreter_memory(plan, binder) if self.backend.name == "neon" else {}
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
                try:
                    self._configure(const_pad, allow_copy, decided if attempt == 0 else None)
                except UncheckedRefused:  # negotiated again as one at a time negotiates, and configured
                    self._close_functions()  # (any made before the refusal: functions staging a tensor)
                    asked, const_pad = self._negotiate_checked()
                    self._allocate(asked)
                    self._configure(const_pad, allow_copy, None)
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
            self.schedule = SegmentedRun(plan, self.functions, self.arrays, binder) \
                if plan.fallbacks else Schedule(self.functions)
        self.configure_seconds = time.perf_counter() - t0
        if cache is not None:
            cache.save()
            self.program_cache = cache.report
        if facts is not None:  # what the load learnt, taken now, encoded and written later
            kept = answers_kept(self)
            self._kept_files.add([facts.path], lambda: facts.keep(encode_kept(kept)), FactsCacheWarning,
                                 self._answers_kept)
        self.input_index = plan.model.inputs[0]
        self.input_array: NdArray = self.arrays[self.input_index]
        # every graph input's buffer, by tensor (a model with several inputs: run() takes them all)
        self.input_arrays: Dict[int, NdArray] = {i: self.arrays[i] for i in plan.model.inputs}
        self.output_names = tuple(plan.model.tensors[i].name for i in plan.model.outputs)

    # ------------------------------------------------------------------ kept files
    _kept_files: Optional[KeptFiles] = None
    _model_cache_report: Optional[ModelCacheReport] = None
    _facts_cache_report: Optional[FactsCacheReport] = None

    @property
    def model_cache(self) -> Optional[ModelCacheReport]:
        """What the parsed-model and lowered-plan caches did for this load (None: given a spec
        or plan); read, it waits for this runner's kept files (:meth:`wait_kept`)."""
        self.wait_kept(stacklevel=3)
        return self._model_cache_report

    @model_cache.setter
    def model_cache(self, report: Optional[ModelCacheReport]) -> None:
        self._model_cache_report = report

    @property
    def facts_cache(self) -> Optional[FactsCacheReport]:
        """What the cache of ACL's answers did for this load (None: a numpy runner); read, it
        waits for this runner's kept files (:meth:`wait_kept`)."""
        self.wait_kept(stacklevel=3)
        return self._facts_cache_report

    @facts_cache.setter
    def facts_cache(self, report: Optional[FactsCacheReport]) -> None:
        self._facts_cache_report = report

    @property
    def kept_pending(self) -> bool:
        """Whether a file this load keeps (its lowered plan, ACL's answers) is not written yet
        (the background writer: :mod:`acl_bridge.keep_writer`)."""
        return self._kept_files is not None and self._kept_files.pending

    def wait_kept(self, stacklevel: int = 2) -> None:
        """Return once the files this load keeps are written (or failed), their results in
        :attr:`model_cache` and :attr:`facts_cache` and their warnings
        (:class:`~..format.model_cache.ModelCacheWarning`,
        :class:`~acl_bridge.facts_cache.FactsCacheWarning`) issued here, on the caller's
        thread. :meth:`close`, the end of a ``with`` block and reading those reports wait too;
        the interpreter waits for every pending file at exit."""
        if self._kept_files is not None:
            self._kept_files.settle(stacklevel + 1)

    def _plan_kept(self, why: object) -> None:
        report = self._model_cache_report
        why = _WRITTEN_BY_PARENT if why is None else why
        if report is not None:
            self._model_cache_report = replace(report, reason=f"{report.reason}; {why}")

    def _answers_kept(self, result: object) -> None:
        saved, why = result if result is not None else (0, _WRITTEN_BY_PARENT)
        report = self._facts_cache_report
        if report is not None:
            self._facts_cache_report = replace(report, saved=saved,
                                               reason="; ".join(r for r in (report.reason, why) if r))

    def _restore_programs(self, program_cache):
        """:func:`.kept_answers.restore_programs`; the cache, or None (NEON, or off)."""
        cache, report = restore_programs(self.backend.name, program_cache)
        self.program_cache: Optional[CacheReport] = report
        return cache

    def _open_facts(self, facts_cache) -> Optional[FactsCache]:
        """:func:`.kept_answers.open_facts`; the cache, or None (off)."""
        facts, report = open_facts(self.plan.model.md5, self.backend.name, facts_cache, self.reuse_facts,
                                   self._session)
        self.facts_cache: Optional[FactsCacheReport] = report
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
        self._bound: Optional[list] = None  # per step, the negotiation's binding (configure_cold.Bound)
        self._unchecked = False  # negotiated without validate() on each step's layouts (:meth:`_negotiate`)
        self._unasked = False  # no step bound nor ACL asked: the decision pass binds (:meth:`_negotiate`)
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
        spell = functools.partial(decisions_key, self._plan_id, bool(allow_copy), self.share_constants, self.use_arena)
        # none kept (a first start): the key is spelled where they are kept, on the writer's thread
        # (the deciding code's stamps are no cost of the load); ``in``, not the answers' length,
        # which would decode every kept decision
        if CONFIGURED_PLAN not in facts.decoded:
            self._decisions_key = spell
            return None
        self._decisions_key = spell()
        if self._decisions_key is None:
            return None
        kept = facts.decoded[CONFIGURED_PLAN].get(self._decisions_key)
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
        """:func:`.negotiation.negotiation_key` of this load's plan (keyed by the file where the
        runner read and lowered the plan itself)."""
        return negotiation_key(self.plan, self.backend.name, self._model_cache_report is not None)

    def _negotiate(self, checks: Optional[bool] = None):
        """:func:`.negotiation.negotiate` of this load's plan, each step's binding kept for the
        decision pass. ``checks`` (None: where the functions are not to be decided first and
        made in one native call, which answers validate() on the final layouts): validate()
        asked on each step's negotiated layouts. Where it would ask ACL nothing
        (:func:`.negotiation.asks_acl`): :func:`.negotiation.unasked` (no step bound here; the
        decision pass binds each once, asking nothing)."""
        if checks is None:
            checks = not (self.share_workspaces and self.batch_first_start)
        self._unchecked = not checks
        self._unasked = not asks_acl(self.backend.name, checks)
        if self._unasked:  # nothing to ask: each step bound once, by the decision pass
            self._bound = None
            return unasked(self.plan)
        self._bound = []
        return negotiate(self.plan, self._session, self.backend, self.fallback, checks, self._bound)

    def _negotiate_checked(self):
        """:meth:`_negotiate` again with validate() asked on each step's layouts (ACL's answers
        of the first pass reused), kept as the negotiation made."""
        made = self._negotiate(checks=True)
        if self._negotiation_made is not None:
            self._negotiation_made = (self._negotiation_made[0], made)
        return made

    def _allocate(self, asked) -> None:
        """The buffers (:func:`.buffers.allocate`) for what the negotiation ``asked``."""
        b = allocate(self.plan, asked, self.roots_with_views, self.use_arena, self._kept_arena,
                     self._interpreter_memory)
        self.buffer_plans, self.arrays = b.buffer_plans, b.arrays
        if b.memory is not None:
            self.memory, self.memory_recalled, self.arena = b.memory, b.memory_recalled, b.arena

    def memory_report(self) -> Dict[str, object]:
        """:func:`.buffers.memory_report`: the bytes this model holds."""
        return memory_report(self)

    def constants_marked_unused(self) -> Optional[Dict[str, int]]:
        """:func:`.buffers.constants_marked_unused`: constants ACL marked unused, by kind."""
        return constants_marked_unused(self)

    def _configure(self, const_pad, allow_copy: bool, decided=None) -> None:
        """Every step's function on the buffers: with a decision for every step (kept, or made
        by a first start's decision pass), those whose plan stages nothing all in one native
        call (:func:`~acl_bridge.configure_batch.configure_kept`) and the staging ones one at a
        time; else, or where that call refuses (:attr:`batch_refused` says why), one at a time."""
        plan = self.plan
        self.constants: List[Dict[str, NdArray]] = []
        calls = []
        roots_with_views = self.roots_with_views
        for k, (s, cpad) in enumerate(zip(plan.steps, const_pad)):
            self._session.step = k
            cls = ROLES[s.kind]
            consts = {role: self._constant(cls, role, value, cpad[role]) for role, value in s.constants}
            shared = bool(roots_with_views) and any(plan.root(tid) in roots_with_views
                                                    for tid in tensor_ids(s) if tid is not None)
            calls.append((s, step_operands(s, self.arrays, consts),
                          dict(call_kwargs(s), data_layout=STEP_DATA_LAYOUT, allow_copy=allow_copy,
                               allow_padding_writes=not shared, backend=self.backend)))
            self.constants.append(consts)
        self._session.step = None
        self.batch_refused: Optional[str] = None
        self.functions_batched = 0  # made in one native call (a second start's, or a first start's: configure_cold)
        if not calls:  # every operator on the fallback: no function to make, in a batch or alone
            decided = None
        cold = bool(calls) and decided is None and self.share_workspaces and self.batch_first_start
        beside: Optional[MadeBeside] = None
        batch: Sequence[int] = ()
        functions: Optional[RecalledFunctions] = None
        try:
            if cold:  # a first start: every function decided first, then made as a second start makes them
                if beside_worthwhile(padding_asked=not self._unasked):  # made in pieces while the pass goes on
                    self.workspaces = [Workspace(self.backend)]
                    beside = MadeBeside([(ROLES[s.kind], tuple(operands), dict(kwargs, workspace=self.workspaces[0]))
                                         for s, operands, kwargs in calls])
                try:
                    decided, why = decide_calls([(ROLES[s.kind], tuple(operands), kwargs)
                                                 for s, operands, kwargs in calls],
                                                self._session_step, self._bound, padding_asked=not self._unasked,
                                                made_beside=beside)
                finally:
                    if beside is not None and decided is None:
                        beside.close()  # (what was made is let go: the one-at-a-time path has a fresh workspace)
                self._session.step = None
                self.batch_refused = why or None
                if decided is None and self._unchecked:
                    raise UncheckedRefused(why)
            if decided is not None and self.share_workspaces:
                if beside is None:
                    self.workspaces = [Workspace(self.backend)]
                for _, _, kwargs in calls:  # (a refused batch's one-at-a-time path gives its own)
                    kwargs["workspace"] = self.workspaces[0]
                # a staging plan's copies run in Python around its function: made alone, below
                batch = [k for k, d in enumerate(decided) if d is not None and not d.plan.staged]
                if len(batch) < len(calls):  # (a first start's pass said why of the first; kept decisions say it here)
                    first = next(k for k, d in enumerate(decided) if d is None or d.plan.staged)
                    why = self.batch_refused or (f"function {first}: {calls[first][0].kind}: its plan stages "
                                                 f"{list(decided[first].plan.staged)}")
                    self.batch_refused = (f"{len(calls) - len(batch)} of {len(calls)} functions made one at a time, "
                                          f"their plans staging a tensor ({why})")
                if batch:
                    functions, why = beside.made(batch) if beside is not None else configure_kept(
                        [(ROLES[calls[k][0].kind], tuple(calls[k][1]), calls[k][2]) for k in batch],
                        [decided[k] for k in batch], decided_here=cold)
                    if functions is None:
                        self.batch_refused = why or None
                        batch = ()
                        if cold and self._unchecked:
                            raise UncheckedRefused(why)
            elif decided is not None:
                self.batch_refused = "a workspace per function (share_workspaces=False): one native call takes one"
        finally:
            if beside is not None:  # (made() closed it where it ran; else, or on any error, nothing made is kept)
                beside.close()
        if functions is not None:
            self.functions_batched = len(functions)
            functions.recalled = not cold
            for k, seconds in zip(batch, functions.seconds):  # the configure profile's steps
                self._session.step_seconds[k]["configure"] += seconds
            if len(batch) == len(calls):
                self.functions = functions
                self.functions_recalled = 0 if cold else len(functions)
                return
        # one at a time: every function, or those the one native call did not make (each
        # staging function, with its kept decision where there is one), in order with the others
        made: List[F.AclFunction] = []
        refused: Dict[int, str] = {}  # every refusal of this pass (the fallback takes them at once)
        self.functions = made
        batched = dict(zip(batch, functions.made())) if functions is not None else {}
        if functions is None:  # a fresh workspace: a refused batch may have joined functions to the last one
            self.workspaces = [Workspace(self.backend)] if self.share_workspaces else []
        for k, (s, operands, kwargs) in enumerate(calls):
            if k in batched:
                made.append(batched[k])
                continue
            self._session.step = k
            if not self.share_workspaces:
                self.workspaces.append(Workspace(self.backend))
            try:
                f = ROLES[s.kind](*operands, **dict(kwargs, workspace=self.workspaces[-1]),
                                  decided=None if decided is None or cold else decided[k])
            except (AclStatusError, AclUnsupportedError) as e:  # refused, or the kind not in this ACL
                if cold and self._unchecked:  # (a staging function: negotiated again, asking, as a refused batch)
                    raise UncheckedRefused(f"function {k}: {e}") from e
                if not self.fallback:
                    raise AclRefusedError({s.op_index: refusal(s, operands, e)}) from e
                refused[s.op_index] = refusal(s, operands, e)
                continue
            made.append(f)
        self._session.step = None
        raise_refused(refused)
        # functions made from a kept decision (nothing described, negotiated, planned or probed)
        self.functions_recalled = sum(f.decision_recalled for f in made)

    def _session_step(self, k: Optional[int]) -> None:
        self._session.step = k

    def _constant(self, cls, role: str, value: np.ndarray, padding: PaddingSize) -> NdArray:
        return constant_array(cls, role, value, padding, self.share_constants)

    def _padding_still_missing(self):
        return padding_still_missing(self.plan, self.function_plans(), self.roots_with_views)

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
                     for s in self.plan.steps if places(s))
        inp = sum(int(np.prod(t[i].shape)) * t[i].dtype.itemsize for i in self.plan.model.inputs)
        out = {"input": inp, "staged": staging, "copy_steps": copies, "total": inp + staging + copies}
        if self.plan.fallbacks:  # what the boundaries between ACL and the fallback copy (SegmentedRun)
            out["fallback_boundaries"] = self.schedule.copied_bytes_per_run
            out["total"] += out["fallback_boundaries"]
        return out

    @property
    def cl_maps_per_inference(self) -> Dict[str, int]:
        """:func:`.cl_maps.cl_maps_per_inference`: the CL buffers one :meth:`run` maps and
        unmaps, in all and at the boundaries with the CPU fallback (zero off OpenCL)."""
        if self.backend.name != "cl":
            return {"total": 0, "fallback_boundaries": 0}
        return cl_maps_per_inference(self.plan, self.functions)

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
        if self._first_run_seconds is not None:
            self.schedule.run()
            return self.outputs()
        try:  # the first result: the load's files written once its outputs are made
            self._first_run()
            return self.outputs()
        finally:
            self._release_kept()

    def run_in_place(self) -> None:
        """One inference on what the input buffers hold, its results left in the output
        buffers (:meth:`run` without the input's copy or the outputs' views)."""
        if self._first_run_seconds is not None:
            self.schedule.run()
            return
        try:
            self._first_run()
        finally:
            self._release_kept()

    def _first_run(self) -> None:
        """The first inference (ACL prepares weights there), timed for :meth:`configure_profile`."""
        t0 = time.perf_counter()
        self.schedule.run()
        self._first_run_seconds = time.perf_counter() - t0

    def _release_kept(self) -> None:
        """The load's held files handed to the background writer (after the first result: its
        thread's start and its Python would otherwise share the interpreter with the outputs'
        making; docs/performance.md Part 19)."""
        if self._kept_files is not None:
            self._kept_files.start()

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
        """Wait for the kept files (:meth:`wait_kept`), then let every function go."""
        try:
            self.wait_kept(stacklevel=3)
        finally:  # (a warning raised as an error still lets them go)
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
                        + ", ".join(f"#{f.op_index} {f.opcode} ({f.kind})" for f in self.plan.fallbacks)
                        + describe(self.schedule.fallback_engines))
            if self.backend.name == "cl":
                maps = self.cl_maps_per_inference
                fallback += (f"; CL buffers mapped per inference: {maps['total']} ({maps['fallback_boundaries']} "
                             f"at fallback boundaries)")
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
