"""Benchmark: what zero copy buys, as ratios measured in one run.

For a few ACL functions on one tensor shape, three ways to get the same result:

* ``zero-copy``: NdArrays allocated up front with the padding the function asks for
  (``required_padding``); ACL computes in the NdArray's own memory (and may write into their
  padding: ``allow_padding_writes=True``, reported in the last column);
* ``staged``:    the same function on a layout ACL cannot use in place (a column-reversed
  view: negative innermost stride), so the bridge copies into an ACL-padded buffer and back on
  every run (the counted copy fallback);
* ``numpy``:     the numpy expression computing the same result.

Prints the median time per run of each and the ratios staged/zero-copy and numpy/zero-copy.
Under QEMU absolute times mean little (20-30x slower than a device); ratios taken in one
run do. Run it in the emulated image::

    ./docker/emulate.sh run trixie -- python3 benchmarks/zero_copy.py
    ./docker/emulate.sh run bookworm -- python3 benchmarks/zero_copy.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import numpy as np

try:
    import acl_bridge  # noqa: F401  (the installed package, with its native module)
except ImportError:  # run from a source tree without installing: use the tree
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_seconds(fn, repeats: int, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def cases(shape):
    """(name, function class, its keyword arguments, tensor shape, numpy reference)."""
    from acl_bridge import functions as F

    n, c, h, w = shape

    def maxpool3x3(x):
        p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        return np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(2, 3)).max(axis=(-1, -2))

    def softmax(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    return [
        ("relu", F.Activation, dict(function="relu"), shape, lambda x: np.maximum(x, 0)),
        ("maxpool3x3", F.Pooling, dict(pool_type="max", kernel=(3, 3), stride=(1, 1), padding=1), shape, maxpool3x3),
        ("softmax", F.Softmax, {}, (n * c * h, w), softmax),
    ]


def bench_one(name, cls, kwargs, shape, reference, repeats):
    from ndarray import NdArray, ShapeDescriptor

    values = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    expected = reference(values.astype(np.float64))

    # zero copy: allocate with exactly the padding ACL asks for
    desc = ShapeDescriptor.create(shape, "float32")
    need = cls.required_padding(desc, desc, **kwargs)
    src = cls.padded_empty(shape, "float32", need["src"])
    dst = cls.padded_empty(shape, "float32", need["dst"])
    src.numpy()[...] = values
    # ACL 20.08 fills some inputs' padding (e.g. pooling's border) before a run: a buffer
    # allocated for ACL lets it, instead of being staged to keep its padding intact.
    fz = cls(src, dst, allow_padding_writes=True, **kwargs)
    assert not fz.staged, f"{name}: the negotiated buffers were staged: {fz.staged}"
    t_zero = median_seconds(fz.run, repeats)
    err = float(np.abs(dst.numpy() - expected).max())

    # staged: a column-reversed view (negative innermost stride) that ACL cannot express
    reversed_columns = np.ascontiguousarray(values[..., ::-1])
    src_view = NdArray.from_numpy(reversed_columns[..., ::-1])
    dst2 = NdArray.zeros(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the copy-fallback warning is the point here
        fs = cls(src_view, dst2, **kwargs)
    assert "src" in fs.staged, f"{name}: the reversed view was expected to be staged"
    t_staged = median_seconds(fs.run, repeats)
    err = max(err, float(np.abs(dst2.numpy() - expected).max()))

    t_numpy = median_seconds(lambda: reference(values), repeats)
    fz.close()
    fs.close()
    writes = ",".join(role for role, flag in fz.writes_outside.items() if flag) or "-"
    return dict(name=name, zero=t_zero, staged=t_staged, numpy=t_numpy, err=err, writes=writes)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="1,16,32,32", help="N,C,H,W (default 1,16,32,32)")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--threads", type=int, default=0, help="ACL threads (default: ACL's choice)")
    args = parser.parse_args(argv)
    from acl_bridge import native_available

    ok, reason = native_available()
    if not ok:
        print(f"needs the native ACL layer: {reason}", file=sys.stderr)
        return 2
    from acl_bridge import native

    if args.threads:
        native.set_num_threads(args.threads)
    shape = tuple(int(v) for v in args.shape.split(","))
    print(f"ACL {native.acl_version()}, threads {native.num_threads()}, shape {shape}, "
          f"median of {args.repeats} runs")
    print(f"{'function':<12} {'zero-copy':>11} {'staged':>11} {'numpy':>11} {'staged/zero':>12} {'numpy/zero':>11} {'max err':>9}  ACL writes padding of")
    for name, cls, kwargs, fshape, reference in cases(shape):
        r = bench_one(name, cls, kwargs, fshape, reference, args.repeats)
        print(f"{r['name']:<12} {r['zero'] * 1e3:>9.3f}ms {r['staged'] * 1e3:>9.3f}ms {r['numpy'] * 1e3:>9.3f}ms "
              f"{r['staged'] / r['zero']:>11.2f}x {r['numpy'] / r['zero']:>10.2f}x {r['err']:>9.1e}  {r['writes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
