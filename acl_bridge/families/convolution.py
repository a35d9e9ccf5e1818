"""The weighted layers room (native/acl_shim_convolution.cpp): Convolution (ACL's
ConvolutionLayer), DepthwiseConvolution, FullyConnected (ACL's FullyConnectedLayer) and Gemm
(ACL's GEMM; with beta 1 and a bias row, GEMM then an addition). The weights and bias of the
first three may be quantized per channel (their output-channel axis: ``_channel_axis``)."""

from __future__ import annotations

from typing import Optional, Tuple

from .. import functions
from ..functions import AclFunction
from ..layout import check_int


class Convolution(AclFunction):
    """2-D convolution (cross-correlation) with optional bias. NCHW: src (N,C,H,W), weights
    (OFM, C, KH, KW); NHWC: src (N,H,W,C), weights (OFM, KH, KW, C); bias (OFM,).
    ``padding`` as for :class:`Pooling`."""

    kind, roles, outputs = "convolution", ("src", "weights", "bias", "dst"), ("dst",)
    optional = ("bias",)
    const_roles = ("weights", "bias")

    @classmethod
    def _channel_axis(cls, role: str, data_layout: str) -> Optional[int]:
        return 0 if role in ("weights", "bias") else None  # OHWI / OIHW: the output channel first

    @classmethod
    def _params(cls, stride=(1, 1), padding=0, activation: Optional[str] = None, act_a: float = 0.0,
                act_b: float = 0.0):
        p = functions.default_params()
        functions._window_params(p, stride, padding)
        functions._activation_params(p, activation, act_a, act_b)
        return p


class DepthwiseConvolution(AclFunction):
    """Depthwise 2-D convolution. NCHW: src (N,C,H,W), weights (C*M, KH, KW); NHWC: src
    (N,H,W,C), weights (KH, KW, C*M); bias (C*M,); M = depth_multiplier."""

    kind, roles, outputs = "depthwise", ("src", "weights", "bias", "dst"), ("dst",)
    optional = ("bias",)
    const_roles = ("weights", "bias")

    @classmethod
    def _channel_axis(cls, role: str, data_layout: str) -> Optional[int]:
        if role == "weights":  # NHWC (KH, KW, C*M): the last axis; NCHW (C*M, KH, KW): the first
            return -1 if data_layout == "NHWC" else 0
        return 0 if role == "bias" else None

    @classmethod
    def _params(cls, stride=(1, 1), padding=0, depth_multiplier: int = 1, activation: Optional[str] = None,
                act_a: float = 0.0, act_b: float = 0.0):
        p = functions.default_params()
        functions._window_params(p, stride, padding)
        p.depth_multiplier = check_int(depth_multiplier, "depth_multiplier", minimum=1)
        functions._activation_params(p, activation, act_a, act_b)
        return p


class FullyConnected(AclFunction):
    """dst = src @ weights.T + bias; src (batch, in), weights (out, in), bias (out,)."""

    kind, roles, outputs = "fully_connected", ("src", "weights", "bias", "dst"), ("dst",)
    optional = ("bias",)
    const_roles = ("weights", "bias")

    @classmethod
    def _channel_axis(cls, role: str, data_layout: str) -> Optional[int]:
        return 0 if role in ("weights", "bias") else None  # weights (out, in)

    @classmethod
    def _params(cls, activation: Optional[str] = None, act_a: float = 0.0, act_b: float = 0.0):
        p = functions.default_params()
        p.transpose_weights = 1
        functions._activation_params(p, activation, act_a, act_b)
        return p


class Gemm(AclFunction):
    """dst = alpha * a @ b + beta * c; a (M,K), b (K,N), c (M,N) or (N,) or None."""

    kind, roles, outputs = "gemm", ("a", "b", "c", "dst"), ("dst",)
    optional = ("c",)

    @classmethod
    def _params(cls, alpha: float = 1.0, beta: float = 1.0):
        p = functions.default_params()
        p.alpha, p.beta = alpha, beta
        return p


CLASSES: Tuple[type, ...] = (Convolution, DepthwiseConvolution, FullyConnected, Gemm)

__all__ = ['Convolution', 'DepthwiseConvolution', 'FullyConnected', 'Gemm', "CLASSES"]
