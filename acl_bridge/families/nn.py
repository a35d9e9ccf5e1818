"""The neural-network layers family (native/acl_shim_nn.cpp): Deconvolution (TFLite's
TRANSPOSE_CONV, ACL's DeconvolutionLayer), L2Normalize (ACL's L2NormalizeLayer),
LocalResponseNormalization (ACL's NormalizationLayer across channels), MatMul (ACL's
MatMul, batched) and Convolution3D (ACL's Conv3D, NDHWC); the last two not in ACL 20.08 (24.11 has both): on ACL
20.08 their construction is refused as by ACL's validate().

Data types are ACL's: float32 / float16 everywhere, int8 / uint8 (quantized) for the
deconvolution (per-tensor or per-channel weights, int32 bias) and the matmul where ACL's
validate() takes them."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from ndarray.errors import UnsupportedOptionError

from .. import functions
from ..functions import AclFunction
from ..layout import check_int


class Deconvolution(AclFunction):
    """Transposed 2-D convolution: every src element scatters ``weights`` times itself into
    a full output of (in - 1) * stride + kernel per spatial axis, of which dst is the part
    after ``padding`` (top, bottom, left, right cropped; TFLite's TRANSPOSE_CONV). NHWC:
    src (N,H,W,C), weights (OFM, KH, KW, C) as TFLite stores them; NCHW: src (N,C,H,W),
    weights (OFM, C, KH, KW); bias (OFM,)."""

    kind, roles, outputs = "deconvolution", ("src", "weights", "bias", "dst"), ("dst",)
    optional = ("bias",)
    const_roles = ("weights", "bias")

    @classmethod
    def _channel_axis(cls, role: str, data_layout: str) -> Optional[int]:
        return 0 if role in ("weights", "bias") else None  # the output channel first

    @classmethod
    def _params(cls, stride=(1, 1), padding=0):
        p = functions.default_params()
        functions._window_params(p, stride, padding)
        return p


def _acl_axis(cls: type, arrays: Sequence, axis: int, most: int) -> int:
    """The numpy ``axis`` of src as ACL's dimension (``rank - 1 - axis``), which must be
    below ``most``."""
    rank = len(functions._spec_of(arrays[0], "src")[0])
    if not -rank <= axis < rank:
        raise UnsupportedOptionError(f"{cls.__name__}: axis is {axis}, expected -{rank}..{rank - 1} "
                                     f"for a rank-{rank} src")
    acl = rank - 1 - axis % rank
    if acl >= most:
        raise UnsupportedOptionError(f"{cls.__name__}: axis {axis} of a rank-{rank} src is ACL's dimension {acl}; "
                                     f"ACL normalizes along its dimensions 0..{most - 1} (the last {most} numpy axes)")
    return acl


class L2Normalize(AclFunction):
    """dst = src / sqrt(max(sum(src**2, axis), epsilon)) (TFLite's L2_NORMALIZATION: the last
    axis, epsilon 1e-12 = (1e-6)**2). ``axis``: one of the last three numpy axes."""

    kind, roles, outputs = "l2_normalize", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, axis: int = -1, epsilon: float = 1e-12):
        p = functions.default_params()
        p.axis = check_int(axis, "axis", minimum=-6)
        if not epsilon > 0:
            raise UnsupportedOptionError(f"L2Normalize: epsilon is {epsilon!r}, expected a number > 0")
        p.epsilon = epsilon
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        arrays, kind, params, quant = super()._call(args, options, quantization)
        params.axis = _acl_axis(cls, arrays, params.axis, 3)
        return arrays, kind, params, quant


class LocalResponseNormalization(AclFunction):
    """Across channels (the last numpy axis for NHWC, axis 1 for NCHW): dst = src /
    (bias + alpha * sum(src**2 over the channels c - radius .. c + radius))**beta
    (TFLite's LOCAL_RESPONSE_NORMALIZATION; ACL's window is 2 * radius + 1 channels)."""

    kind, roles, outputs = "normalization", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, radius: int = 2, bias: float = 1.0, alpha: float = 1e-4, beta: float = 0.5):
        p = functions.default_params()
        p.norm_size = 2 * check_int(radius, "radius", minimum=0) + 1
        p.kappa, p.alpha, p.beta = bias, alpha, beta
        return p


class MatMul(AclFunction):
    """dst = a @ b over the last two numpy axes, the leading (batch) axes equal; ``adj_a`` /
    ``adj_b`` transpose a's / b's last two axes first (TFLite's BATCH_MATMUL adj_x / adj_y).
    ACL 24.11 (ACL 20.08 has no MatMul: AclStatusError naming NEMatMul::validate at construction,
    which the model runner's partition takes as ACL's refusal)."""

    kind, roles, outputs = "matmul", ("a", "b", "dst"), ("dst",)

    @classmethod
    def _params(cls, adj_a: bool = False, adj_b: bool = False):
        if not isinstance(adj_a, bool) or not isinstance(adj_b, bool):
            raise UnsupportedOptionError(f"MatMul: adj_a and adj_b must be bool, got adj_a={adj_a!r}, adj_b={adj_b!r}")
        p = functions.default_params()
        p.adj_a, p.adj_b = int(adj_a), int(adj_b)
        return p


class Convolution3D(AclFunction):
    """3-D convolution (cross-correlation) of NDHWC tensors: src (N, D, H, W, C), weights
    (KD, KH, KW, C, OFM) as TFLite's CONV_3D stores them, bias (OFM,), dst (N, D', H', W',
    OFM). ``stride`` (d, h, w); ``padding`` ((front, back), (top, bottom), (left, right));
    a fused ``activation`` on NEON only (CLConv3D refuses one: "Fused activation not supported").
    Give ``data_layout="NHWC"`` (the channel last). ACL 24.11 (ACL 20.08 has no Conv3D:
    AclStatusError naming NEConv3D::validate at construction)."""

    kind, roles, outputs = "convolution_3d", ("src", "weights", "bias", "dst"), ("dst",)
    optional = ("bias",)
    const_roles = ("weights", "bias")

    @classmethod
    def _params(cls, stride=(1, 1, 1), padding=((0, 0), (0, 0), (0, 0)), activation: Optional[str] = None,
                act_a: float = 0.0, act_b: float = 0.0):
        stride, padding = tuple(stride), tuple(tuple(pw) for pw in padding)
        if len(stride) != 3 or len(padding) != 3 or any(len(pw) != 2 for pw in padding):
            raise UnsupportedOptionError(f"Convolution3D: stride {stride!r} / padding {padding!r}, expected "
                                         f"(d, h, w) and ((front, back), (top, bottom), (left, right))")
        sd, sh, sw = (check_int(v, "stride", minimum=1) for v in stride)
        (front, back), (top, bottom), (left, right) = ((check_int(a, "padding"), check_int(b, "padding"))
                                                       for a, b in padding)
        p = functions.default_params()
        p.stride_z, p.stride_y, p.stride_x = sd, sh, sw
        p.pad_front, p.pad_back, p.pad_top, p.pad_bottom, p.pad_left, p.pad_right = front, back, top, bottom, left, right
        functions._activation_params(p, activation, act_a, act_b)
        return p


CLASSES: Tuple[type, ...] = (Deconvolution, L2Normalize, LocalResponseNormalization, MatMul, Convolution3D)

__all__ = ["Deconvolution", "L2Normalize", "LocalResponseNormalization", "MatMul", "Convolution3D", "CLASSES"]
