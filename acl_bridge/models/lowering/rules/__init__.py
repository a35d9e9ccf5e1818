"""The lowering table (:mod:`.table`) filled by the rules of every family, one module each
beside it (:mod:`.convolution`, :mod:`.elementwise`, :mod:`.activations`, :mod:`.quantization`,
:mod:`.pooling`, :mod:`.reduction`, :mod:`.shape`, :mod:`.logic`, :mod:`.movement`, :mod:`.nn`,
...). Importing the package imports every module of it (found by its place, in name order:
:data:`FAMILIES`), which registers their rules; ``SUPPORTED`` is the table's keys, sorted."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Tuple

from .table import RULES, WHY_NOT, Rule, RuleFunction, refuse_operator, rule, rule_for


def _families() -> Tuple[ModuleType, ...]:
    """Every rules module of this package but the table, in name order (importing registers)."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "table" and not m.name.startswith("_"))
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in names)


FAMILIES: Tuple[ModuleType, ...] = _families()
SUPPORTED: Tuple[str, ...] = tuple(sorted(RULES))

from .pooling import MEAN_AXES  # noqa: E402  (imported above, with every family)

__all__ = ["Rule", "RULES", "SUPPORTED", "WHY_NOT", "FAMILIES", "RuleFunction", "rule", "rule_for",
           "refuse_operator", "MEAN_AXES"]
