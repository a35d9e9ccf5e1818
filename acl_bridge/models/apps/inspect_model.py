"""``acl-ndarray inspect MODEL``: what a TFLite file asks for before anything runs.

Its inputs and outputs (name, shape, dtype, quantization), and every operator with where the
runner would run it: on ACL (the lowering's steps) or on the CPU fallback, with the reason,
as :func:`~..lowering.partition.partition` decides it from the file alone. ACL's own
``validate()`` may still refuse an operator when the runner configures it (the runner then
moves it to the fallback and says so); whether ACL is present here is said too.
"""

from __future__ import annotations

from typing import Any, Dict, List

import numpy as np

from ..format.tflite_reader import TensorSpec, fold_constant_dequantize, read_model
from ..lowering.partition import partition, segments
from ..planning.constant_folding import fold_constants


def _tensor(t: TensorSpec) -> Dict[str, Any]:
    q = t.quantization
    quant = None if q is None else {
        "scale": [float(v) for v in q.scale], "zero_point": [int(v) for v in (q.zero_point or ())],
        **({"axis": int(q.quantized_dimension)} if len(q.scale) > 1 else {})}
    return {"name": t.name, "shape": [int(v) for v in t.shape], "dtype": np.dtype(t.dtype).name,
            "quantization": quant}


def inspect_model(path) -> Dict[str, Any]:
    """The model's facts as a JSON-ready dict: ``inputs``, ``outputs`` (:func:`_tensor`),
    ``operators`` (``index, opcode, inputs, outputs`` (shapes), ``runs_on`` ("ACL", "CPU
    fallback", or "folded when loaded": computed from constants once, as the plan does:
    :func:`~..planning.constant_folding.fold_constants`), ``steps`` (ACL
    function kinds) or ``fallback_kind`` and ``reason``),
    ``summary`` and ``acl`` (whether the native ACL module loads here, and why not)."""
    from acl_bridge import native_available

    read = read_model(path)
    model = fold_constants(fold_constant_dequantize(read))
    decisions = {d.op_index: d for d in partition(model)}
    shapes = {t.index: [int(v) for v in t.shape] for t in read.tensors}
    ops: List[Dict[str, Any]] = []
    for op in read.operators:
        d = decisions.get(op.index)
        row: Dict[str, Any] = {"index": op.index, "opcode": op.opcode,
                               "inputs": [shapes[i] for i in op.inputs if i >= 0],
                               "outputs": [shapes[i] for i in op.outputs]}
        if d is None:  # computed from constants when loaded (a constant's DEQUANTIZE, static shape arithmetic)
            row.update(runs_on="folded when loaded")
        elif d.on_acl:
            row.update(runs_on="ACL", steps=[s.kind for s in d.lowered or () if hasattr(s, "kind")])
        else:
            row.update(runs_on="CPU fallback", fallback_kind=d.kind, reason=d.reason)
        ops.append(row)
    ok, why = native_available()
    sides = segments(tuple(decisions.values()))
    return {
        "model": str(path),
        "inputs": [_tensor(model.tensors[i]) for i in model.inputs],
        "outputs": [_tensor(model.tensors[i]) for i in model.outputs],
        "operators": ops,
        "summary": {"operators": len(ops), "on_acl": sum(d.on_acl for d in decisions.values()),
                    "on_fallback": sum(not d.on_acl for d in decisions.values()), "folded": len(ops) - len(decisions),
                    "acl_segments": sum(acl for acl, _ in sides), "fallback_segments": sum(not acl for acl, _ in sides)},
        "acl": {"available": bool(ok), "reason": why},
    }


def _tensor_text(t: Dict[str, Any]) -> str:
    q = t["quantization"]
    text = f"{t['name']}  {t['dtype']}{t['shape']}"
    if q is not None:
        if "axis" in q:
            text += f"  quantized per channel along axis {q['axis']} ({len(q['scale'])} scales)"
        else:
            text += f"  quantized: real = {q['scale'][0]:.6g} * (q - {q['zero_point'][0] if q['zero_point'] else 0})"
    return text


def inspect_text(facts: Dict[str, Any]) -> str:
    """:func:`inspect_model`'s facts for people."""
    s, acl = facts["summary"], facts["acl"]
    lines = [f"model: {facts['model']}", "inputs:"]
    lines += [f"  {_tensor_text(t)}" for t in facts["inputs"]]
    lines.append("outputs:")
    lines += [f"  {_tensor_text(t)}" for t in facts["outputs"]]
    lines.append(f"operators: {s['operators']}: {s['on_acl']} on ACL, {s['on_fallback']} on the CPU fallback"
                 + (f", {s['folded']} folded into constants when loaded" if s["folded"] else "")
                 + f" ({s['acl_segments']} ACL segment(s), {s['fallback_segments']} fallback segment(s)), as the "
                 f"lowering decides from the file")
    for op in facts["operators"]:
        where = (f"ACL ({', '.join(op['steps']) or 'a view: no function'})" if op["runs_on"] == "ACL" else
                 f"CPU fallback ({op['fallback_kind']}: {op['reason']})" if op["runs_on"] == "CPU fallback" else
                 "folded when loaded (computed from constants once)")
        lines.append(f"  #{op['index']:<3} {op['opcode']:<20} {op['inputs']} -> {op['outputs']}  {where}")
    lines.append("ACL here: " + ("yes; its validate() may still refuse an operator at configure, which then runs "
                                 "on the fallback" if acl["available"] else
                                 f"absent ({acl['reason']}): --backend numpy runs every operator with numpy"))
    return "\n".join(lines)


__all__ = ["inspect_model", "inspect_text"]
