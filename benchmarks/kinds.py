"""One small call of every function kind, in NCHW and NHWC, with its numpy reference.

Used by benchmarks/bench.py (bytes copied per run, threads) and tests/acl/test_zero_copy.py
(0 bytes copied per run on negotiated, bridge-owned buffers, per kind).
"""

from __future__ import annotations

from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

import numpy as np


class KindCall(NamedTuple):
    name: str  # e.g. "pooling max 3x3 p1 NHWC"
    cls_name: str  # class in acl_bridge.functions or a family (acl_bridge.families.function_class)
    inputs: Dict[str, Optional[np.ndarray]]  # role -> values (None: absent optional tensor)
    outputs: Dict[str, Tuple[Tuple[int, ...], str]]  # role -> (shape, dtype)
    kwargs: dict
    reference: Callable[[Dict[str, np.ndarray]], np.ndarray]  # inputs -> expected output `checked`
    checked: str = "dst"  # the output role the reference gives


def _values(shape, salt=0, dtype=np.float32):
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 + salt) % 23 - 11) / 8.0).reshape(shape).astype(dtype)


def _pool_ref(x, nhwc, k, s, pad, kind):
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    fill = -np.inf if kind == "max" else np.nan
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(2, 3))[:, :, ::s, ::s]
    y = win.max(axis=(-2, -1)) if kind == "max" else np.nanmean(win, axis=(-2, -1))
    return y.transpose(0, 2, 3, 1) if nhwc else y


def _conv_ref(x, w, b, nhwc, pad):
    if nhwc:  # x NHWC, w OHWI
        x, w = x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    y = np.einsum("nchwij,ocij->nohw", win, w) + b[None, :, None, None]
    return (y.transpose(0, 2, 3, 1) if nhwc else y).astype(np.float32)


def _depthwise_ref(x, w, b, nhwc, pad):
    if nhwc:  # x NHWC, w (KH, KW, C)
        x, w = x.transpose(0, 3, 1, 2), w.transpose(2, 0, 1)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[1:], axis=(2, 3))
    y = np.einsum("nchwij,cij->nchw", win, w) + b[None, :, None, None]
    return (y.transpose(0, 2, 3, 1) if nhwc else y).astype(np.float32)


