"""Lower a TFLite graph to a frozen plan of bridge function calls (pure Python, any machine).

Decide, then act (design habit 14): :func:`plan_model` turns a :class:`ModelSpec` into a
:class:`Plan`: which bridge function runs for each operator, with which parameters, and
how every tensor lies in memory (its own buffer, or a view of another tensor's). Executors
(:mod:`..runtime.tflite_runner` on ACL, :mod:`.numpy_executor` on the host) only carry it out.

Lowering (NHWC throughout, as TFLite stores it) is a table: one rule per opcode in
:mod:`.lowering.rules` (CONV_2D -> ``convolution``, PAD -> ``pad``...; TFLite's SAME padding
made explicit in :func:`.lowering.helpers.same_padding`). :func:`plan_model` first runs every
operator's type gate (an opcode without a rule is refused there, naming it), then every rule
in graph order, then what spans operators:

* views (:func:`_views`): RESHAPE is a view, the output is the input's buffer with a new
  shape (or the input is a view of the output's, when the output is already a view, e.g. a
  concatenation slice). CONCATENATION: every input is a slice of the output's buffer along
  the axis, so its producer writes straight into the output (zero copy); an input that
  cannot be a view (a graph input, a constant, one used twice) gets a counted ``copy`` step
  into its slice. SPLIT, SPLIT_V and unit-step slices along one axis (:class:`Slice`): the
  output is the part of the input's buffer (its consumers read it there), or, where it
  cannot be a view (a graph output, already a view), its strided-slice step;
* intermediates (:func:`_add_intermediates`): a tensor a rule needs that the model has not
  (MEAN without keep_dims pools into (N, 1, 1, C), the (N, C) output a reshape view of it)
  is appended to the plan's model (``Plan.model``: the file's tensors, then these), named
  after the tensor whose dtype and quantization it takes;
* fusion (:func:`_fuse_activations`): a RELU-like operator whose input has no other reader
  and is no graph output is fused into the convolution producing it (ACL fuses activations
  into convolutions), or else runs in place on its input's buffer; after the channel PADs are
  folded (:func:`_fold_channel_pads`, which reads those in-place activations), a clamp in place
  on exactly an addition's, subtraction's or multiplication's output becomes that step's fused
  activation (:func:`_fuse_clamps_into_arithmetic`: one function, which on NEON runs ACL's activation
  in place after ACL's arithmetic).

Constant DEQUANTIZE was expanded at load time (:func:`fold_constant_dequantize`); anything
the rules cannot run is refused here, naming the operator and the option
(:class:`UnsupportedModelError`).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple, Union

import numpy as np

from ..lowering import SUPPORTED, Concatenate, Intermediate, Lowered, Reshape, Slice, Step
from ..lowering.partition import Decision, partition
from ..lowering.step import Params, slice_index  # noqa: F401  (slice_index: the executors import it from here)
from ..format.tflite_reader import ModelSpec, TensorSpec, UnsupportedModelError
from .constant_folding import fold_constants

# bridge functions whose ACL function takes a fused activation (the arithmetic's: TAKES_CLAMP)
FUSES_ACTIVATION = ("convolution", "depthwise", "fully_connected")
# bridge functions that take a clamp of their output made apart, in place, in the same function
# (native/acl_shim_arithmetic.cpp), and the activations that are such clamps
TAKES_CLAMP = ("add", "sub", "mul")
CLAMPS = ("relu", "bounded_relu", "lu_bounded_relu")


@dataclass(frozen=True)
class View:
    """``tensor`` lies in ``parent``'s memory: ``("alias",)`` (the same array),
    ``("reshape",)`` (same elements, new shape) or ``("slice", axis, start)`` (the part of
    ``parent`` from ``start`` along ``axis``)."""

    tensor: int
    parent: int
    how: Tuple[Union[str, int], ...]


@dataclass(frozen=True)
class Fallback:
    """Operator ``op_index`` runs on the CPU fallback (:mod:`.fallback`), not on ACL:
    ``inputs`` and ``outputs`` as the operator's (-1: an absent optional input), ``reason``
    why (:func:`.lowering.partition.decide`: its ``kind`` and text)."""

    op_index: int
    opcode: str
    inputs: Tuple[int, ...]
    outputs: Tuple[int, ...]
    kind: str
    reason: str

    def tensors(self) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
        """(tensors read, tensors written): the live inputs, the outputs."""
        return tuple(i for i in self.inputs if i >= 0), tuple(self.outputs)


@dataclass(frozen=True)
class Plan:
    model: ModelSpec
    steps: Tuple[Step, ...]
    views: Tuple[View, ...]
    fused: Tuple[int, ...]  # operator indices folded into their producer
    # views that leave their root's padding where it is: the channel slices of folded PADs
    # (the first channels of a buffer padded around its channels and width are a view of it,
    # whatever that padding), so the root may still get the padding its functions ask for
    padding_kept: Tuple[int, ...] = ()
    # (PAD operator, the ADD operator it was folded into): _fold_channel_pads
    folded_pads: Tuple[Tuple[int, int], ...] = ()
    # operators on the CPU fallback, in graph order (:mod:`.lowering.partition`); () for a
    # model that lowers whole, whose plan is then what it was before partitioning existed
    fallbacks: Tuple[Fallback, ...] = ()

    def order(self) -> Tuple[Union[Step, Fallback], ...]:
        """Steps and fallback operators in execution order (by operator index: TFLite stores
        operators in execution order, and a step runs where its operator stood)."""
        if not self.fallbacks:
            return self.steps
        merged: List[Union[Step, Fallback]] = []
        fb = list(self.fallbacks)
        for s in self.steps:
            while fb and fb[0].op_index < s.op_index:
                merged.append(fb.pop(0))
            merged.append(s)
        return tuple(merged + fb)

    def segments(self) -> Tuple[Tuple[str, Tuple[int, ...]], ...]:
        """("acl", indices into :attr:`steps`) or ("fallback", indices into
        :attr:`fallbacks`) per run of consecutive entries of :meth:`order` on one side."""
        out: List[Tuple[str, List[int]]] = []
        k_step = k_fb = 0
        for x in self.order():
            side = "fallback" if isinstance(x, Fallback) else "acl"
            if side == "acl":
                k, k_step = k_step, k_step + 1
            else:
                k, k_fb = k_fb, k_fb + 1
            if out and out[-1][0] == side:
                out[-1][1].append(k)
            else:
                out.append((side, [k]))
        return tuple((side, tuple(ks)) for side, ks in out)

    def for_memory_plan(self) -> "Plan":
        """This plan with every fallback operator as a step of kind ``"fallback"`` in its
        place (reading its live inputs and its outputs after the first, writing the first),
        so that the memory planner (:mod:`.memory_plan`, which reads steps) keeps alive every
        buffer a fallback operator touches; the plan itself when it has none."""
        if not self.fallbacks:
            return self
        steps = []
        for x in self.order():
            if isinstance(x, Fallback):
                reads, writes = x.tensors()
                x = Step(x.op_index, x.opcode, "fallback", reads + writes[1:], writes[0])
            steps.append(x)
        return dataclasses.replace(self, steps=tuple(steps), fallbacks=())

    def view_of(self) -> Dict[int, View]:
        return dict(self._views_by_tensor)

    @functools.cached_property
    def _views_by_tensor(self) -> Dict[int, View]:
        """{tensor: its view}, made once (:meth:`root` is asked for every tensor of every step)."""
        return {v.tensor: v for v in self.views}

    def root(self, t: int) -> int:
        views = self._views_by_tensor
        while t in views:
            t = views[t].parent
        return t

    def bind(self, owned: Dict[int, Any]) -> Dict[int, Any]:
        """Arrays for every tensor of the plan, given arrays for the tensors that own memory
        (:meth:`buffers`): views made with the arrays' own ``reshape`` and slicing (numpy
        arrays and NdArrays alike; an NdArray refuses a reshape its padding does not allow)."""
        views, tensors = self._views_by_tensor, self.model.tensors
        out = dict(owned)

        def get(t: int) -> Any:
            if t not in out:
                v = views[t]
                p = get(v.parent)
                if v.how[0] == "alias":  # the same buffer (an in-place activation's output)
                    out[t] = p
                elif v.how[0] == "reshape":
                    out[t] = p.reshape(tuple(tensors[t].shape))
                else:
                    shape = tensors[t].shape
                    axis, start = int(v.how[1]), int(v.how[2])
                    out[t] = p[slice_index(len(shape), axis, start, shape[axis])]
            return out[t]

        for t in views:
            get(t)
        return out

    def buffers(self) -> Tuple[int, ...]:
        """Tensors that own memory: graph inputs and every computed tensor that is no view."""
        views = self.view_of()
        used = set(self.model.inputs) | set(self.model.outputs)
        for s in self.steps:
            used.update(s.inputs)
            used.update(s.written)
        for f in self.fallbacks:
            reads, writes = f.tensors()
            used.update(reads)
            used.update(writes)
        return tuple(sorted(t for t in used if t not in views and not self.model.tensors[t].is_constant))


def graph_inputs(model: ModelSpec, x: Any) -> Dict[int, np.ndarray]:
    """{graph input tensor: array} for what a caller passes to run: one array (a model with
    one input), a sequence of arrays in the graph's input order, or a mapping from input
    tensor name to array (every input named once). Each array must have its tensor's dtype
    and shape exactly: nothing is cast or broadcast. InvalidLayoutError (count, names,
    shape) or ArgumentTypeError (dtype) naming the input, what it is and what is expected."""
    from ndarray import ArgumentTypeError, InvalidLayoutError

    names = [model.tensors[i].name for i in model.inputs]
    if isinstance(x, Mapping):
        unknown = sorted(set(map(str, x)) - set(names))
        missing = [n for n in names if n not in x]
        if unknown or missing:
            raise InvalidLayoutError(
                f"inputs are named {sorted(map(str, x))}, the model's are {names}"
                + (f" (unknown: {unknown})" if unknown else "") + (f" (missing: {missing})" if missing else ""))
        given = {i: x[n] for i, n in zip(model.inputs, names)}
    elif isinstance(x, (list, tuple)):
        if len(x) != len(names):
            raise InvalidLayoutError(f"{len(x)} inputs given, the model has {len(names)}: {names}")
        given = dict(zip(model.inputs, x))
    elif len(names) != 1:
        raise InvalidLayoutError(f"one array given, the model has {len(names)} inputs: {names} (pass a sequence in "
                                 f"this order or a dict by name)")
    else:
        given = {model.inputs[0]: x}
    checked: Dict[int, np.ndarray] = {}
    for i, value in given.items():
        spec, value = model.tensors[i], np.asarray(value)
        what = f"input {spec.name!r}" if len(names) > 1 else "input"
        if value.dtype != spec.dtype:
            raise ArgumentTypeError(
                f"{what} has dtype {value.dtype}, the model's input is {np.dtype(spec.dtype)}{list(spec.shape)}: "
                f"nothing is cast (convert it yourself, e.g. x.astype(np.{np.dtype(spec.dtype)}))")
        if tuple(value.shape) != tuple(spec.shape):
            raise InvalidLayoutError(f"{what} has shape {tuple(value.shape)}, the model expects {tuple(spec.shape)}: "
                                     f"nothing is broadcast or reshaped")
        checked[i] = value
    return checked


def _views(model: ModelSpec, consumers: Dict[int, List[int]],
           placements: Sequence[Union[Reshape, Concatenate, Slice]]) -> Tuple[Tuple[View, ...], Tuple[Step, ...]]:
    """Views for the rules' placements (RESHAPE, CONCATENATION), and the copy steps where a
    view is impossible. Concatenations first: their inputs become slices of the output, so
    that a reshape feeding one becomes a view of its slice."""
    t = model.tensors
    parent: Dict[int, View] = {}
    copies: List[Step] = []
    fixed = set(model.inputs)

    def root(i: int) -> int:
        while i in parent:
            i = parent[i].parent
        return i

    for c in placements:
        if not isinstance(c, Concatenate):
            continue
        for i, start in c.parts:
            how: Tuple[Union[str, int], ...] = ("slice", c.axis, start)
            q = _copy_quantization(model, i, c.output)
            if q and dict(q[0][1])["src"] != dict(q[0][1])["dst"]:  # another scale: a requantizing step
                copies.append(Step(c.op_index, c.opcode, "quantize", (i,), -1,
                                   (("into", c.output), ("slice", how)) + q))
            elif i in fixed or t[i].is_constant or i in parent or len(consumers.get(i, ())) > 1 or i in model.outputs:
                copies.append(Step(c.op_index, c.opcode, "copy", (i,), -1, (("into", c.output), ("slice", how)) + q))
            else:
                parent[i] = View(i, c.output, how)
    for r in placements:
        if not isinstance(r, Reshape):
            continue
        src, out = r.source, r.output
        if out not in parent and root(src) != out:
            parent[out] = View(out, src, ("reshape",))
        elif src not in parent and src not in fixed and not t[src].is_constant and root(out) != src \
                and len(consumers.get(src, ())) == 1:
            parent[src] = View(src, out, ("reshape",))
        else:
            copies.append(Step(r.op_index, r.opcode, "copy", (src,), out, (("reshape", True),)
                               + _copy_quantization(model, src, out, same=True)))
    for s in placements:  # a slice read by its consumers in its source's buffer, else its step
        if not isinstance(s, Slice):
            continue
        if s.output in parent or s.output in fixed or s.output in model.outputs or root(s.source) == s.output:
            copies.append(s.step)
        else:
            parent[s.output] = View(s.output, s.source, ("slice", s.axis, s.start))
    return tuple(parent.values()), tuple(copies)


def _copy_quantization(model: ModelSpec, src: int, dst: int, same: bool = False) -> Tuple[Tuple[str, object], ...]:
    """The ``quantization`` parameter of a copy between quantized tensors (none for float32);
    ``same``: the destination takes the source's (RESHAPE: TFLite copies the bytes, whatever
    the output's quantization says)."""
    t = model.tensors
    qs, qd = t[src].quantization, t[dst].quantization
    if qs is None or qd is None or not qs.scale or not qd.scale:
        return ()
    sq = (float(qs.scale[0]), int(qs.zero_point[0]) if qs.zero_point else 0)
    dq = sq if same else (float(qd.scale[0]), int(qd.zero_point[0]) if qd.zero_point else 0)
    return (("quantization", (("src", sq), ("dst", dq))),)


