"""Arm NN's own per-layer profile of a .tflite file, and the bridge's matched to it operator
by operator (pure: text in, tables out; the profile itself is taken by
:meth:`acl_bridge.models.oracles.armnn_tflite.ArmnnTfliteModel.profile`).

Arm NN's profiler (``IRuntime::GetProfiler(net_id)``, pyarmnn's ``IProfiler.as_json()``)
writes one JSON tree per process: under ``ArmNN``, an ``inference_measurements_#N`` event
whose ``Execute_#N`` child holds one event per workload run, named
``LAYER_WORKLOAD_Execute_#N`` with its ``Wall clock time_#N`` measurement (``raw``: one value
per profiled inference, in ``unit``) and, on CpuAcc, one ``NeonKernelTimer/K: KERNEL_#N``
measurement per ACL kernel the workload ran (the method ACL chose: ``CpuGemmAssemblyWrapperKernel/
a64_hybrid_fp32_mla_6x16``, ``CpuWinogradConv2d...``, ``CpuDepthwiseConv2dAssemblyWrapperKernel/
...``). Arm NN's TfLite parser names each layer after its operator: ``Conv2D:0:9`` is
subgraph 0, operator 9; a fused pair is ``fused-Activation:RELU:0:3-into-Conv2D:0:2``. Those
indices are what the bridge's steps carry (``op_index``), so the two profiles match operator
by operator with no guessing by name or order.

:func:`parse_armnn_profile` reads the JSON (anything it does not recognise is
:class:`ArmnnProfileError` naming it); :func:`compare_profiles` groups TFLite operators that
either runtime ran as one function (a fused activation: the bridge's producer step or Arm NN's
fused layer) and sets the two medians side by side.
"""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ndarray.errors import AclNdarrayError

from .operator_profile import OperatorProfile

_WORKLOAD = re.compile(r"^(?P<layer>.+)_(?P<workload>[A-Za-z0-9]+Workload)_Execute_#\d+$")
_OPERATOR = re.compile(r":(\d+):(\d+)(?=-|$)")  # ":subgraph:operator" at a name's end or before "-into-"
_KERNEL = re.compile(r"^[A-Za-z]+KernelTimer/\d+: (?P<kernel>.+)_#\d+$")
_UNITS_IN_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "ns": 1e-9}


class ArmnnProfileError(AclNdarrayError, ValueError):
    """Arm NN's profile JSON is not of the shape this module reads (names what is missing)."""


@dataclass(frozen=True)
class LayerTime:
    """One Arm NN workload of an inference: its layer (``Conv2D:0:9``), workload class, the
    TFLite operators it ran (empty: a constant, a copy), the ACL kernels it ran, and its
    time in each profiled inference."""

    layer: str
    workload: str
    op_indices: Tuple[int, ...]
    kernels: Tuple[str, ...]
    seconds: Tuple[float, ...]

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds) if self.seconds else 0.0


@dataclass(frozen=True)
class ArmnnProfile:
    model: str
    rounds: int
    layers: Tuple[LayerTime, ...]  # the workloads of operators, in Arm NN's execution order
    others: Tuple[LayerTime, ...]  # constants, copies, working memory: no TFLite operator
    inference_seconds: Tuple[float, ...]  # Arm NN's own wall clock of each profiled inference

    @property
    def total_median_seconds(self) -> float:
        """The sum of the operator workloads' medians (what compares with the bridge's)."""
        return sum(layer.median_seconds for layer in self.layers)


def _measurement(event: Mapping[str, object], where: str) -> Tuple[float, ...]:
    for key, value in event.items():
        if key.startswith("Wall clock time_") and isinstance(value, dict):
            unit = value.get("unit")
            raw = value.get("raw")
            if unit not in _UNITS_IN_SECONDS or not isinstance(raw, list):
                raise ArmnnProfileError(f"{where}: wall clock unit {unit!r} / raw {type(raw).__name__}, "
                                        f"expected a unit of {sorted(_UNITS_IN_SECONDS)} and a list")
            return tuple(float(v) * _UNITS_IN_SECONDS[unit] for v in raw)
    raise ArmnnProfileError(f"{where}: no 'Wall clock time_#N' measurement")


