"""The ACL function of every step kind, registered by kind (design habit 20): which bridge
function class runs a step (:data:`ROLES`: its roles are the step's tensors and constants),
the function's keyword arguments made from the step's parameters (:func:`options`), and
whether the step places one tensor into another's memory (:func:`places`). A kind adds itself
with ``@function_kind("kind", Class)`` on the function that makes its options, in its family's
module ``function_kinds_<family>.py`` beside this one; every such module is imported here
(found by its name: :data:`ROOMS`), and the runner looks kinds up here and names none.

Options are pure: (top, bottom, left, right) windows become ACL's PaddingSize, pad widths lose
the outer (0, 0) axes that ACL's CLPadLayer refuses."""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass
from typing import Callable, Dict, Mapping, Optional, Tuple

from ...mapping import PaddingSize

Options = Callable[[Mapping[str, object]], Dict[str, object]]


@dataclass(frozen=True)
class FunctionKind:
    """A step kind on ACL: its bridge ``function`` class, the ``options`` it takes from the
    step's parameters, and ``places`` (None: never), whether a step of it moves its input into
    another tensor's memory where no view could be made."""

    kind: str
    function: type
    options: Options
    places: Optional[Callable[[Mapping[str, object]], bool]] = None


_HERE = [os.path.dirname(os.path.abspath(__file__))]
KINDS: Dict[str, FunctionKind] = {}
ROLES: Dict[str, type] = {}  # kind -> bridge function class (its ``roles`` order the step's tensors)


def function_kind(kind: str, function: type, *,
                  places: Optional[Callable[[Mapping[str, object]], bool]] = None) -> Callable[[Options], Options]:
    """Register the decorated ``params -> keyword arguments`` function as step ``kind``'s
    options, ``function`` as its bridge function."""
    def add(options: Options) -> Options:
        assert kind not in KINDS, f"step kind {kind!r} registered twice: {function!r}, {KINDS[kind]!r}"
        KINDS[kind] = FunctionKind(kind, function, options, places)
        ROLES[kind] = function
        return options
    return add


def options(kind: str, params: Mapping[str, object]) -> Dict[str, object]:
    """The bridge function's keyword arguments for a step of ``kind`` with ``params`` (its
    quantization excepted: the runner adds it)."""
    return KINDS[kind].options(params) if kind in KINDS else {}


def places(kind: str, params: Mapping[str, object]) -> bool:
    """Whether a step of ``kind`` moves one tensor into another's memory (see :class:`FunctionKind`)."""
    k = KINDS.get(kind)
    return k is not None and k.places is not None and k.places(params)


def _window(padding: Tuple[int, int, int, int]) -> PaddingSize:
    """The plan's (top, bottom, left, right) as ACL's PaddingSize."""
    top, bottom, left, right = padding
    return PaddingSize(top=top, right=right, bottom=bottom, left=left)


def _significant_pad_width(pad_width) -> Tuple[Tuple[int, int], ...]:
    """pad_width without its outer (0, 0) axes (at least one axis stays): the same padding,
    and what ACL's CLPadLayer accepts (it refuses more entries than the tensor's ACL
    dimensions, which stop at the last extent > 1: a batch of 1 is no dimension to it)."""
    pairs = tuple(tuple(pw) for pw in pad_width)
    k = 0
    while k < len(pairs) - 1 and tuple(pairs[k]) == (0, 0):
        k += 1
    return pairs[k:]


def _fused(p: Mapping[str, object]) -> Dict[str, object]:
    return {"activation": p.get("activation"), "act_a": p.get("act_a", 0.0), "act_b": p.get("act_b", 0.0)}


def _none(p: Mapping[str, object]) -> Dict[str, object]:
    return {}


def _axis(p: Mapping[str, object]) -> Dict[str, object]:
    return {"axis": p["axis"]}


__all__ = ["FunctionKind", "KINDS", "ROLES", "function_kind", "options", "places"]



def _register_rooms() -> Tuple[str, ...]:
    """Import every ``function_kinds_<family>`` module beside this one, in name order (each
    registers its kinds with :func:`function_kind`); their names."""
    names = sorted(m.name for m in pkgutil.iter_modules(_HERE)
                   if m.name.startswith("function_kinds_"))
    for name in names:
        importlib.import_module(f"{__package__}.{name}")
    return tuple(names)


ROOMS: Tuple[str, ...] = _register_rooms()
