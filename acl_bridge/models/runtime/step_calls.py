"""A plan step as its ACL function's call: the function's keyword arguments, its positional
arrays in the function's role order, the model tensor behind each role, and ACL's refusal of a
step named with the operator and its tensors' types (one place for all three, used by the
negotiation, the configure pass and the first start's batch alike)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from ndarray import ShapeDescriptor
from ndarray.errors import LayoutError

from ...errors import AclStatusError
from ...mapping import data_type_for
from ..format.tflite_reader import UnsupportedModelError
from ..planning.tflite_plan import Step, slice_index
from . import function_kinds
from .function_kinds import ROLES


def call_kwargs(step: Step) -> Dict[str, object]:
    """The bridge function's keyword arguments for a step, its quantization per role included
    (an int8 step's ``("quantization", ((role, q), ...))``: the int8-contract): a fresh dict
    each call (callers add and pop keys), of one made once per step object (a load asks each
    step's twice or more: the negotiation, the configure pass)."""
    kw = dict(_kept_on(step, "_step_calls_call_kwargs", _call_kwargs))
    q = kw.get("quantization")
    if q is not None:  # (its own dict too: the options' other values are immutable)
        kw["quantization"] = dict(q)
    return kw


def _kept_on(step: Step, name: str, make):
    """``make(step)``, made once per step object and kept in its ``__dict__`` under ``name``
    (not a field of the frozen step: what it gives is a function of its fields and the
    registered kinds)."""
    value = step.__dict__.get(name)
    if value is None:
        value = step.__dict__[name] = make(step)
    return value


def _call_kwargs(step: Step) -> Dict[str, object]:
    kw = _options(step)
    q = step.param("quantization")
    if q:
        kw["quantization"] = {role: tuple(v) if isinstance(v, list) else v for role, v in q}
    return kw


def _options(step: Step) -> Dict[str, object]:
    return function_kinds.options(step.kind, step.params_by_name)


def places(step: Step) -> bool:
    """Whether a step moves one tensor into another's memory where no view could be made: a
    ``copy`` (into a concatenation's slice, or a reshape), or a requantizing ``quantize`` into
    a concatenation's slice (int8 inputs whose scales differ from the output's)."""
    return function_kinds.places(step.kind, step.params_by_name)


def step_operands(step: Step, tensors: Dict[int, object], constants: Dict[str, object],
                  ids: Optional[List[Optional[int]]] = None) -> List[object]:
    """Positional arrays of the bridge function, in its role order (``ids``: the step's
    :func:`tensor_ids` where the caller has them already)."""
    if places(step):
        p = step.params_by_name
        src = tensors[step.inputs[0]]
        if isinstance(src, ShapeDescriptor):  # negotiation: the destination has the source's shape
            return [src, src]
        if "into" in p:
            _, axis, start = p["slice"]
            return [src, tensors[p["into"]][slice_index(len(src.shape), axis, start, src.shape[axis])]]
        return [src, tensors[step.output].reshape(src.shape)]
    roles = ROLES[step.kind].roles
    return [constants.get(r) if i is None else tensors[i] for r, i in zip(roles, tensor_ids(step) if ids is None else ids)]


def tensor_ids(step: Step) -> Tuple[Optional[int], ...]:
    """Model tensor id per role of the bridge function, in its role order (None: a constant
    of the step, by role name, or a role the step's ``absent`` parameter leaves out): the
    function's output roles take the step's outputs (:attr:`Step.written`), the other roles its
    inputs, in order. A function of the frozen step and the registered kinds, made once per
    step object (a load asks each step's several times: the negotiation, the configure pass)."""
    return _kept_on(step, "_step_calls_tensor_ids", _tensor_ids)


def _tensor_ids(step: Step) -> Tuple[Optional[int], ...]:
    if places(step):
        return (step.inputs[0], step.params_by_name.get("into", step.output))
    cls = ROLES[step.kind]
    constant_roles = {role for role, _ in step.constants}.union(step.param("absent", ()))
    inputs, outputs = iter(step.inputs), iter(step.written)
    return tuple([None if r in constant_roles else next(outputs) if r in cls.outputs else next(inputs)
                  for r in cls.roles])


class DenseShapes(dict):
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
    quant = call_kwargs(step).get("quantization") or {}
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


def raise_refused(refused: Dict[int, str]) -> None:
    """AclRefusedError for the refusals of one pass over the steps, where there are any."""
    if refused:
        raise AclRefusedError(refused)


def refusal(step: Step, operands: List[object], e: AclStatusError) -> str:
    """ACL's refusal of one step at load, naming the operator, its tensors' types and ACL's
    own validate() message (e.g. ACL 20.08 and int8 depthwise with per-channel weights)."""
    from ...native import acl_version

    return (f"operator #{step.op_index} {step.opcode} ({step.kind}: {_types(step, operands)}) is refused by "
            f"ACL {acl_version()}: {e.message}")


__all__ = ["call_kwargs", "places", "step_operands", "tensor_ids", "DenseShapes", "AclRefusedError", "raise_refused",
           "refusal"]