def plan_model(model: ModelSpec, *, fallback: bool = False, acl_refused: Mapping[int, str] = {}) -> Plan:
    """The plan for ``model`` (after :func:`fold_constant_dequantize`), or UnsupportedModelError.

    Every operator is decided by :func:`.lowering.partition.decide` (its rule's tensor-type
    gate, then the rule; ``acl_refused``: operators ACL's validate() refused on the runner,
    by index, with the text). ``fallback=False``: the first operator that does not lower
    refuses the model (its reason; every type gate runs before any rule). ``fallback=True``: it
    runs on the CPU fallback (:attr:`Plan.fallbacks`), and the model is refused only where
    the fallback cannot run an operator either, naming every such operator at once. Operators
    whose inputs are all known at load are computed first (:func:`.constant_folding.fold_constants`)."""
    model = fold_constants(model)
    consumers: Dict[int, List[int]] = {}
    for op in model.operators:
        for i in op.inputs:
            if i >= 0:
                consumers.setdefault(i, []).append(op.index)
    decisions = partition(model, acl_refused, strict=not fallback)
    fallbacks = _fallbacks(model, [d for d in decisions if not d.on_acl])
    lowered: List[Lowered] = []
    extra: List[TensorSpec] = []
    for d in decisions:
        if d.lowered is not None:
            lowered += _add_intermediates(model, d.lowered, extra, consumers)
    if extra:
        model = dataclasses.replace(model, tensors=tuple(model.tensors) + tuple(extra))
    steps = [x for x in lowered if isinstance(x, Step)]
    views, copies = _views(model, consumers, [x for x in lowered if isinstance(x, (Reshape, Concatenate, Slice))])
    op_indices = {s.op_index for s in steps}
    steps, aliases = _fuse_activations(steps, consumers, model, {v.tensor for v in views})
    views = views + tuple(aliases)
    steps, folded, pad_views, slices = _fold_channel_pads(steps, model, views,
                                                          {i for f in fallbacks for i in f.tensors()[0]})
    steps = _fuse_clamps_into_arithmetic(steps)
    fused = tuple(sorted(op_indices - {s.op_index for s in steps} - {pad for pad, _ in folded}))
    if slices:
        model = dataclasses.replace(model, tensors=tuple(model.tensors) + tuple(slices))
    views = views + tuple(pad_views)
    # TFLite stores operators in execution order; a copy runs where its operator stood
    ordered = sorted(list(steps) + list(copies), key=lambda s: s.op_index)
    return Plan(model, tuple(ordered), views, fused, tuple(v.tensor for v in pad_views if v.how[0] == "slice"),
                tuple(folded), fallbacks)


