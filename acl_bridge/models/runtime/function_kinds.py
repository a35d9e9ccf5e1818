"""The ACL function of every step kind, registered by kind (design habit 20): which bridge
function class runs a step (:data:`ROLES`: its roles are the step's tensors and constants),
the function's keyword arguments made from the step's parameters (:func:`options`), and
whether the step places one tensor into another's memory (:func:`places`). A kind adds itself
with ``@function_kind("kind", F.Class)`` on the function that makes its options; the runner
looks kinds up here and names none.

Options are pure: (top, bottom, left, right) windows become ACL's PaddingSize, pad widths lose
the outer (0, 0) axes that ACL's CLPadLayer refuses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Mapping, Optional, Tuple

from ... import functions as F
from ...families import elementwise as E
from ...families import reduction as R
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


@function_kind("convolution", F.Convolution)
def _convolution(p: Mapping[str, object]) -> Dict[str, object]:
    return {"stride": p["stride"], "padding": _window(p["padding"]), **_fused(p)}  # type: ignore[arg-type]


@function_kind("depthwise", F.DepthwiseConvolution)
def _depthwise(p: Mapping[str, object]) -> Dict[str, object]:
    return dict(_convolution(p), depth_multiplier=p.get("depth_multiplier", 1))


function_kind("add", F.Add)(_fused)
function_kind("fully_connected", F.FullyConnected)(_fused)


@function_kind("activation", F.Activation)
def _activation(p: Mapping[str, object]) -> Dict[str, object]:
    return {"function": p["function"], "a": p["a"], "b": p["b"]}


@function_kind("pad", F.Pad)
def _pad(p: Mapping[str, object]) -> Dict[str, object]:
    return {"pad_width": _significant_pad_width(p["pad_width"]), "constant_value": p.get("constant_value", 0.0),
            "mode": p.get("mode", "constant")}


@function_kind("permute", F.Permute)
def _permute(p: Mapping[str, object]) -> Dict[str, object]:
    return {"axes": p["axes"]}


@function_kind("pooling", F.Pooling)
def _pooling(p: Mapping[str, object]) -> Dict[str, object]:
    return {"pool_type": p["pool_type"], "kernel": p["kernel"], "stride": p["stride"],
            "padding": _window(p["padding"]), "exclude_padding": True}  # type: ignore[arg-type]


@function_kind("softmax", F.Softmax)
def _softmax(p: Mapping[str, object]) -> Dict[str, object]:
    return {"beta": p["beta"]}


@function_kind("resize", F.Resize)
def _resize(p: Mapping[str, object]) -> Dict[str, object]:
    return {"interpolation": p.get("interpolation", "bilinear"), "align_corners": p["align_corners"],
            "half_pixel_centers": p["half_pixel_centers"]}


# a copy (into a concatenation's slice, or a reshape) always places; a requantizing quantize
# places into a concatenation's slice (int8 inputs whose scales differ from the output's)
function_kind("copy", F.Copy, places=lambda p: True)(_none)
function_kind("quantize", F.Quantize, places=lambda p: "into" in p)(_none)
function_kind("dequantize", F.Dequantize)(_none)
function_kind("prelu", F.PRelu)(_none)
# the elementwise family: no options (a fused activation is a step of its own: ACL's binary
# functions take none)
function_kind("sub", F.Sub)(_none)
function_kind("mul", F.Mul)(_none)
for _cls in E.CLASSES:
    function_kind(_cls.kind, _cls)(_none)


def _axis(p: Mapping[str, object]) -> Dict[str, object]:
    return {"axis": p["axis"]}


# the reduction family: the numpy axis
for _cls in R.CLASSES:
    function_kind(_cls.kind, _cls)(_axis)

__all__ = ["FunctionKind", "KINDS", "ROLES", "function_kind", "options", "places"]

# the families of their own modules register their kinds
from . import function_kinds_logic, function_kinds_movement, function_kinds_nn  # noqa: E402,F401
from . import function_kinds_detection  # noqa: E402,F401
