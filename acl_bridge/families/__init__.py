"""ACL function kinds by family, one room (module) each, every class a subclass of
:class:`~acl_bridge.functions.AclFunction`: :mod:`.activation`, :mod:`.arithmetic` (add, sub,
mul), :mod:`.convolution` (convolution, depthwise, fully connected, GEMM), :mod:`.conversion`
(cast, quantize, dequantize), :mod:`.copying` (copy, permute, pad, fill), :mod:`.elementwise`
(division, maximum, ... with broadcasting; abs, exp, log, ...), :mod:`.logic` (comparisons,
logical operators, arg max / min, select), :mod:`.movement` (strided slice, gather, tile,
depth / space, batch / space), :mod:`.gather_nd` (GATHER_ND's runtime indices), :mod:`.nn`
(deconvolution, normalizations, matmul, 3-D convolution), :mod:`.pooling`, :mod:`.reduction`,
:mod:`.resize`, :mod:`.softmax`, :mod:`.lstm` (float LSTM), :mod:`.qlstm` (TFLite's integer LSTM).

A room is found here by being a module of this package (no list names the rooms): each
says its kinds' classes in ``CLASSES`` and its public names in ``__all__``. :data:`FAMILIES`
is the rooms in name order, :data:`CLASSES` every kind's class, and every room's public
classes are this package's names (``from acl_bridge.families import Div``)."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Dict, List, Tuple

from ..functions import AclFunction


def _rooms() -> Tuple[ModuleType, ...]:
    """Every module of this package, in name order."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in names)


FAMILIES: Tuple[ModuleType, ...] = _rooms()
# kind -> class, every family's
CLASSES: Dict[str, type] = {}
_exported: List[str] = []
for _family in FAMILIES:
    for _cls in _family.CLASSES:
        assert _cls.kind not in CLASSES, f"kind {_cls.kind!r} in two rooms: {CLASSES[_cls.kind]!r}, {_cls!r}"
        CLASSES[_cls.kind] = _cls
    for _name in _family.__all__:
        _value = getattr(_family, _name)
        if isinstance(_value, type) and issubclass(_value, AclFunction):
            assert _name not in globals(), f"{_name} of {_family.__name__} is another room's name too"
            globals()[_name] = _value
            _exported.append(_name)


def function_class(name: str) -> type:
    """The function class called ``name`` (``"Div"``, ``"Convolution"``...) from its family
    room; AttributeError naming it where there is none."""
    cls = globals().get(name) if name in _exported else None
    if cls is None:
        raise AttributeError(f"no ACL function class {name!r} in acl_bridge.families")
    return cls


__all__ = ["CLASSES", "FAMILIES", "function_class", *_exported]