def _fallbacks(model: ModelSpec, refused: Sequence[Decision]) -> Tuple[Fallback, ...]:
    """The plan's fallback operators, or UnsupportedModelError naming every operator that
    the fallback cannot run either (with why ACL does not and why the fallback does not)."""
    from ..fallback import unsupported

    ops = {op.index: op for op in model.operators}
    neither = []
    for d in refused:
        why = unsupported(ops[d.op_index], model)
        if why is not None:
            neither.append(f"operator #{d.op_index} {d.opcode} ({why}; not on ACL: {d.kind})")
    if neither:
        raise UnsupportedModelError(f"{len(neither)} operator(s) run neither on ACL nor on the CPU fallback: "
                                    + "; ".join(neither))
    return tuple(Fallback(d.op_index, d.opcode, tuple(ops[d.op_index].inputs), tuple(ops[d.op_index].outputs),
                          d.kind, d.reason) for d in refused)


def _add_intermediates(model: ModelSpec, lowered: Sequence[Lowered], extra: List[TensorSpec],
                       consumers: Dict[int, List[int]]) -> List[Lowered]:
    """One rule's result with its :class:`Intermediate` tensors appended to ``extra`` (index:
    after the model's tensors and the earlier ones) and their placeholder keys replaced by
    those indices; the operator counts as the reader of each (its placement reads it)."""
    ids: Dict[int, int] = {}
    for x in lowered:
        if isinstance(x, Intermediate):
            like = model.tensors[x.like]
            index = len(model.tensors) + len(extra)
            extra.append(TensorSpec(index, f"{like.name}/{'x'.join(map(str, x.shape))}", tuple(x.shape), like.dtype,
                                    None, like.quantization))
            ids[x.key] = index
            consumers.setdefault(index, []).append(x.op_index)
    if not ids:
        return list(lowered)

    def renumber(t: int) -> int:
        return ids.get(t, t)

    out: List[Lowered] = []
    for x in lowered:
        if isinstance(x, Step):
            out.append(dataclasses.replace(x, inputs=tuple(map(renumber, x.inputs)), output=renumber(x.output)))
        elif isinstance(x, Reshape):
            out.append(dataclasses.replace(x, source=renumber(x.source), output=renumber(x.output)))
        elif isinstance(x, Concatenate):
            out.append(dataclasses.replace(x, output=renumber(x.output),
                                           parts=tuple((renumber(i), k) for i, k in x.parts)))
        elif isinstance(x, Slice):
            step = dataclasses.replace(x.step, inputs=tuple(map(renumber, x.step.inputs)), output=renumber(x.step.output))
            out.append(dataclasses.replace(x, source=renumber(x.source), output=renumber(x.output), step=step))
    return out


