"""Comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL), the logical
operators (LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT), ARG_MAX / ARG_MIN and SELECT / SELECT_V2 ->
the logic family's kinds (:mod:`acl_bridge.families.logic`). Truth values are TFLite's bool
tensors (one byte, 0 or 1: ACL's U8)."""

from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from ...format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec
from ..helpers import first_input, integer_table, malformed, refuse, where
from ..quantized import QUANTIZED, per_tensor, quantization, tensor_q
from ..step import Lowered, Params, Step
from .elementwise import _broadcast
from .table import rule

# TFLite comparison -> step kind
COMPARISONS: Dict[str, str] = {"EQUAL": "equal", "NOT_EQUAL": "not_equal", "LESS": "less", "LESS_EQUAL": "less_equal",
                               "GREATER": "greater", "GREATER_EQUAL": "greater_equal"}
LOGICAL: Dict[str, str] = {"LOGICAL_AND": "logical_and", "LOGICAL_OR": "logical_or"}
ARG: Dict[str, str] = {"ARG_MAX": "arg_max", "ARG_MIN": "arg_min"}
BOOL = np.dtype(np.bool_)
# comparison inputs on ACL (its validate() also takes int16 and float16; TFLite models compare these)
COMPARED = (np.dtype(np.float32), np.dtype(np.int32)) + QUANTIZED
MAX_RANK = 4  # ACL's arg max / min reduce along its dimensions 0..3


def _inputs(op: OperatorSpec, n: int) -> Tuple[int, ...]:
    ins = tuple(i for i in op.inputs if i >= 0)
    if len(ins) != n or len(op.outputs) != 1:
        raise ModelFormatError(f"{where(op)} has {len(ins)} inputs and {len(op.outputs)} outputs, expected {n} and 1")
    return ins


def _gate(inputs: Tuple[np.dtype, ...], output: Tuple[np.dtype, ...], what: str):
    """A type gate: every input of one dtype among ``inputs`` (int8 / uint8 per tensor), the
    output's among ``output``."""

    def check(op: OperatorSpec, model: ModelSpec) -> None:
        t = model.tensors
        ins = [t[i] for i in op.inputs if i >= 0]
        dtypes = {x.dtype for x in ins}
        if len(op.outputs) != 1 or len(dtypes) != 1 or not dtypes <= set(inputs) \
                or t[op.outputs[0]].dtype not in output:
            raise refuse(op, "tensor types " + ", ".join(f"#{x.index} {x.dtype}" for x in ins + [t[o] for o in op.outputs])
                         + f" ({what})")
        for x in ins:
            if x.dtype in QUANTIZED:
                per_tensor(op, x)

    return check


def _operands(op: OperatorSpec, model: ModelSpec, roles: Tuple[str, ...], rank: int):
    """(live inputs, constants by role with ``rank`` dimensions: leading 1s) of an operator
    whose inputs take ``roles`` in order; refused where every input is a constant."""
    t = model.tensors
    ins = tuple(i for i in op.inputs if i >= 0)
    if all(t[i].is_constant for i in ins):
        raise refuse(op, "constant inputs only")
    live = tuple(i for i in ins if not t[i].is_constant)
    constants = tuple((r, np.ascontiguousarray(t[i].data.reshape((1,) * (rank - t[i].data.ndim) + t[i].data.shape)))
                      for r, i in zip(roles, ins) if t[i].is_constant)
    return live, constants


def _one_quantization(op: OperatorSpec, model: ModelSpec, ins: Tuple[int, ...], roles: Tuple[str, ...]) -> Params:
    """The quantization params of int8 / uint8 inputs: refused unless every one has the same
    scale and zero point (TFLite then compares the stored values, as ACL does)."""
    if model.tensors[ins[0]].dtype not in QUANTIZED:
        return ()
    qs = [tensor_q(op, model, i) for i in ins]
    if len(set(qs)) != 1:
        raise refuse(op, f"inputs quantized {' and '.join(map(str, qs))} (one quantization only)")
    return quantization(*((r, qs[0]) for r in roles))


