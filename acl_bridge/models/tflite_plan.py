"""Lower a TFLite graph to a frozen plan of bridge function calls (pure Python, any machine).

Decide, then act (design habit 14): :func:`plan_model` turns a :class:`ModelSpec` into a
:class:`Plan`: which bridge function runs for each operator, with which parameters, and
how every tensor lies in memory (its own buffer, or a view of another tensor's). Executors
(:mod:`.tflite_runner` on ACL, :mod:`.numpy_executor` on the host) only carry it out.

Lowering (NHWC throughout, as TFLite stores it):

* CONV_2D -> ``convolution`` (weights OHWI as in TFLite = the bridge's NHWC layout),
  DEPTHWISE_CONV_2D -> ``depthwise`` (weights 1xHxWx(C*M) -> HxWx(C*M)),
  ADD -> ``add``, RELU/RELU6/RELU_N1_TO_1/TANH/LOGISTIC -> ``activation``, PAD -> ``pad``,
  MAX_POOL_2D/AVERAGE_POOL_2D -> ``pooling``, SOFTMAX -> ``softmax``,
  RESIZE_BILINEAR -> ``resize`` (bilinear; align_corners / half_pixel_centers as TFLite's
  options; the size input must be a constant equal to the output's height and width),
  PRELU -> ``prelu`` (a constant alpha, broadcast to the input's rank as numpy would).
* TFLite's SAME padding is explicit here: total = max((out - 1) * stride + kernel - in, 0),
  before = total // 2, after = total - before (TFLite's ``ComputePaddingHeightWidth``).
* A RELU-like operator whose input has no other reader and is no graph output is fused into
  the convolution producing it (ACL fuses activations into convolutions), or else runs in
  place on its input's buffer (ACL's addition takes no fused activation).
* RESHAPE is a view: the output is the input's buffer with a new shape (or the input is a
  view of the output's, when the output is already a view, e.g. a concatenation slice).
* CONCATENATION: every input is a slice of the output's buffer along the axis, so its
  producer writes straight into the output (zero copy); an input that cannot be a view
  (a graph input, a constant, one used twice) gets a counted ``copy`` step into its slice.
* Constant DEQUANTIZE was expanded at load time (:func:`fold_constant_dequantize`); anything
  else is refused here, naming the operator and the option (:class:`UnsupportedModelError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from .tflite_reader import ModelFormatError, ModelSpec, OperatorSpec, UnsupportedModelError

# TFLite fused activation -> (bridge activation, a, b)
FUSED = {None: None, "RELU": ("relu", 0.0, 0.0), "RELU6": ("bounded_relu", 6.0, 0.0),
         "RELU_N1_TO_1": ("lu_bounded_relu", 1.0, -1.0), "TANH": ("tanh", 1.0, 1.0)}
ACTIVATION_OPS = {"RELU": "RELU", "RELU6": "RELU6", "RELU_N1_TO_1": "RELU_N1_TO_1", "TANH": "TANH",
                  "LOGISTIC": None}
SUPPORTED = ("CONV_2D", "DEPTHWISE_CONV_2D", "ADD", "RELU", "RELU6", "RELU_N1_TO_1", "TANH", "LOGISTIC",
             "PAD", "MAX_POOL_2D", "AVERAGE_POOL_2D", "SOFTMAX", "RESHAPE", "CONCATENATION", "RESIZE_BILINEAR",
             "PRELU")
# operators whose second input is a constant integer table (paddings, new shape, new size)
INTEGER_SECOND_INPUT = ("PAD", "RESHAPE", "RESIZE_BILINEAR")
WHY_NOT = {
    "DEQUANTIZE": "only DEQUANTIZE of a constant is supported (expanded at load time)",
}


@dataclass(frozen=True)
class Step:
    """One bridge function call. Tensor ids refer to the model's tensors; ``constants`` are
    (role, value) arrays prepared at load time (weights in the bridge's layout, bias)."""

    op_index: int
    opcode: str
    kind: str
    inputs: Tuple[int, ...]
    output: int
    params: Tuple[Tuple[str, object], ...] = ()
    constants: Tuple[Tuple[str, np.ndarray], ...] = ()

    def param(self, name, default=None):
        return dict(self.params).get(name, default)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params)
        return f"Step(op #{self.op_index} {self.opcode} -> {self.kind}({list(self.inputs)} -> {self.output}) {params})"