def _fuse_activations(steps: List[Step], consumers: Dict[int, List[int]], model: ModelSpec,
                      viewed: Set[int]) -> Tuple[List[Step], List[View]]:
    """Fold each activation whose input has no other reader (and is no graph output) into its
    producer: into a convolution's own activation, or else (ACL's addition takes no fused
    activation: "act_info.enabled()" in 24.11) as an in-place activation on the producer's
    buffer, the activation's output being an alias of its input."""
    by_output = {s.output: k for k, s in enumerate(steps)}
    out = list(steps)
    aliases: List[View] = []
    dropped: Set[int] = set()
    for k, s in enumerate(steps):
        if s.kind != "activation" or s.param("in_place"):  # in place already: a rule's own (ADD's fused one)
            continue
        src = s.inputs[0]
        p = by_output.get(src)
        if p is None or p in dropped or len(consumers.get(src, ())) != 1 or src in model.outputs:
            continue
        prod = out[p]
        q = dict(s.param("quantization") or ())
        if q and q.get("src") != q.get("dst"):  # an int8 activation that requantizes: a step of its own
            continue
        if prod.kind in FUSES_ACTIVATION and prod.param("activation") is None \
                and s.param("function") != "logistic":
            out[p] = Step(prod.op_index, prod.opcode + "+" + s.opcode, prod.kind, prod.inputs, s.output,
                          prod.params + _as_fused(s), prod.constants)
            by_output[s.output] = p
            dropped.add(k)
        elif s.output not in viewed:  # in place: ACL's activation accepts dst identical to src
            out[k] = Step(s.op_index, s.opcode, s.kind, s.inputs, src, s.params + (("in_place", True),))
            aliases.append(View(s.output, src, ("alias",)))
    return [s for k, s in enumerate(out) if k not in dropped], aliases