def _children(event: Mapping[str, object]) -> List[Tuple[str, Mapping[str, object]]]:
    return [(k, v) for k, v in event.items() if isinstance(v, dict) and v.get("type") == "Event"]


def parse_armnn_profile(text: str, model: str = "", last: Optional[int] = None) -> ArmnnProfile:
    """The workloads of the last ``inference_measurements`` event of ``text`` (pyarmnn's
    ``IProfiler.as_json()``), or ArmnnProfileError naming what is not there. ``last``: keep
    only each measurement's last values (a profiler enabled for several batches of runs
    appends them all)."""
    try:
        tree = json.loads(text)
    except ValueError as e:
        raise ArmnnProfileError(f"Arm NN's profile is not JSON: {e}") from None
    root = tree.get("ArmNN") if isinstance(tree, dict) else None
    if not isinstance(root, dict):
        raise ArmnnProfileError(f"Arm NN's profile has no 'ArmNN' object (top-level keys: "
                                f"{sorted(tree) if isinstance(tree, dict) else type(tree).__name__})")
    inferences = [(k, v) for k, v in _children(root) if k.startswith("inference_measurements_")]
    if not inferences:
        raise ArmnnProfileError(f"Arm NN's profile has no 'inference_measurements' event (events: "
                                f"{[k for k, _ in _children(root)]}): was profiling enabled before a run?")
    name, inference = inferences[-1]
    executes = [v for k, v in _children(inference) if k.startswith("Execute_")]
    if len(executes) != 1:
        raise ArmnnProfileError(f"{name}: {len(executes)} 'Execute' events, expected 1")
    layers, others = [], []
    for key, event in _children(executes[0]):
        seconds = _measurement(event, key)[-last:] if last else _measurement(event, key)
        kernels = tuple(m.group("kernel") for m in (_KERNEL.match(k) for k in event) if m)  # measurements
        m = _WORKLOAD.match(key)
        layer, workload = (m.group("layer"), m.group("workload")) if m else (key.rsplit("_#", 1)[0], "")
        ops = tuple(int(op) for sub, op in _OPERATOR.findall(layer) if sub == "0") if m else ()
        entry = LayerTime(layer, workload, ops, kernels, seconds)
        (layers if ops and not workload.endswith("ConstantWorkload") else others).append(entry)
    total = _measurement(inference, name)[-last:] if last else _measurement(inference, name)
    return ArmnnProfile(model, len(total), tuple(layers), tuple(others), total)


# ---------------------------------------------------------------------------- side by side
@dataclass(frozen=True)
class MatchedOperators:
    """TFLite operators that one runtime or the other ran as one function, with the
    bridge's functions and Arm NN's workloads for them and their summed medians."""

    op_indices: Tuple[int, ...]
    bridge: Tuple[str, ...]  # "opcode (kind)" of each bridge function
    armnn: Tuple[str, ...]  # each Arm NN layer
    kernels: Tuple[str, ...]  # the ACL kernels Arm NN's workloads ran
    bridge_seconds: float
    armnn_seconds: float

    @property
    def ratio(self) -> Optional[float]:
        """bridge / Arm NN; None where either ran nothing for these operators."""
        if self.bridge_seconds <= 0 or self.armnn_seconds <= 0:
            return None
        return self.bridge_seconds / self.armnn_seconds