def kind_calls(layouts=("NCHW", "NHWC")) -> List[KindCall]:
    """Every function kind once (the 4-D ones in each layout)."""
    calls: List[KindCall] = []
    flat = (2, 24)
    x2 = _values(flat)
    calls += [
        KindCall("activation relu", "Activation", {"src": x2}, {"dst": (flat, "float32")},
                 dict(function="relu"), lambda v: np.maximum(v["src"], 0)),
        KindCall("add", "Add", {"a": x2, "b": _values(flat, 3)}, {"dst": (flat, "float32")}, {},
                 lambda v: v["a"] + v["b"]),
        KindCall("sub", "Sub", {"a": x2, "b": _values(flat, 3)}, {"dst": (flat, "float32")}, {},
                 lambda v: v["a"] - v["b"]),
        KindCall("mul", "Mul", {"a": x2, "b": _values(flat, 3)}, {"dst": (flat, "float32")}, {},
                 lambda v: v["a"] * v["b"]),
        KindCall("fully_connected", "FullyConnected",
                 {"src": _values((2, 16)), "weights": _values((8, 16), 1) / 4, "bias": _values((8,), 2)},
                 {"dst": ((2, 8), "float32")}, {}, lambda v: v["src"] @ v["weights"].T + v["bias"]),
        KindCall("gemm", "Gemm", {"a": _values((4, 16)), "b": _values((16, 8), 1) / 4, "c": None},
                 {"dst": ((4, 8), "float32")}, {}, lambda v: v["a"] @ v["b"]),
        KindCall("softmax", "Softmax", {"src": x2}, {"dst": (flat, "float32")}, {},
                 lambda v: np.exp(v["src"]) / np.exp(v["src"]).sum(-1, keepdims=True)),
        KindCall("permute", "Permute", {"src": _values((2, 3, 4, 5))}, {"dst": ((2, 4, 5, 3), "float32")},
                 dict(axes=(0, 2, 3, 1)), lambda v: v["src"].transpose(0, 2, 3, 1)),
        KindCall("copy", "Copy", {"src": x2}, {"dst": (flat, "float32")}, {}, lambda v: v["src"]),
        KindCall("pad", "Pad", {"src": _values((2, 3, 4))}, {"dst": ((2, 5, 7), "float32")},
                 dict(pad_width=((0, 0), (1, 1), (2, 1)), constant_value=0.5),
                 lambda v: np.pad(v["src"], ((0, 0), (1, 1), (2, 1)), constant_values=0.5)),
        KindCall("fill", "Fill", {}, {"dst": (flat, "float32")}, dict(value=1.5),
                 lambda v: np.full(flat, 1.5, np.float32)),
        KindCall("cast u8->f32", "Cast", {"src": (np.arange(48) % 251).astype(np.uint8).reshape(flat)},
                 {"dst": (flat, "float32")}, {}, lambda v: v["src"].astype(np.float32)),
        KindCall("quantize", "Quantize", {"src": x2}, {"dst": (flat, "uint8")}, dict(scale=0.25, offset=10),
                 lambda v: np.clip(np.round(v["src"] / 0.25) + 10, 0, 255).astype(np.uint8)),
        KindCall("dequantize", "Dequantize", {"src": (np.arange(48) % 251).astype(np.uint8).reshape(flat)},
                 {"dst": (flat, "float32")}, dict(scale=0.25, offset=10),
                 lambda v: (v["src"].astype(np.float32) - 10) * 0.25),
        # the elementwise family (acl_bridge.families.elementwise): one binary and one unary row
        # per native builder shape, b broadcast along the rows
        KindCall("div", "Div", {"a": x2, "b": np.abs(_values((1, 24), 3)) + 0.5}, {"dst": (flat, "float32")}, {},
                 lambda v: v["a"] / v["b"]),
        KindCall("maximum", "Maximum", {"a": x2, "b": _values(flat, 3)}, {"dst": (flat, "float32")}, {},
                 lambda v: np.maximum(v["a"], v["b"])),
        KindCall("exp", "Exp", {"src": x2}, {"dst": (flat, "float32")}, {}, lambda v: np.exp(v["src"])),
        KindCall("neg", "Neg", {"src": x2}, {"dst": (flat, "float32")}, {}, lambda v: -v["src"]),
        # the logic family (acl_bridge.families.logic): a comparison (two ACL functions: the
        # comparison, then 255 -> 1 in place), an arg max, a select
        KindCall("less", "Less", {"a": x2, "b": _values((1, 24), 3)}, {"dst": (flat, "uint8")}, {},
                 lambda v: (v["a"] < v["b"]).astype(np.uint8)),
        KindCall("arg_max", "ArgMax", {"src": x2}, {"dst": ((flat[0],), "int32")}, dict(axis=-1),
                 lambda v: np.argmax(v["src"], axis=-1).astype(np.int32)),
        KindCall("select", "Select", {"condition": (np.arange(48) % 3 == 0).reshape(flat), "a": x2,
                                      "b": _values(flat, 3)}, {"dst": (flat, "float32")}, {},
                 lambda v: np.where(v["condition"], v["a"], v["b"])),
        # the data-movement family (acl_bridge.families.movement): a strided slice and a gather
        KindCall("strided_slice", "StridedSlice", {"src": x2}, {"dst": ((2, 10), "float32")},
                 dict(begin=(0, 1), end=(2, 21), strides=(1, 2)), lambda v: v["src"][:, 1:21:2]),
        KindCall("gather", "Gather", {"src": x2, "indices": np.array([5, 0, 23, 7], np.int32)},
                 {"dst": ((2, 4), "float32")}, dict(axis=1), lambda v: np.take(v["src"], v["indices"], axis=1)),
        # GATHER_ND's runtime indices (acl_bridge.families.gather_nd): the shim's CPU check, then the gather
        KindCall("gather_nd runtime", "GatherNd", {"src": _values((24, 2)), "indices": np.array([[1, 5], [0, 0], [3, 2]],
                                                                                               np.int32)},
                 {"dst": ((3, 2), "float32")}, dict(dims=(4, 6)), lambda v: v["src"][v["indices"] @ np.array([6, 1])]),
        # the neural-network layers (acl_bridge.families.nn), NHWC (MatMul left out: ACL 20.08 has none)
        KindCall("deconvolution 3x3 s2 NHWC", "Deconvolution",
                 {"src": _values((1, 4, 4, 4)), "weights": _values((3, 3, 3, 4), 5) / 8, "bias": _values((3,), 1)},
                 {"dst": ((1, 8, 8, 3), "float32")}, dict(stride=2, padding=((0, 1), (0, 1)), data_layout="NHWC"),
                 lambda v: _nn().transposed_convolution_sum(v["src"].astype(np.float64), v["weights"], (2, 2),
                                                            (0, 1, 0, 1)) + v["bias"]),
        KindCall("l2_normalize", "L2Normalize", {"src": x2}, {"dst": (flat, "float32")}, {},
                 lambda v: v["src"] / np.sqrt(np.maximum((v["src"].astype(np.float64) ** 2).sum(-1, keepdims=True),
                                                         1e-12))),
        KindCall("local response normalization NHWC", "LocalResponseNormalization", {"src": _values((1, 4, 4, 8))},
                 {"dst": ((1, 4, 4, 8), "float32")}, dict(radius=2, bias=1.0, alpha=0.5, beta=0.75, data_layout="NHWC"),
                 lambda v: _nn()._normalization(None, v["src"].astype(np.float64),
                                                dict(radius=2, bias=1.0, alpha=0.5, beta=0.75), {}, {})),
    ]
    calls.append(_detection_call())
    if _acl_24():  # LSTM (acl_bridge.families.lstm): ACL 20.08's LSTMLayer is refused
        calls.append(_lstm_call())
    if _acl_24():  # 3-D pooling (acl_bridge.families.pooling3d): ACL 20.08 has no Pooling3dLayer
        calls.append(KindCall(
            "pooling_3d avg 2x2x2 s2 NDHWC", "Pooling3D", {"src": _values((1, 4, 4, 4, 4))},
            {"dst": ((1, 2, 2, 2, 4), "float32")}, dict(pool_type="avg", kernel=2, stride=2, data_layout="NHWC"),
            lambda v: _pool3d().pool3d(v["src"].astype(np.float64), "avg", (2, 2, 2), (2, 2, 2), ((0, 0),) * 3,
                                       (1, 2, 2, 2, 4))))
    for layout in layouts:
        nhwc = layout == "NHWC"
        shape = (1, 8, 8, 4) if nhwc else (1, 4, 8, 8)
        x = _values(shape)
        for kind, k, s, pad in (("max", 3, 1, 1), ("avg", 2, 2, 0)):
            out = (1, 8 // s, 8 // s, 4) if nhwc else (1, 4, 8 // s, 8 // s)
            calls.append(KindCall(
                f"pooling {kind} {k}x{k} p{pad} {layout}", "Pooling", {"src": x}, {"dst": (out, "float32")},
                dict(pool_type=kind, kernel=k, stride=s, padding=pad, data_layout=layout),
                lambda v, nhwc=nhwc, k=k, s=s, pad=pad, kind=kind: _pool_ref(v["src"], nhwc, k, s, pad, kind)))
        w = _values((6, 3, 3, 4) if nhwc else (6, 4, 3, 3), 5) / 8
        calls.append(KindCall(
            f"convolution 3x3 p1 {layout}", "Convolution", {"src": x, "weights": w, "bias": _values((6,), 1)},
            {"dst": ((1, 8, 8, 6) if nhwc else (1, 6, 8, 8), "float32")}, dict(padding=1, data_layout=layout),
            lambda v, nhwc=nhwc: _conv_ref(v["src"], v["weights"], v["bias"], nhwc, 1)))
        dw = _values((3, 3, 4) if nhwc else (4, 3, 3), 2) / 4
        calls.append(KindCall(
            f"depthwise 3x3 p1 {layout}", "DepthwiseConvolution", {"src": x, "weights": dw, "bias": _values((4,), 1)},
            {"dst": (shape, "float32")}, dict(padding=1, data_layout=layout),
            lambda v, nhwc=nhwc: _depthwise_ref(v["src"], v["weights"], v["bias"], nhwc, 1)))
        calls.append(KindCall(
            f"resize bilinear x2 {layout}", "Resize", {"src": x},
            {"dst": ((1, 16, 16, 4) if nhwc else (1, 4, 16, 16), "float32")},
            dict(half_pixel_centers=True, data_layout=layout),
            lambda v, nhwc=nhwc: _resize_ref(v["src"], nhwc, (16, 16))))
        alpha = _values((1, 1, 1, 4) if nhwc else (1, 4, 1, 1), 3) / 4  # one slope per channel
        calls.append(KindCall(
            f"prelu per channel {layout}", "PRelu", {"src": x, "alpha": alpha}, {"dst": (shape, "float32")},
            dict(data_layout=layout), lambda v: np.where(v["src"] > 0, v["src"], v["alpha"] * v["src"])))
    return calls


def _detection_call() -> KindCall:
    """DetectionPostProcess (acl_bridge.families.detection): 16 anchors on a grid, 3 classes and
    a background column, the regular NMS; checked on the boxes."""
    from acl_bridge.models.fallback import detection as Dt  # TFLite's kernel, checked against its interpreter
    from acl_bridge.models.format.detection_options import DetectionOptions

    n, side = 16, 4
    k = np.arange(n)
    anchors = np.stack([(k // side + 0.5) / side, (k % side + 0.5) / side, np.full(n, 0.4), np.full(n, 0.3)], 1)
    scores = ((np.arange(n * 4) * 29) % (n * 4) + 0.5) / (n * 4)  # distinct
    opts = DetectionOptions(4, 1, 2, True, 0.3, 0.5, 3, 10.0, 10.0, 5.0, 5.0)
    return KindCall(
        "detection_post_process", "DetectionPostProcess",
        {"box_encodings": _values((1, n, 4)) / 4, "class_scores": scores.reshape(1, n, 4).astype(np.float32),
         "anchors": anchors.astype(np.float32)},
        {"boxes": ((1, 4, 4), "float32"), "classes": ((1, 4), "float32"), "scores": ((1, 4), "float32"),
         "num_detections": ((1,), "float32")},
        dict(max_detections=4, num_classes=3, use_regular_nms=True, detections_per_class=2, nms_score_threshold=0.3,
             nms_iou_threshold=0.5),
        lambda v: Dt.post_process(v["box_encodings"], v["class_scores"], v["anchors"], opts)[0], "boxes")


def _lstm_call() -> KindCall:
    """Lstm (acl_bridge.families.lstm): one step, batch 2, 8 inputs, 8 cells, no optional parts."""
    from acl_bridge.families.lstm import ROLES
    from acl_bridge.models.fallback.lstm import lstm_step  # TFLite's kernel, checked against its interpreter

    batch, n_in, n_cell = 2, 8, 8
    shapes = {"src": (batch, n_in), "output_state_in": (batch, n_cell), "cell_state_in": (batch, n_cell)}
    shapes.update({f"input_to_{g}_weights": (n_cell, n_in) for g in ("input", "forget", "cell", "output")})
    shapes.update({f"recurrent_to_{g}_weights": (n_cell, n_cell) for g in ("input", "forget", "cell", "output")})
    shapes.update({f"{g}_gate_bias": (n_cell,) for g in ("input", "forget", "output")}, cell_bias=(n_cell,))
    inputs = {r: _values(shapes[r], k) / 4 if r in shapes else None for k, r in enumerate(ROLES[:24])}
    out = ((batch, n_cell), "float32")
    return KindCall(
        "lstm b2 i8 c8", "Lstm", inputs, {"output_state_out": out, "cell_state_out": out, "dst": out}, {},
        lambda v: lstm_step(v["src"], v["output_state_in"], v["cell_state_in"], [v.get(r) for r in ROLES[:24]],
                            "TANH", 0.0, 0.0)[0])


def _acl_24() -> bool:
    """Whether the native layer runs ACL 24.x (the kinds 20.08 lacks are left out otherwise)."""
    from acl_bridge import native

    return native.native_available()[0] and not native.acl_version().startswith("20.")


def _pool3d():
    from acl_bridge.models.fallback import pooling3d  # the plan's numpy kernel, checked against TFLite's pooling3d.cc

    return pooling3d


def _nn():
    from acl_bridge.models.fallback import nn_layers  # the plan's numpy kernels, checked against TFLite's interpreter

    return nn_layers


def _resize_ref(x, nhwc, out_hw):
    from acl_bridge.models.fallback.step_kernels import resize_bilinear  # TFLite's formula, checked against its interpreter

    y = resize_bilinear(x if nhwc else x.transpose(0, 2, 3, 1), out_hw, half_pixel_centers=True)
    return (y if nhwc else y.transpose(0, 3, 1, 2)).astype(np.float32)