def _as_fused(activation: Step) -> Params:
    """An activation step's function as the fused-activation parameters of its producer."""
    return (("activation", activation.param("function")), ("act_a", activation.param("a")),
            ("act_b", activation.param("b")))


def _fuse_clamps_into_arithmetic(steps: List[Step]) -> List[Step]:
    """Each in-place clamp (:data:`CLAMPS`) on exactly the output of an addition, subtraction
    or multiplication (:data:`TAKES_CLAMP`) made just before it with no fused activation of its
    own becomes that step's fused activation (its operator then fused): the step's output is
    read by nothing in between (the clamp's input has it as its only reader, or the clamp is
    the operator's own fused activation) and keeps one quantization through the clamp (an int8
    clamp that requantizes stays a step)."""
    out: List[Step] = []
    for s in steps:
        prev = out[-1] if out else None
        if s.kind == "activation" and s.param("in_place") and s.param("function") in CLAMPS \
                and prev is not None and prev.kind in TAKES_CLAMP and prev.param("activation") is None \
                and s.inputs == (prev.output,):
            q, pq = dict(s.param("quantization") or ()), dict(prev.param("quantization") or ())
            if q.get("src") == q.get("dst") == pq.get("dst"):
                opcode = prev.opcode if s.op_index == prev.op_index else prev.opcode + "+" + s.opcode
                out[-1] = Step(prev.op_index, opcode, prev.kind, prev.inputs, prev.output, prev.params + _as_fused(s),
                               prev.constants)
                continue
        out.append(s)
    return out


