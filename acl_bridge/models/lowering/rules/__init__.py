"""The lowering table (:mod:`.table`) filled by the rules of every family, one module each:
:mod:`.convolution`, :mod:`.elementwise`, :mod:`.activations`, :mod:`.quantization`,
:mod:`.pooling`, :mod:`.reduction`, :mod:`.shape`, :mod:`.logic`, :mod:`.movement`, :mod:`.nn`, :mod:`.detection`.
Importing the package registers them all; ``SUPPORTED`` is the table's keys, sorted."""

from __future__ import annotations

from typing import Tuple

from . import activations, convolution, elementwise, pooling, quantization, reduction, shape  # noqa: F401  (they register)
from . import logic, movement, nn  # noqa: F401  (they register)
from . import detection  # noqa: F401  (it registers)
from .pooling import MEAN_AXES
from .table import RULES, WHY_NOT, Rule, RuleFunction, refuse_operator, rule, rule_for

SUPPORTED: Tuple[str, ...] = tuple(sorted(RULES))

__all__ = ["Rule", "RULES", "SUPPORTED", "WHY_NOT", "RuleFunction", "rule", "rule_for", "refuse_operator",
           "MEAN_AXES"]
