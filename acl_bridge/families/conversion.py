"""The conversion room (native/acl_shim_conversion.cpp): a tensor's data type or quantization
changed: Cast (ACL's DepthConvertLayer), Quantize (ACL's QuantizationLayer, also a
requantization between quantized types) and Dequantize (ACL's DequantizationLayer)."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from ndarray.errors import UnsupportedOptionError

from .. import abi, functions
from ..functions import AclFunction


class Cast(AclFunction):
    """Data type conversion (NEDepthConvertLayer), e.g. uint8 -> float32, float32 -> float16."""

    kind, roles, outputs = "cast", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, policy: str = "saturate"):
        p = functions.default_params()
        p.convert_policy = abi.code(abi.POLICIES, policy, "policy")
        return p


class _Requantize(AclFunction):
    """A conversion whose ``quantized`` tensor carries (scale, offset): given as the options
    ``scale`` and ``offset``, or as ``quantization={role: (scale, offset)}``."""

    roles, outputs = ("src", "dst"), ("dst",)
    quantized = ""

    @classmethod
    def _params(cls, scale: Optional[float] = None, offset: int = 0):
        return functions.default_params()

    @classmethod
    def _quantization(cls, scale: Optional[float] = None, offset: int = 0, **options):
        return {} if scale is None else {cls.quantized: (scale, offset)}

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        given = dict(quantization or {})
        if "scale" in options and options["scale"] is not None and given.get(cls.quantized) is not None \
                and tuple(given[cls.quantized]) != (options["scale"], options.get("offset", 0)):
            raise UnsupportedOptionError(
                f"{cls.__name__}: scale={options['scale']!r}, offset={options.get('offset', 0)!r} and "
                f"quantization[{cls.quantized!r}]={given[cls.quantized]!r} disagree; give one of them")
        arrays, kind, params, quant = super()._call(args, options, quantization)
        if quant.get(cls.quantized) is None:
            raise UnsupportedOptionError(
                f"{cls.__name__}: {cls.quantized} needs its quantization: scale=..., offset=... or "
                f"quantization={{{cls.quantized!r}: (scale, offset)}}")
        return arrays, kind, params, quant


class Quantize(_Requantize):
    """dst = clip(round(src / scale) + offset) into uint8 (QASYMM8) or int8 (QASYMM8_SIGNED).
    With ``quantization`` on src too (uint8/int8 src), a requantization: dst = clip(round(
    (src - src_offset) * src_scale / dst_scale) + dst_offset)."""

    kind, quantized = "quantize", "dst"


class Dequantize(_Requantize):
    """dst = (src - offset) * scale, src uint8/int8 holding QASYMM8/QASYMM8_SIGNED values."""

    kind, quantized = "dequantize", "src"


CLASSES: Tuple[type, ...] = (Cast, Quantize, Dequantize)

__all__ = ['Cast', 'Quantize', 'Dequantize', "CLASSES"]