def _fold_channel_pads(steps: List[Step], model: ModelSpec, views: Sequence[View], fallback_reads: Set[int] = set()
                       ) -> Tuple[List[Step], List[Tuple[int, int]], List[View], List[TensorSpec]]:
    """Fold a PAD that widens the channels into the ADD that reads it: ``o = pad(x) + y``
    (zeros after x's C channels, float32) is, channel by channel, ``x + y`` for the first C
    and ``y`` itself for the rest. So the sum is made in place in y's own buffer, on the view
    of its first C channels (a new tensor of the plan), and ``o`` is an alias of ``y``: the
    PAD step goes, the ADD reads and writes C channels instead of C + k, nothing is copied
    (the residual blocks of the MediaPipe face models, which widen x before adding it).

    Only where nothing else can see the difference: the PAD's output and y are read by that
    ADD alone, y is made by a convolution (a dense buffer of its own, no padding asked on
    NHWC) and is no graph output, no view and viewed by nothing, and o is no graph output and
    no view, viewed only by in-place activations (which then run on all C + k channels, as on
    o). Returns the steps, (PAD operator, ADD operator) per fold, the new views and the new
    tensors (after the model's)."""
    if not any(s.kind == "pad" for s in steps):  # (nothing to fold: no table of readers made)
        return steps, [], [], []
    t = model.tensors
    readers: Dict[int, List[int]] = {}
    for k, s in enumerate(steps):
        for i in s.inputs:
            readers.setdefault(i, []).append(k)
    producer = {s.output: k for k, s in enumerate(steps) if s.output >= 0}
    is_view = {v.tensor for v in views}
    parents: Dict[int, Set[str]] = {}
    for v in views:
        parents.setdefault(v.parent, set()).add(str(v.how[0]))
    graph = set(model.inputs) | set(model.outputs)
    out: List[Optional[Step]] = list(steps)
    folded: List[Tuple[int, int]] = []
    new_views: List[View] = []
    slices: List[TensorSpec] = []
    for k, s in enumerate(steps):
        if s.kind != "pad" or s.param("quantization") is not None:
            continue
        *outer, last = s.param("pad_width")  # type: ignore[misc]
        if any(tuple(w) != (0, 0) for w in outer) or last[0] != 0 or last[1] <= 0:
            continue
        x, p = s.inputs[0], s.output
        if p in graph or p in is_view or p in parents or len(readers.get(p, ())) != 1 or p in fallback_reads:
            continue
        a = readers[p][0]
        add = out[a]
        if add is None or add.kind != "add" or add.param("quantization") is not None or add.constants \
                or add.param("activation") is not None or len(add.inputs) != 2 or p not in add.inputs:
            continue
        y, o = add.inputs[1] if add.inputs[0] == p else add.inputs[0], add.output
        if y in (p, x) or y in graph or y in is_view or y in parents or t[y].is_constant or y in fallback_reads \
                or len(readers.get(y, ())) != 1 or y not in producer or steps[producer[y]].kind != "convolution":
            continue
        if o in graph or o in is_view or parents.get(o, set()) - {"alias"} or o in (x, y):
            continue
        ys = TensorSpec(len(t) + len(slices), f"{t[y].name}/channels:{t[x].shape[-1]}", tuple(t[x].shape),
                        t[y].dtype, None, t[y].quantization)
        slices.append(ys)
        out[k] = None
        out[a] = Step(add.op_index, s.opcode + "+" + add.opcode, "add",
                      tuple(x if i == p else ys.index for i in add.inputs), ys.index, add.params)
        new_views += [View(ys.index, y, ("slice", len(t[y].shape) - 1, 0)), View(o, y, ("alias",))]
        folded.append((s.op_index, add.op_index))
    return [s for s in out if s is not None], folded, new_views, slices


__all__ = ["Step", "View", "Fallback", "Plan", "plan_model", "graph_inputs", "slice_index", "SUPPORTED"]