@rule(*COMPARISONS, tensors=_gate(COMPARED, (BOOL,), "float32, int32, or int8 / uint8 in; bool out"))
def comparison(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``equal`` / ``not_equal`` / ``less`` / ``less_equal`` / ``greater`` /
    ``greater_equal``, broadcasting as numpy (a constant input keeps its role, with the
    output's rank); int8 / uint8 inputs of one quantization."""
    ins = _inputs(op, 2)
    y = _broadcast(op, model, ins)  # type: ignore[arg-type]
    live, constants = _operands(op, model, ("a", "b"), len(y))
    params = _one_quantization(op, model, ins, ("a", "b"))
    return (Step(op.index, op.opcode, COMPARISONS[op.opcode], live, op.outputs[0], params, constants),)


@rule(*LOGICAL, tensors=_gate((BOOL,), (BOOL,), "bool only"))
def logical(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``logical_and`` / ``logical_or``, broadcasting as numpy (ACL 24.x; 20.08 lacks the
    functions: the runner's fallback takes them)."""
    ins = _inputs(op, 2)
    y = _broadcast(op, model, ins)  # type: ignore[arg-type]
    live, constants = _operands(op, model, ("a", "b"), len(y))
    return (Step(op.index, op.opcode, LOGICAL[op.opcode], live, op.outputs[0], (), constants),)


@rule("LOGICAL_NOT", tensors=_gate((BOOL,), (BOOL,), "bool only"))
def logical_not(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``logical_not`` (ACL 24.x, as the other logical operators)."""
    x = _inputs(op, 1)[0]
    if tuple(model.tensors[x].shape) != tuple(model.tensors[op.outputs[0]].shape):
        raise malformed(op, f"input {list(model.tensors[x].shape)} and output "
                            f"{list(model.tensors[op.outputs[0]].shape)} differ")
    return (Step(op.index, op.opcode, "logical_not", (x,), op.outputs[0]),)


def _arg_gate(op: OperatorSpec, model: ModelSpec) -> None:
    """ARG_MAX / ARG_MIN: a float32 or int8 / uint8 (per tensor) input, a constant integer
    axis, an int32 or int64 output."""
    t = model.tensors
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.inputs[0] < 0:
        raise refuse(op, f"{len(op.inputs)} inputs and {len(op.outputs)} outputs (input, axis -> output)")
    x, y = t[op.inputs[0]], t[op.outputs[0]]
    if x.dtype not in (np.dtype(np.float32),) + QUANTIZED or y.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise refuse(op, f"types {x.dtype} -> {y.dtype} (float32 or int8 / uint8 -> int32 or int64)")
    if x.dtype in QUANTIZED:
        per_tensor(op, x)


@rule(*ARG, tensors=_arg_gate)
def arg_min_max(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``arg_max`` / ``arg_min`` along the constant axis, removed from the output (int32,
    or int64 where ACL writes it: CL; NEON's validate() refuses it, so the runner's fallback
    takes it); rank 4 at most."""
    src, out = first_input(op), op.outputs[0]
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    axes = np.asarray(integer_table(op, model, "a non-constant axis input")).reshape(-1)
    rank = len(x)
    if axes.size != 1 or not -rank <= int(axes[0]) < rank:
        raise malformed(op, f"axis {axes.tolist()} for a rank-{rank} input (one axis)")
    axis = int(axes[0]) % rank
    if rank > MAX_RANK:
        raise refuse(op, f"{op.opcode} of a rank-{rank} input (ACL reduces at most {MAX_RANK} dimensions)")
    want = tuple(d for i, d in enumerate(x) if i != axis)
    if y != want:
        raise malformed(op, f"{op.opcode} of {list(x)} along axis {axis} is {list(want)}, the output says {list(y)}")
    q = quantization(("src", tensor_q(op, model, src))) if model.tensors[src].dtype in QUANTIZED else ()
    return (Step(op.index, op.opcode, ARG[op.opcode], (src,), out, (("axis", axis),) + q),)


def _select_gate(op: OperatorSpec, model: ModelSpec) -> None:
    """SELECT / SELECT_V2: a bool condition, then two values and the output of one type
    (float32, int32, or int8 / uint8 of one quantization)."""
    t = model.tensors
    ins = [t[i] for i in op.inputs if i >= 0]
    if len(ins) != 3 or len(op.outputs) != 1:
        raise refuse(op, f"{len(ins)} inputs and {len(op.outputs)} outputs (condition, x, y -> output)")
    values = ins[1:] + [t[op.outputs[0]]]
    if ins[0].dtype != BOOL or len({v.dtype for v in values}) != 1 or values[0].dtype not in COMPARED:
        raise refuse(op, "tensor types " + ", ".join(f"#{v.index} {v.dtype}" for v in ins + values[2:])
                     + " (a bool condition; x, y and the output float32, int32, or int8 / uint8)")


@rule("SELECT", "SELECT_V2", tensors=_select_gate)
def select(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``select``: condition, x, y and the output of one shape (ACL's NESelect does not
    broadcast; TFLite's SELECT_V2 does, refused here); int8 / uint8 of one quantization."""
    ins = _inputs(op, 3)
    t = model.tensors
    y = tuple(t[op.outputs[0]].shape)
    shapes = [tuple(t[i].shape) for i in ins]
    if any(s != y for s in shapes):
        try:
            both = tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            both = None
        if both != y:
            raise malformed(op, f"condition, x, y {[list(s) for s in shapes]} do not broadcast to the output {list(y)}")
        raise refuse(op, f"condition, x, y {[list(s) for s in shapes]} broadcast to the output {list(y)} "
                         f"(ACL's select takes one shape)")
    live, constants = _operands(op, model, ("condition", "a", "b"), len(y))
    params = _one_quantization(op, model, ins[1:] + (op.outputs[0],), ("a", "b", "dst"))
    return (Step(op.index, op.opcode, "select", live, op.outputs[0], params, constants),)
