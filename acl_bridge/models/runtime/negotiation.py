"""The padding negotiation: what every step's ACL function asks of each buffer, asked on
shapes alone before any memory exists (a buffer gets the union over every function that reads
or writes it; nothing asked where this ACL's kernels ask no padding and the one native call
checks every function), the key its answer is kept under between processes, and after configuring, the
padding a function still staged for that a buffer of the runner's own could have had
(renegotiation, at most :data:`MAX_RENEGOTIATIONS` times)."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

from ndarray import ShapeDescriptor

from ...configure_cold import Bound
from ...configure_session import NEGOTIATED_PLAN, ConfigureSession, question_id
from ...errors import AclStatusError, AclUnsupportedError
from ...executor import checked_padding, negotiate_padding
from ...layout import NO_PADDING
from ...mapping import PaddingSize
from ...native import kernels_ask_padding
from ...plan import FunctionPlan, Reason
from ..planning.plan_cache import lowering_code_identity
from ..planning.tflite_plan import Plan
from .function_kinds import ROLES
from .step_calls import AclRefusedError, DenseShapes, call_kwargs, raise_refused, refusal, step_operands, tensor_ids

MAX_RENEGOTIATIONS = 2
# the data layout every plan step's function is bound in, negotiated and made (a model's tensors are NHWC)
STEP_DATA_LAYOUT = "NHWC"

# {buffer tensor: [(operator index, role, padding)]}, and per step {constant role: padding}
Asked = Dict[int, List[Tuple[int, str, PaddingSize]]]


def negotiate(plan: Plan, session: ConfigureSession, backend, fallback: bool, checks: bool = True,
              bound: Optional[List[Optional[Bound]]] = None, ask: Optional[bool] = None
              ) -> Tuple[Asked, List[Dict[str, PaddingSize]]]:
    """Padding each step's function asks for, per buffer (shapes only, no memory). A step ACL
    refuses: AclRefusedError naming it (without the fallback at once; with it, every refusal of
    the pass together, for the runner to plan them onto the CPU fallback). ``checks``: ask
    validate() on each step's negotiated layouts and add ACL's auto padding where it refuses
    them (:func:`~acl_bridge.executor.required_padding`); False leaves that question to the
    decision pass (a refusal there negotiates again with it); where moreover this ACL's kernels
    of the backend ask no padding (:func:`~acl_bridge.native.kernels_ask_padding`), ACL is not
    asked either: every step binds with zero padding, and a step ACL refuses is refused by the
    decision pass or the one native call (UncheckedRefused: negotiated again, asking); ``ask``
    True asks ACL all the same (None: as just said). ``bound``: a list that receives each
    step's :class:`Bound` (None for a refused step)."""
    shapes = DenseShapes(plan.model.tensors)  # each tensor's described when a step first names it
    if ask is None:
        ask = asks_acl(backend.name, checks)
    asked: Asked = {}
    const_pad: List[Dict[str, PaddingSize]] = []
    refused: Dict[int, str] = {}
    for k, s in enumerate(plan.steps):
        session.step = k
        cls = ROLES[s.kind]
        consts = {role: ShapeDescriptor.dense(v.shape, v.dtype) for role, v in s.constants}
        ids = tensor_ids(s)
        operands = step_operands(s, shapes, consts, ids)
        options = call_kwargs(s)
        quantization = options.pop("quantization", None)
        try:  # AclFunction.required_padding, its binding kept
            kind, params, quant, specs = cls._bound_specs(operands, options, quantization, STEP_DATA_LAYOUT)
            pads = negotiate_padding(kind, params, specs, backend) if ask else (NO_PADDING,) * len(specs)
            need = dict(zip(cls.roles, checked_padding(kind, params, specs, pads, backend) if checks else pads))
        except (AclStatusError, AclUnsupportedError) as e:  # refused, or the kind not in this ACL
            if not fallback:
                raise AclRefusedError({s.op_index: refusal(s, operands, e)}) from e
            refused[s.op_index] = refusal(s, operands, e)
            const_pad.append({})
            if bound is not None:
                bound.append(None)
            continue
        if bound is not None:
            bound.append(Bound((kind, params, quant), specs, pads, checks))
        _note(plan, s, cls.roles, ids, need, asked, const_pad)
    session.step = None
    raise_refused(refused)
    return asked, const_pad


def asks_acl(backend_name: str, checks: bool) -> bool:
    """Whether a negotiation asks ACL anything: validate() on each step's layouts (``checks``),
    or each step's padding, where this ACL's kernels of the backend may ask some
    (:func:`~acl_bridge.native.kernels_ask_padding`, on :data:`STEP_DATA_LAYOUT`)."""
    return checks or kernels_ask_padding(backend_name, STEP_DATA_LAYOUT)


