"""The lowering table: one rule per TFLite operator, registered by its opcode name.

A rule is a function ``(op, model) -> tuple of Lowered`` (:class:`~..step.Step` bridge calls,
or :class:`~..step.Reshape` / :class:`~..step.Concatenate` placements for the view pass) that
raises UnsupportedModelError (:func:`~..helpers.refuse`) for what the bridge cannot run and
ModelFormatError (:func:`~..helpers.malformed`) for what contradicts itself. It sees the
whole operator and model, so it may look at tensor types and quantization and may return
several steps. Its registration also names the tensor-type gate (``tensors``) that
:func:`~...planning.tflite_plan.plan_model` runs on every operator before any is lowered.

An opcode without a rule meets the default rule, :func:`refuse_operator`, which names the
operator, its index and why (Arm NN's ``ParseUnsupportedOperator``).

The rules live by family beside this module (:mod:`.convolution`, :mod:`.elementwise`,
:mod:`.activations`, :mod:`.quantization`, :mod:`.pooling`, :mod:`.reduction`, :mod:`.shape`), each registering
its own with ``@rule``; the package imports them all and ``SUPPORTED`` is the table's keys.
Adding an operator: a ``@rule("OPCODE")`` function in its family's module, and its case in
``tests/models/test_one_operator.py`` (a one-operator model run by TFLite's interpreter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, NoReturn, Tuple

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import TensorCheck, float32_except, refuse
from ..quantized import float32_or_quantized
from ..step import Lowered

RuleFunction = Callable[[OperatorSpec, ModelSpec], Tuple[Lowered, ...]]


@dataclass(frozen=True)
class Rule:
    """How one opcode is lowered: ``lower`` (the rule) and ``tensors`` (the type gate)."""

    opcode: str
    lower: RuleFunction
    tensors: TensorCheck


RULES: Dict[str, Rule] = {}
FLOAT32 = float32_except()
# float32, but input 1 is a constant integer table the rule reads (paddings, new shape, new size)
FLOAT32_WITH_TABLE = float32_except(1)
# float32 or int8 / uint8 (every live tensor; per-tensor quantization): the rule looks at the types
FLOAT32_OR_INT8 = float32_or_quantized()
FLOAT32_OR_INT8_WITH_TABLE = float32_or_quantized(1)
# ... with constant weights (input 1) and bias (input 2: int32 when quantized)
WEIGHTED = float32_or_quantized(weights=1, bias=2)
# why an operator without a rule has none, where there is more to say than the list
WHY_NOT: Dict[str, str] = {}


def rule(*opcodes: str, tensors: TensorCheck = FLOAT32) -> Callable[[RuleFunction], RuleFunction]:
    """Register the decorated function as the rule of ``opcodes``."""

    def register(lower: RuleFunction) -> RuleFunction:
        for code in opcodes:
            if code in RULES:
                raise ValueError(f"opcode {code} has two rules: {RULES[code].lower.__name__} and {lower.__name__}")
        RULES.update((code, Rule(code, lower, tensors)) for code in opcodes)
        return lower

    return register


def refuse_operator(op: OperatorSpec, model: ModelSpec) -> NoReturn:
    """The default rule: the operator has no rule, refused naming it, its index and why."""
    raise refuse(op, f"the operator ({WHY_NOT.get(op.opcode, 'supported operators: ' + ', '.join(sorted(RULES)))})")


def rule_for(opcode: str) -> Rule:
    """The rule of ``opcode``, or the default rule (which refuses at the type gate already)."""
    return RULES.get(opcode) or Rule(opcode, refuse_operator, refuse_operator)

__all__ = ["Rule", "RULES", "RuleFunction", "WHY_NOT", "rule", "rule_for", "refuse_operator", "FLOAT32",
           "FLOAT32_WITH_TABLE", "FLOAT32_OR_INT8", "FLOAT32_OR_INT8_WITH_TABLE", "WEIGHTED"]
