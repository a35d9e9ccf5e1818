"""TFLite operators -> bridge function calls, as a table of rules (design habit 17).

* :mod:`.step`: what a rule returns (:class:`Step`, a bridge call; :class:`Reshape` and
  :class:`Concatenate`, placements the plan's view pass resolves; :class:`Intermediate`, a
  tensor the plan adds to the model for the rule);
* :mod:`.helpers`: the shared parts (refusals naming the operator, option access, the
  float32 type gate, TFLite's SAME padding and windows, fused activations, constants,
  integer tables);
* :mod:`.rules`: the table ``RULES`` (opcode -> :class:`Rule`), filled by ``@rule``, rules
  grouped by family; ``rule_for`` falls back to the default rule that refuses;
  ``SUPPORTED`` is the table's keys.

:mod:`..planning.tflite_plan` runs the rules over a model and adds what spans operators (views,
activation fusion).
"""

from .rules import RULES, SUPPORTED, Rule, rule, rule_for
from .step import Concatenate, Intermediate, Lowered, Reshape, Slice, Step

__all__ = ["RULES", "SUPPORTED", "Rule", "rule", "rule_for", "Step", "Reshape", "Concatenate", "Slice", "Intermediate",
           "Lowered"]