def _note(plan: Plan, s, roles: Sequence[str], ids: Sequence[Optional[int]], need: Dict[str, PaddingSize],
          asked: Asked, const_pad: List[Dict[str, PaddingSize]]) -> None:
    """Step ``s``'s padding ``need`` (per role) noted: its constants' in ``const_pad``, its
    buffers' in ``asked`` (by the buffer each tensor lies in)."""
    const_pad.append({role: need[role] for role, _ in s.constants})
    for role, tid in zip(roles, ids):
        if tid is not None:
            asked.setdefault(plan.root(tid), []).append((s.op_index, role, need[role]))


def unasked(plan: Plan) -> Tuple[Asked, List[Dict[str, PaddingSize]]]:
    """What :func:`negotiate` returns where it asks ACL nothing (:func:`asks_acl` False): no
    padding for any tensor of any step, without binding a step. A first start then binds each step once, in the
    decision pass (:func:`acl_bridge.configure_cold.decide_calls` with ``padding_asked=False``),
    where a step its function refuses is refused as a negotiation's binding would refuse it, and
    negotiated again, asking (UncheckedRefused)."""
    asked: Asked = {}
    const_pad: List[Dict[str, PaddingSize]] = []
    for s in plan.steps:
        roles = ROLES[s.kind].roles
        _note(plan, s, roles, tensor_ids(s), dict.fromkeys(roles, NO_PADDING), asked, const_pad)
    return asked, const_pad


class UncheckedRefused(Exception):
    """The first start's one native call (or its decision pass) refused functions of a
    negotiation made without asking validate() on each step's negotiated layouts
    (:func:`negotiate` ``checks=False``): the runner negotiates again with it and configures
    as before, where the refusal, if any, is said naming its operator."""


def negotiation_key(plan: Plan, backend_name: str, lowered_here: bool) -> Optional[str]:
    """The content :func:`negotiate` depends on, as a question id: per step its operator,
    kind, parameters, constants' shapes and dtypes, and its tensors' ids, shapes, dtypes
    and owning buffers; the backend. None where a parameter has no canonical text. A plan
    the runner read and lowered itself (``lowered_here``) is that content's function of the
    file and the reading and lowering code: then the file's MD5 (``ModelSpec.md5``) and a stamp of that code
    stand for it (the same key at a fraction of the cost: no walk over every step)."""
    if lowered_here:
        try:
            return question_id(NEGOTIATED_PLAN, ("lowered file", backend_name, plan.model.md5,
                                                 lowering_code_identity()))
        except OSError:  # the sources are not readable: key by the content itself
            pass
    t = plan.model.tensors
    root = {v.tensor: plan.root(v.tensor) for v in plan.views}
    content = (backend_name, tuple(
        (s.op_index, s.kind, s.params, tuple((r, tuple(v.shape), v.dtype) for r, v in s.constants),
         tuple((i, tuple(t[i].shape), t[i].dtype, root.get(i, i)) for i in tensor_ids(s) if i is not None))
        for s in plan.steps))
    try:
        return question_id(NEGOTIATED_PLAN, content)
    except TypeError:  # a parameter with no canonical text: negotiate every time
        return None


def padding_still_missing(plan: Plan, function_plans: Sequence[FunctionPlan], roots_with_views: Set[int]):
    """{buffer or (step, constant role): ((op index, role), padding)} for tensors a function
    staged only for want of padding a buffer of the runner's own could have had."""
    grow: Dict[object, Tuple[Tuple[int, str], PaddingSize]] = {}
    for k, (s, fplan) in enumerate(zip(plan.steps, function_plans)):
        ids = dict(zip(ROLES[s.kind].roles, tensor_ids(s)))
        for tp in fplan.tensors:
            if tp.reason not in (Reason.PADDING_MISSING, Reason.RENEGOTIATED):
                continue
            tid = ids.get(tp.role)
            key = (k, tp.role) if tid is None else plan.root(tid)
            if tid is not None and key in roots_with_views:
                continue  # a view: no padding to give (the copy stays, counted)
            old = grow.get(key, ((s.op_index, tp.role), PaddingSize()))[1]
            grow[key] = ((s.op_index, tp.role), old.union(tp.padding))
    return grow


__all__ = ["MAX_RENEGOTIATIONS", "STEP_DATA_LAYOUT", "UncheckedRefused", "asks_acl", "negotiate", "negotiation_key",
           "padding_still_missing", "unasked"]
