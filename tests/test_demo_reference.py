"""The demo's numpy reference network against independent formulations (host, no ACL).

The demo checks ACL and Arm NN against ``acl_bridge.demo.reference_forward``; these tests
check that reference itself: convolution by explicit loops vs an im2col matrix product vs a
fully scalar loop, pooling vs reshapes, softmax properties, deterministic weights.
"""

import re

import numpy as np
import pytest

from acl_bridge import demo


def im2col_conv(x, w, b, stride, pad):
    """Convolution as one matrix product: columns of every receptive field (im2col)."""
    x = np.pad(np.asarray(x, np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    cols = np.empty((n, c * kh * kw, oh * ow))
    for i in range(oh):
        for j in range(ow):
            cols[:, :, i * ow + j] = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw].reshape(n, -1)
    y = np.asarray(w, np.float64).reshape(o, -1) @ cols  # (n, o, oh*ow)
    return y.reshape(n, o, oh, ow) + np.asarray(b, np.float64)[None, :, None, None]


def scalar_conv(x, w, b, stride, pad):
    """The definition, one multiply-add at a time, reading zeros outside the input."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for nn in range(n):
        for oo in range(o):
            for i in range(oh):
                for j in range(ow):
                    acc = float(b[oo])
                    for cc in range(c):
                        for ky in range(kh):
                            for kx in range(kw):
                                yy, xx = i * stride + ky - pad, j * stride + kx - pad
                                if 0 <= yy < h and 0 <= xx < wd:
                                    acc += float(x[nn, cc, yy, xx]) * float(w[oo, cc, ky, kx])
                    out[nn, oo, i, j] = acc
    return out


@pytest.mark.parametrize("stride,pad", [(1, 0), (1, 1), (2, 1), (2, 0)])
def test_conv_loops_match_im2col(stride, pad):
    x = demo.deterministic((2, 3, 7, 6), 11, 1.0)
    w = demo.deterministic((4, 3, 3, 3), 12, 0.5)
    b = demo.deterministic((4,), 13, 0.1)
    got = demo.conv2d_ref(x, w, b, stride, pad)
    np.testing.assert_allclose(got, im2col_conv(x, w, b, stride, pad), rtol=1e-12, atol=1e-12)


def test_conv_matches_scalar_definition():
    x = demo.deterministic((1, 2, 5, 5), 21, 1.0)
    w = demo.deterministic((3, 2, 3, 3), 22, 1.0)
    b = demo.deterministic((3,), 23, 1.0)
    np.testing.assert_allclose(demo.conv2d_ref(x, w, b, 1, 1), scalar_conv(x, w, b, 1, 1), rtol=1e-12, atol=1e-12)


def test_conv_is_cross_correlation_not_flipped():
    # a single 1 at the kernel's top-left picks the input pixel up-left of the centre
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    w = np.zeros((1, 1, 3, 3), np.float32)
    w[0, 0, 0, 0] = 1
    y = demo.conv2d_ref(x, w, None, 1, 1)
    assert y[0, 0, 2, 2] == x[0, 0, 1, 1]
    assert y[0, 0, 0, 0] == 0  # reads the zero padding


def test_pooling_matches_reshape_formulation():
    x = demo.deterministic((1, 4, 8, 6), 31, 1.0).astype(np.float64)
    blocks = x.reshape(1, 4, 4, 2, 3, 2)
    np.testing.assert_array_equal(demo.pool2d_ref(x, "max", 2, 2), blocks.max(axis=(3, 5)))
    np.testing.assert_allclose(demo.pool2d_ref(x, "avg", 2, 2), blocks.mean(axis=(3, 5)), rtol=1e-15)
    gap = demo.pool2d_ref(x[:, :, :6, :6], "avg", 6, 1)
    np.testing.assert_allclose(gap[:, :, 0, 0], x[:, :, :6, :6].mean(axis=(2, 3)), rtol=1e-15)


def test_fc_and_relu():
    x = demo.deterministic((2, 5), 41, 1.0)
    w = demo.deterministic((3, 5), 42, 1.0)
    b = demo.deterministic((3,), 43, 1.0)
    expected = np.array([[sum(float(x[n, i]) * float(w[o, i]) for i in range(5)) + float(b[o]) for o in range(3)]
                         for n in range(2)])
    np.testing.assert_allclose(demo.fc_ref(x, w, b), expected, rtol=1e-12)
    np.testing.assert_array_equal(demo.relu_ref(np.array([-1.0, 0.0, 2.5])), [0.0, 0.0, 2.5])


def test_softmax_properties():
    z = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 1000.0], [-5.0, 0.0, 5.0]])
    s = demo.softmax_ref(z)
    np.testing.assert_allclose(s.sum(axis=-1), 1.0, rtol=1e-15)
    assert np.all(s > 0)
    np.testing.assert_allclose(s[1], [1 / 3] * 3)  # no overflow on large logits
    np.testing.assert_allclose(s[0], np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum())
    np.testing.assert_allclose(demo.softmax_ref(z + 7.0), s)  # shift invariance


def test_deterministic_weights_are_pinned():
    a, b = demo.make_weights(0), demo.make_weights(0)
    for name in ("conv1_w", "conv1_b", "conv2_w", "conv2_b", "fc_w", "fc_b"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert getattr(a, name).dtype == np.float32
    assert a.conv1_w.shape == demo.CONV1 and a.conv2_w.shape == demo.CONV2 and a.fc_w.shape == demo.FC
    assert not np.array_equal(demo.make_weights(1).conv1_w, a.conv1_w)
    # integer hashing: the same values on every machine and numpy version
    v = demo.deterministic((4,), 0, 1.0)
    h = [((i * 2654435761 + 12345) % 2**32) for i in range(4)]
    h = [((k ^ (k >> 13)) * 2246822519) % 2**32 for k in h]
    np.testing.assert_array_equal(v, np.float32([(k / 2**32) * 2 - 1 for k in h]))
    u = demo.deterministic((10000,), 5, 2.0)
    assert -2.0 <= u.min() < -1.9 and 1.9 < u.max() < 2.0 and abs(float(u.mean())) < 0.05


def test_reference_network_shapes_and_output():
    w, x = demo.make_weights(), demo.make_input()
    assert x.shape == demo.INPUT_SHAPE
    ref = demo.reference_forward(x, w)
    assert list(ref) == list(demo.LAYERS)
    shapes = {k: v.shape for k, v in ref.items()}
    assert shapes == {"conv1": (1, 8, 16, 16), "pool1": (1, 8, 8, 8), "conv2": (1, 16, 8, 8),
                      "gap": (1, 16, 1, 1), "fc": (1, 10), "softmax": (1, 10)}
    assert all(v.dtype == np.float64 for v in ref.values())
    assert ref["conv1"].min() >= 0 and ref["conv2"].min() >= 0  # ReLU
    np.testing.assert_allclose(ref["softmax"].sum(), 1.0, rtol=1e-12)
    # the layers feed each other as documented (independent formulations end to end)
    c1 = np.maximum(im2col_conv(x, w.conv1_w, w.conv1_b, 1, 1), 0)
    p1 = c1.reshape(1, 8, 8, 2, 8, 2).max(axis=(3, 5))
    c2 = np.maximum(im2col_conv(p1, w.conv2_w, w.conv2_b, 1, 1), 0)
    logits = c2.mean(axis=(2, 3)) @ w.fc_w.T.astype(np.float64) + w.fc_b
    np.testing.assert_allclose(ref["softmax"], np.exp(logits) / np.exp(logits).sum(), rtol=1e-10)
    # not degenerate: activations are alive and the classes are distinguishable
    assert (ref["conv2"] > 0).mean() > 0.2
    assert ref["softmax"].max() < 0.99 and np.ptp(ref["softmax"]) > 0.01


def test_tolerance_and_diff():
    ref = np.array([[0.5, -2.0]])
    assert demo.tolerance(ref) == pytest.approx(demo.ATOL + demo.RTOL * 2.0)
    assert demo.max_diff(np.float32([[0.5, -2.001]]), ref) == pytest.approx(0.001, rel=1e-3)


def demo_cli(capsys, *argv):
    from acl_bridge import cli

    code = cli.main(["demo", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_says_pass_only_when_a_path_ran(capsys):
    """Issue 39: on x86 the demo said "result: PASS (some paths skipped)" after skipping every
    real path. Now: SKIPPED and exit 1 when no path ran (the host stage), PASS and exit 0
    when one did and agreed with numpy (the arm64 stages)."""
    code, out, err = demo_cli(capsys, "--runs", "1")
    assert "numpy reference" in out and "tolerance per layer" in out
    paths = re.findall(r"^(bridge|armnn) path: (.*)$", out, re.M)
    assert [p for p, _ in paths] == ["bridge", "armnn"], out
    if all(text.startswith("skipped: ") for _, text in paths):
        assert code == 1 and out.rstrip().splitlines()[-1] == (
            "result: SKIPPED (no path could run here: nothing was compared with numpy)")
        assert "PASS" not in out
    else:
        assert code == 0 and out.rstrip().splitlines()[-1].startswith("result: PASS"), out + err


@pytest.mark.parametrize("argv, message", [
    (("--threads", "-5"), "argument --threads: -5 is not a positive integer"),
    (("--threads", "0"), "argument --threads: 0 is not a positive integer"),
    (("--threads", "two"), "argument --threads: 'two' is not an integer"),
    (("--runs", "0"), "argument --runs: 0 is not a positive integer"),
    (("--seed", "-1"), "argument --seed: -1 is negative, expected 0 or more"),
    (("--skip", "bridge", "--skip", "armnn"), "--skip bridge --skip armnn leaves no path to compare with numpy"),
    (("--size", "8"), "unrecognized arguments: --size 8"),
])
def test_demo_bad_options_are_one_line_exit_2(capsys, argv, message):
    """The demo takes the command line's parser: a bad option is one line naming it, exit 2,
    and the usage names the real command (acl-ndarray demo), not python3 -m acl_bridge.demo."""
    code, out, err = demo_cli(capsys, *argv)
    assert (code, out) == (2, "") and err.count("\n") == 1 and message in err, err
    assert "python3 -m" not in err
    code, out, _ = demo_cli(capsys, "--help")
    assert code == 0 and out.startswith("usage: acl-ndarray demo ")


def test_demo_seed_picks_the_weights_and_input(capsys):
    """--seed N: the reference the paths are compared with is the network's for seed N."""
    lines = {}
    for seed in (0, 3):
        _, out, _ = demo_cli(capsys, "--runs", "1", "--skip", "armnn", "--seed", str(seed))
        ref = demo.reference_forward(demo.make_input(seed), demo.make_weights(seed))["softmax"][0]
        lines[seed] = next(line for line in out.splitlines() if line.startswith("reference output: "))
        assert lines[seed] == "reference output: " + np.array2string(ref, precision=4, max_line_width=200)
    assert lines[0] != lines[3]
