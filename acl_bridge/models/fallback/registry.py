"""The fallback's kernel table: TFLite opcode -> numpy kernel (design habit 20).

A kernel registers itself with ``@kernel("OPCODE", ...)`` in its family's module; nothing
else names an operator. A kernel is a function ``(call: Call) -> None`` that reads
``call.inputs`` (numpy arrays: the bridge's buffers seen through numpy, or the model's
constants) and writes every ``call.outputs[k]`` in place (``call.write``), with TFLite's
semantics for that builtin operator: float32 arithmetic as TFLite's kernels do it, int8 /
uint8 as TFLite's reference kernels (:mod:`.int8_reference`).

A kernel registered with ``binds=True`` is instead a function ``(call: Call) -> (() -> None)``
called once per operator at load (:func:`prepare`): it does there what does not change from
one run to the next (options, quantization, tables, indices, constant inputs, checks) and
returns the per-call work alone; the tiny operators a fallback meets cost that fixed part.

``dtypes`` says which tensor types the kernel runs (every live input and output must be one
of them): :func:`unsupported` answers, at load, why an operator cannot run here, so that a
model is refused naming every operator neither side can run.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..format.tflite_reader import ModelSpec, OperatorSpec, TensorSpec, UnsupportedModelError

FLOAT = ("float32",)
INT8 = ("int8", "uint8")
INTEGER = ("int32", "int64")
ANY = FLOAT + INT8 + INTEGER + ("int16", "bool", "float16")


@dataclass(frozen=True)
class Call:
    """One operator's run: the operator, its model, its input values (None: absent) and the
    arrays its outputs are written into."""

    op: OperatorSpec
    model: ModelSpec
    inputs: Tuple[Optional[np.ndarray], ...]
    outputs: Tuple[np.ndarray, ...]

    def tensor_in(self, k: int) -> TensorSpec:
        return self.model.tensors[self.op.inputs[k]]

    def tensor_out(self, k: int = 0) -> TensorSpec:
        return self.model.tensors[self.op.outputs[k]]

    def q_in(self, k: int = 0) -> Tuple[float, int]:
        return _q(self.tensor_in(k))

    def q_out(self, k: int = 0) -> Tuple[float, int]:
        return _q(self.tensor_out(k))

    def option(self, name: str, default: Any = None) -> Any:
        return self.op.option(name, default)

    def constant(self, *ks: int) -> bool:
        """Whether inputs ``ks`` are constants of the model (or absent): known at load."""
        ins, t = self.op.inputs, self.model.tensors
        return all(k >= len(ins) or ins[k] < 0 or t[ins[k]].is_constant for k in ks)

    def write(self, y: np.ndarray, k: int = 0) -> None:
        """Output ``k`` := ``y`` (same number of elements; cast to the output's dtype)."""
        out = self.outputs[k]
        if type(y) is np.ndarray and y.shape == out.shape:  # the common case, without the checks below
            out[...] = y
            return
        y = np.asarray(y)
        if y.size != out.size:
            raise UnsupportedModelError(f"operator #{self.op.index} {self.op.opcode}: the fallback made "
                                        f"{list(y.shape)} for output {k} of shape {list(out.shape)}")
        out[...] = y.reshape(out.shape).astype(out.dtype, copy=False)


def _q(t: TensorSpec) -> Tuple[float, int]:
    """(scale, zero point) of a per-tensor quantized tensor."""
    q = t.quantization
    if q is None or not q.scale:
        raise UnsupportedModelError(f"tensor #{t.index} {t.name!r} ({t.dtype}) has no quantization, "
                                    f"which its operator's int8 kernel needs")
    return float(q.scale[0]), int(q.zero_point[0]) if q.zero_point else 0


@dataclass(frozen=True)
class Kernel:
    opcode: str
    run: Callable[[Call], None]
    dtypes: FrozenSet[str]
    # an extra check at load: why this operator is not run (None: it is)
    check: Optional[Callable[[OperatorSpec, ModelSpec], Optional[str]]] = None
    # a kernel registered with binds=True: Call -> the per-call work, made once (``run`` calls it)
    bind: Optional[Callable[[Call], Callable[[], None]]] = None


KERNELS: Dict[str, Kernel] = {}


def kernel(*opcodes: str, dtypes: Sequence[str] = FLOAT + INT8,
           check: Optional[Callable[[OperatorSpec, ModelSpec], Optional[str]]] = None, binds: bool = False
           ) -> Callable[[Callable[[Call], Any]], Callable[[Call], Any]]:
    """Register the decorated function as the fallback kernel of ``opcodes`` (with ``binds``:
    a function that binds it to one operator, see the module)."""

    def register(f: Callable[[Call], Any]) -> Callable[[Call], Any]:
        for code in opcodes:
            if code in KERNELS:
                raise ValueError(f"opcode {code} has two fallback kernels: {KERNELS[code].run.__name__} "
                                 f"and {f.__name__}")
            run = functools.wraps(f)(lambda c: f(c)()) if binds else f
            KERNELS[code] = Kernel(code, run, frozenset(dtypes), check, f if binds else None)
        return f

    return register


def unsupported(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    """Why the fallback cannot run ``op`` (None: it can)."""
    k = KERNELS.get(op.opcode)
    if k is None:
        return "no fallback kernel for the operator"
    live = [i for i in op.inputs if i >= 0 and not model.tensors[i].is_constant] + list(op.outputs)
    bad = [f"#{i} {model.tensors[i].dtype}" for i in live if model.tensors[i].dtype.name not in k.dtypes]
    if bad:
        return f"tensor types {', '.join(bad)} (the fallback kernel runs {', '.join(sorted(k.dtypes))})"
    return k.check(op, model) if k.check is not None else None


def prepare(op: OperatorSpec, model: ModelSpec, arrays: Mapping[int, np.ndarray]) -> Callable[[], None]:
    """A function that runs ``op`` on ``arrays`` (tensor index -> array: the inputs, the
    outputs; constants come from the model), bound once."""
    k = KERNELS[op.opcode]
    t = model.tensors
    inputs = tuple(None if i < 0 else (t[i].data if t[i].is_constant else arrays[i]) for i in op.inputs)
    call = Call(op, model, inputs, tuple(arrays[o] for o in op.outputs))
    if k.bind is not None:
        return k.bind(call)
    run = k.run
    return lambda: run(call)


__all__ = ["Call", "Kernel", "KERNELS", "kernel", "unsupported", "prepare", "FLOAT", "INT8", "INTEGER", "ANY"]