@dataclass(frozen=True)
class View:
    """``tensor`` lies in ``parent``'s memory: ``("alias",)`` (the same array),
    ``("reshape",)`` (same elements, new shape) or ``("slice", axis, start)`` (the part of
    ``parent`` from ``start`` along ``axis``)."""

    tensor: int
    parent: int
    how: Tuple


@dataclass(frozen=True)
class Plan:
    model: ModelSpec
    steps: Tuple[Step, ...]
    views: Tuple[View, ...]
    fused: Tuple[int, ...]  # operator indices folded into their producer

    def view_of(self) -> Dict[int, View]:
        return {v.tensor: v for v in self.views}

    def root(self, t: int) -> int:
        views = self.view_of()
        while t in views:
            t = views[t].parent
        return t

    def bind(self, owned: Dict[int, object]) -> Dict[int, object]:
        """Arrays for every tensor of the plan, given arrays for the tensors that own memory
        (:meth:`buffers`): views made with the arrays' own ``reshape`` and slicing (numpy
        arrays and NdArrays alike; an NdArray refuses a reshape its padding does not allow)."""
        views, shapes = self.view_of(), {t.index: tuple(t.shape) for t in self.model.tensors}
        out = dict(owned)

        def get(t):
            if t not in out:
                v = views[t]
                p = get(v.parent)
                if v.how[0] == "alias":  # the same buffer (an in-place activation's output)
                    out[t] = p
                elif v.how[0] == "reshape":
                    out[t] = p.reshape(shapes[t])
                else:
                    _, axis, start = v.how
                    out[t] = p[slice_index(len(shapes[t]), axis, start, shapes[t][axis])]
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
            used.add(s.output)
        return tuple(sorted(t for t in used if t not in views and not self.model.tensors[t].is_constant))


def slice_index(rank: int, axis: int, start: int, length: int) -> Tuple[slice, ...]:
    idx = [slice(None)] * rank
    idx[axis] = slice(start, start + length)
    return tuple(idx)


def _refuse(op: OperatorSpec, option: str) -> UnsupportedModelError:
    return UnsupportedModelError(f"operator #{op.index} {op.opcode}: {option} is not supported: {op!r}")