@dataclass(frozen=True)
class ProfileComparison:
    model: str
    rows: Tuple[MatchedOperators, ...]  # in operator order
    bridge_total_seconds: float
    armnn_total_seconds: float
    armnn_other_seconds: float  # Arm NN's copies, constants and working memory per inference
    armnn_inference_seconds: float  # Arm NN's own wall clock of an inference (median)

    def as_dict(self) -> Dict[str, object]:
        return {
            "model": self.model, "bridge_total_median_seconds": round(self.bridge_total_seconds, 9),
            "armnn_total_median_seconds": round(self.armnn_total_seconds, 9),
            "armnn_other_median_seconds": round(self.armnn_other_seconds, 9),
            "armnn_inference_median_seconds": round(self.armnn_inference_seconds, 9),
            "operators": [{"op_indices": list(r.op_indices), "bridge": list(r.bridge), "armnn": list(r.armnn),
                           "armnn_kernels": list(r.kernels), "bridge_median_seconds": round(r.bridge_seconds, 9),
                           "armnn_median_seconds": round(r.armnn_seconds, 9),
                           "ratio": None if r.ratio is None else round(r.ratio, 4)} for r in self.rows],
        }

    def text(self, top: int = 15) -> str:
        ratio = self.bridge_total_seconds / self.armnn_total_seconds if self.armnn_total_seconds else float("nan")
        rows = [f"bridge vs Arm NN, operator by operator: {self.model}; functions summed: bridge "
                f"{1e3 * self.bridge_total_seconds:.3f} ms, Arm NN {1e3 * self.armnn_total_seconds:.3f} ms "
                f"(ratio {ratio:.2f}); Arm NN's copies, constants and working memory "
                f"{1e3 * self.armnn_other_seconds:.3f} ms; its inference {1e3 * self.armnn_inference_seconds:.3f} ms",
                f"costliest operators (ops: bridge functions | Arm NN layers; medians; ratio; ACL kernels Arm NN ran):"]
        key = lambda r: -max(r.bridge_seconds, r.armnn_seconds)  # noqa: E731
        for r in sorted(self.rows, key=key)[:top]:
            ratio_text = "  -  " if r.ratio is None else f"{r.ratio:5.2f}"
            rows.append(f"  ops {','.join(map(str, r.op_indices)):<8} {' + '.join(r.bridge) or '(view)':<34} | "
                        f"{' + '.join(r.armnn) or '-':<40} {1e3 * r.bridge_seconds:8.3f} / {1e3 * r.armnn_seconds:8.3f} ms "
                        f"{ratio_text}  {', '.join(k for k in r.kernels if 'pretranspose' not in k)}")
        return "\n".join(rows)


def compare_profiles(bridge: OperatorProfile, armnn: ArmnnProfile,
                     fused_into: Mapping[int, int]) -> ProfileComparison:
    """The two profiles side by side per group of TFLite operators. ``fused_into``: each
    operator the bridge folded into a producer, and that producer's operator index
    (:func:`fused_producers`); Arm NN's fused layers name both of theirs."""
    parent: Dict[int, int] = {}

    def find(i: int) -> int:
        while parent.setdefault(i, i) != i:
            i = parent[i]
        return i

    def union(ops: Iterable[int]) -> None:
        ops = list(ops)
        for a in ops:
            find(a)
        for a in ops[1:]:
            parent[find(a)] = find(ops[0])

    for f in bridge.functions:
        find(f.op_index)
    for op, producer in fused_into.items():
        union((producer, op))
    for layer in armnn.layers:
        union(layer.op_indices)
    groups: Dict[int, List[int]] = {}
    for i in list(parent):
        groups.setdefault(find(i), []).append(i)
    rows = []
    for root, ops in groups.items():
        members = set(ops)
        fs = [f for f in bridge.functions if f.op_index in members]
        ls = [layer for layer in armnn.layers if members & set(layer.op_indices)]
        rows.append(MatchedOperators(
            tuple(sorted(members)), tuple(f"{f.opcode} ({f.kind})" for f in fs), tuple(layer.layer for layer in ls),
            tuple(k for layer in ls for k in layer.kernels), sum(f.median_seconds for f in fs),
            sum(layer.median_seconds for layer in ls)))
    rows.sort(key=lambda r: r.op_indices)
    inference = statistics.median(armnn.inference_seconds) if armnn.inference_seconds else 0.0
    return ProfileComparison(bridge.model or armnn.model, tuple(rows), bridge.total_median_seconds,
                             armnn.total_median_seconds, sum(o.median_seconds for o in armnn.others), inference)


def fused_producers(fused: Sequence[int],
                    operators: Mapping[int, Tuple[Sequence[int], Sequence[int]]]) -> Dict[int, int]:
    """{fused operator: the operator producing its first input}: ``fused`` as a plan lists
    them (:attr:`Plan.fused`), ``operators`` the model's {operator index: (inputs, outputs)}."""
    producer = {t: k for k, (_, outs) in operators.items() for t in outs}
    return {op: producer[operators[op][0][0]] for op in fused
            if operators[op][0] and operators[op][0][0] in producer}


__all__ = ["ArmnnProfile", "LayerTime", "ArmnnProfileError", "parse_armnn_profile", "MatchedOperators",
           "ProfileComparison", "compare_profiles", "fused_producers"]