def _same_padding(size: int, kernel: int, stride: int, out: int) -> Tuple[int, int]:
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _window(op: OperatorSpec, model: ModelSpec, kh: int, kw: int) -> Tuple[Tuple[int, int], Tuple[int, int, int, int]]:
    x, y = model.tensors[op.inputs[0]], model.tensors[op.outputs[0]]
    if len(x.shape) != 4 or len(y.shape) != 4:
        raise _refuse(op, f"input rank {len(x.shape)} / output rank {len(y.shape)} (expected 4, NHWC)")
    sh, sw = op.option("stride_h", 1), op.option("stride_w", 1)
    if sh < 1 or sw < 1:
        raise ModelFormatError(f"operator #{op.index} {op.opcode}: stride {sh}x{sw}, expected >= 1: {op!r}")
    if op.option("dilation_h", 1) != 1 or op.option("dilation_w", 1) != 1:
        raise _refuse(op, f"option dilation_h_factor={op.option('dilation_h')}, dilation_w_factor={op.option('dilation_w')}")
    (_, h, w, _), (_, oh, ow, _) = x.shape, y.shape
    if op.option("padding") == "SAME":
        expect = (-(-h // sh), -(-w // sw))
        top, bottom = _same_padding(h, kh, sh, oh)
        left, right = _same_padding(w, kw, sw, ow)
    else:
        expect = ((h - kh) // sh + 1, (w - kw) // sw + 1)
        top = bottom = left = right = 0
    if (oh, ow) != expect:
        raise ModelFormatError(f"operator #{op.index} {op.opcode}: output is {oh}x{ow}, padding {op.option('padding')} "
                               f"with kernel {kh}x{kw} and stride {sh}x{sw} on {h}x{w} gives {expect[0]}x{expect[1]}")
    return (sh, sw), (top, bottom, left, right)


def _fused(op: OperatorSpec):
    act = op.option("fused_activation_function")
    if act not in FUSED:
        raise _refuse(op, f"option fused_activation_function={act}")
    return FUSED[act]


def _const(model: ModelSpec, op: OperatorSpec, k: int, role: str) -> np.ndarray:
    t = op.inputs[k] if k < len(op.inputs) else -1
    if t < 0:
        return None
    spec = model.tensors[t]
    if not spec.is_constant:
        raise _refuse(op, f"non-constant {role} (tensor #{t} {spec.name!r})")
    if spec.dtype != np.float32:
        raise _refuse(op, f"{role} of type {spec.dtype} (only float32, or float16 / int8 through DEQUANTIZE)")
    return spec.data


def _act_params(act) -> Tuple[Tuple[str, object], ...]:
    return () if act is None else (("activation", act[0]), ("act_a", act[1]), ("act_b", act[2]))


def _lower(op: OperatorSpec, model: ModelSpec) -> Optional[Step]:
    t = model.tensors
    name = op.opcode
    ins = tuple(i for i in op.inputs if i >= 0)
    if name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        w = _const(model, op, 1, "weights")
        cout = t[op.outputs[0]].shape[-1]
        b = _const(model, op, 2, "bias")
        b = np.zeros(cout, np.float32) if b is None else b
        if w.ndim != 4 or b.shape != (cout,):
            raise ModelFormatError(f"operator #{op.index} {name}: weights {list(w.shape)} / bias {list(b.shape)} "
                                   f"do not fit {cout} output channels")
        if name == "CONV_2D":
            kh, kw = w.shape[1], w.shape[2]
            if w.shape[0] != cout or w.shape[3] != t[ins[0]].shape[-1]:
                raise ModelFormatError(f"operator #{op.index} {name}: weights {list(w.shape)} do not map "
                                       f"{t[ins[0]].shape[-1]} to {cout} channels")
            extra, weights = (), w
        else:
            kh, kw = w.shape[1], w.shape[2]
            cin = t[ins[0]].shape[-1]
            mult = op.option("depth_multiplier") or (cout // max(cin, 1))
            if w.shape[0] != 1 or w.shape[3] != cout or cin * mult != cout:
                raise ModelFormatError(f"operator #{op.index} {name}: weights {list(w.shape)}, {cin} input channels, "
                                       f"depth multiplier {mult} and {cout} output channels do not fit")
            extra, weights = (("depth_multiplier", int(mult)),), w.reshape(kh, kw, cout)
        stride, padding = _window(op, model, kh, kw)
        kind = "convolution" if name == "CONV_2D" else "depthwise"
        params = (("stride", stride), ("padding", padding)) + extra + _act_params(_fused(op))
        return Step(op.index, name, kind, ins[:1], op.outputs[0], params,
                    (("weights", np.ascontiguousarray(weights)), ("bias", np.ascontiguousarray(b))))
    if name == "ADD":
        if len(ins) != 2:
            raise ModelFormatError(f"operator #{op.index} ADD has {len(ins)} inputs, expected 2")
        for i in ins:
            if t[i].shape != t[op.outputs[0]].shape:
                raise _refuse(op, f"broadcasting input {list(t[i].shape)} to {list(t[op.outputs[0]].shape)}")
        return Step(op.index, name, "add", ins, op.outputs[0], _act_params(_fused(op)))
    if name in ACTIVATION_OPS:
        act = FUSED[ACTIVATION_OPS[name]] if name != "LOGISTIC" else ("logistic", 0.0, 0.0)
        return Step(op.index, name, "activation", ins[:1], op.outputs[0],
                    (("function", act[0]), ("a", act[1]), ("b", act[2])))
    if name == "PAD":
        pads = _padding_table(op, model)
        return Step(op.index, name, "pad", ins[:1], op.outputs[0], (("pad_width", pads),))
    if name in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
        if _fused(op) is not None:
            raise _refuse(op, f"option fused_activation_function={op.option('fused_activation_function')}")
        kh, kw = op.option("filter_height"), op.option("filter_width")
        stride, padding = _window(op, model, kh, kw)
        pool = "max" if name == "MAX_POOL_2D" else "avg"
        return Step(op.index, name, "pooling", ins[:1], op.outputs[0],
                    (("pool_type", pool), ("kernel", (kh, kw)), ("stride", stride), ("padding", padding)))
    if name == "SOFTMAX":
        return Step(op.index, name, "softmax", ins[:1], op.outputs[0], (("beta", float(op.option("beta", 1.0))),))
    if name == "RESIZE_BILINEAR":
        return Step(op.index, name, "resize", ins[:1], op.outputs[0], _resize_params(op, model))
    if name == "PRELU":
        return Step(op.index, name, "prelu", ins[:1], op.outputs[0], (), (("alpha", _prelu_alpha(op, model)),))
    if name in ("RESHAPE", "CONCATENATION"):
        return None  # views, see _views
    raise _refuse(op, f"the operator ({WHY_NOT.get(name, 'supported operators: ' + ', '.join(SUPPORTED))})")


def _prelu_alpha(op: OperatorSpec, model: ModelSpec) -> np.ndarray:
    """PRELU's constant slopes with the input's rank (leading 1s, as numpy broadcasts)."""
    if len(op.inputs) != 2:
        raise ModelFormatError(f"operator #{op.index} PRELU has {len(op.inputs)} inputs, expected 2 (input, alpha)")
    alpha = _const(model, op, 1, "alpha")
    if alpha is None:
        raise ModelFormatError(f"operator #{op.index} PRELU has no alpha tensor")
    x = model.tensors[op.inputs[0]].shape
    if alpha.ndim > len(x):
        raise ModelFormatError(f"operator #{op.index} PRELU: alpha {list(alpha.shape)} has more dimensions than "
                               f"input {list(x)}")
    alpha = alpha.reshape((1,) * (len(x) - alpha.ndim) + alpha.shape)
    if any(a not in (1, n) for a, n in zip(alpha.shape, x)):
        raise ModelFormatError(f"operator #{op.index} PRELU: alpha {list(alpha.shape)} does not broadcast to "
                               f"input {list(x)}")
    return np.ascontiguousarray(alpha, np.float32)


def _resize_params(op: OperatorSpec, model: ModelSpec) -> Tuple[Tuple[str, object], ...]:
    """align_corners and half_pixel_centers of a RESIZE_BILINEAR whose size is a constant
    matching its output (TFLite's ``size`` input: new height, new width)."""
    if len(op.inputs) != 2 or op.inputs[1] < 0 or model.tensors[op.inputs[1]].data is None:
        raise _refuse(op, "a non-constant size input")
    x, y = model.tensors[op.inputs[0]], model.tensors[op.outputs[0]]
    size = np.asarray(model.tensors[op.inputs[1]].data).reshape(-1)
    if len(x.shape) != 4 or len(y.shape) != 4:
        raise _refuse(op, f"input rank {len(x.shape)} / output rank {len(y.shape)} (expected 4, NHWC)")
    if size.tolist() != list(y.shape[1:3]) or x.shape[0] != y.shape[0] or x.shape[3] != y.shape[3]:
        raise ModelFormatError(f"operator #{op.index} RESIZE_BILINEAR: input {list(x.shape)} resized to size "
                               f"{size.tolist()} does not give the output {list(y.shape)}")
    align, half = bool(op.option("align_corners", False)), bool(op.option("half_pixel_centers", False))
    if align and half:
        raise _refuse(op, "option align_corners=True together with half_pixel_centers=True")
    return (("align_corners", align), ("half_pixel_centers", half))


def _padding_table(op: OperatorSpec, model: ModelSpec) -> Tuple[Tuple[int, int], ...]:
    if len(op.inputs) != 2 or model.tensors[op.inputs[1]].data is None:
        raise _refuse(op, "non-constant paddings")
    pads = model.tensors[op.inputs[1]].data
    x, y = model.tensors[op.inputs[0]], model.tensors[op.outputs[0]]
    if pads.shape != (len(x.shape), 2) or (pads < 0).any():
        raise ModelFormatError(f"operator #{op.index} PAD: paddings {pads.tolist()} do not fit input rank {len(x.shape)}")
    out = tuple(int(d + a + b) for d, (a, b) in zip(x.shape, pads))
    if out != tuple(y.shape):
        raise ModelFormatError(f"operator #{op.index} PAD: {list(x.shape)} padded by {pads.tolist()} is {list(out)}, "
                               f"the output says {list(y.shape)}")
    return tuple((int(a), int(b)) for a, b in pads)


def _check_tensors(op: OperatorSpec, model: ModelSpec) -> None:
    for i in tuple(op.inputs) + tuple(op.outputs):
        if i >= 0 and model.tensors[i].dtype != np.float32 \
                and not (op.opcode in INTEGER_SECOND_INPUT and len(op.inputs) > 1 and i == op.inputs[1]):
            raise _refuse(op, f"tensor #{i} {model.tensors[i].name!r} of type {model.tensors[i].dtype} (float32 only)")
    if len(op.outputs) != 1:
        raise _refuse(op, f"{len(op.outputs)} outputs")


def _views(model: ModelSpec, consumers: Dict[int, List[int]]) -> Tuple[Tuple[View, ...], Tuple[Step, ...]]:
    """Views for RESHAPE and CONCATENATION, and the copy steps where a view is impossible."""
    t = model.tensors
    parent: Dict[int, View] = {}
    copies: List[Step] = []
    fixed = set(model.inputs)

    def root(i):
        while i in parent:
            i = parent[i].parent
        return i

    for op in model.operators:
        if op.opcode != "CONCATENATION":
            continue
        if _fused(op) is not None:
            raise _refuse(op, f"option fused_activation_function={op.option('fused_activation_function')}")
        out = op.outputs[0]
        rank = len(t[out].shape)
        axis = op.option("axis", 0)
        axis = axis + rank if axis < 0 else axis
        if not 0 <= axis < rank:
            raise ModelFormatError(f"operator #{op.index} CONCATENATION: axis {op.option('axis')} for rank {rank}")
        start = 0
        for i in op.inputs:
            shape = t[i].shape
            expect = tuple(t[out].shape[:axis]) + (shape[axis] if len(shape) == rank else -1,) + tuple(t[out].shape[axis + 1:])
            if len(shape) != rank or tuple(shape) != expect:
                raise ModelFormatError(f"operator #{op.index} CONCATENATION: input {list(shape)} does not fit output "
                                       f"{list(t[out].shape)} along axis {axis}")
            how = ("slice", axis, start)
            if i in fixed or t[i].is_constant or i in parent or len(consumers.get(i, ())) > 1 or i in model.outputs:
                copies.append(Step(op.index, "CONCATENATION", "copy", (i,), -1,
                                   (("into", out), ("slice", how))))
            else:
                parent[i] = View(i, out, how)
            start += shape[axis]
        if start != t[out].shape[axis]:
            raise ModelFormatError(f"operator #{op.index} CONCATENATION: inputs give {start} along axis {axis}, "
                                   f"the output has {t[out].shape[axis]}")
    for op in model.operators:
        if op.opcode != "RESHAPE":
            continue
        src, out = op.inputs[0], op.outputs[0]
        if int(np.prod(t[src].shape)) != int(np.prod(t[out].shape)):
            raise ModelFormatError(f"operator #{op.index} RESHAPE: {list(t[src].shape)} -> {list(t[out].shape)} "
                                   f"changes the number of elements")
        if out not in parent and root(src) != out:
            parent[out] = View(out, src, ("reshape",))
        elif src not in parent and src not in fixed and root(out) != src and len(consumers.get(src, ())) == 1:
            parent[src] = View(src, out, ("reshape",))
        else:
            copies.append(Step(op.index, "RESHAPE", "copy", (src,), out, (("reshape", True),)))
    return tuple(parent.values()), tuple(copies)


def plan_model(model: ModelSpec) -> Plan:
    """The plan for ``model`` (after :func:`fold_constant_dequantize`), or UnsupportedModelError."""
    if len(model.inputs) != 1:
        raise UnsupportedModelError(f"model has {len(model.inputs)} inputs, expected 1")
    consumers: Dict[int, List[int]] = {}
    producer: Dict[int, int] = {}
    for op in model.operators:
        if op.opcode not in SUPPORTED:
            raise _refuse(op, f"the operator ({WHY_NOT.get(op.opcode, 'supported operators: ' + ', '.join(SUPPORTED))})")
        _check_tensors(op, model)
        for i in op.inputs:
            if i >= 0:
                consumers.setdefault(i, []).append(op.index)
        producer[op.outputs[0]] = op.index
    steps: List[Step] = []
    for op in model.operators:
        step = _lower(op, model)
        if step is not None:
            steps.append(step)
    views, copies = _views(model, consumers)
    lowered = {s.op_index for s in steps}
    steps, aliases = _fuse_activations(steps, consumers, model, {v.tensor for v in views})
    views = views + tuple(aliases)
    fused = tuple(sorted(lowered - {s.op_index for s in steps}))
    # TFLite stores operators in execution order; a copy runs where its operator stood
    ordered = sorted(list(steps) + list(copies), key=lambda s: s.op_index)
    return Plan(model, tuple(ordered), views, fused)


def _fuse_activations(steps: List[Step], consumers, model: ModelSpec, viewed) -> Tuple[List[Step], List[View]]:
    """Fold each activation whose input has no other reader (and is no graph output) into its
    producer: into a convolution's own activation, or else (ACL's addition takes no fused
    activation: "act_info.enabled()" in 24.11) as an in-place activation on the producer's
    buffer, the activation's output being an alias of its input."""
    by_output = {s.output: k for k, s in enumerate(steps)}
    out = list(steps)
    aliases: List[View] = []
    dropped = set()
    for k, s in enumerate(steps):
        if s.kind != "activation":
            continue
        src = s.inputs[0]
        p = by_output.get(src)
        if p is None or p in dropped or len(consumers.get(src, ())) != 1 or src in model.outputs:
            continue
        prod = out[p]
        if prod.kind in ("convolution", "depthwise") and prod.param("activation") is None \
                and s.param("function") != "logistic":
            act = (("activation", s.param("function")), ("act_a", s.param("a")), ("act_b", s.param("b")))
            out[p] = Step(prod.op_index, prod.opcode + "+" + s.opcode, prod.kind, prod.inputs, s.output,
                          prod.params + act, prod.constants)
            by_output[s.output] = p
            dropped.add(k)
        elif s.output not in viewed:  # in place: ACL's activation accepts dst identical to src
            out[k] = Step(s.op_index, s.opcode, s.kind, s.inputs, src, s.params + (("in_place", True),))
            aliases.append(View(s.output, src, ("alias",)))
    return [s for k, s in enumerate(out) if k not in dropped], aliases


__all__ = ["Step", "View", "Plan", "plan_model", "slice_index", "SUPPORTED"]
