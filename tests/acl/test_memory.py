"""Thousands of create / run / destroy cycles without resident memory growing (issue 6, part 6).

Each cycle builds fresh padded NdArrays, configures a function on them (rotating through
element-wise, GEMM, softmax, pooling, a staged copy-fallback function, a bare AclTensor and
a configure that ACL rejects), runs it, checks one value, and closes or drops it (every
other cycle: explicit close; the others: garbage collection).

Measurement: resident set size from /proc/self/statm (field 2, pages), in a fresh
subprocess so nothing else of the test session is counted. ``WARMUP`` cycles first (ACL's
scheduler threads, kernel caches, numpy and cffi pools reach their steady state), then
``CYCLES`` cycles; the growth over those must stay under ``BOUND_BYTES``. A leak of one
native tensor's info per cycle (~1 KiB) would add about 1 MiB over 1000 cycles, four times the
bound; so would a leaked 1 KiB buffer per cycle. The growth measured without a leak is 16-28 KiB
(docs/robustness.md), a tenth of the bound, so 1000 cycles (each of the 7 kinds about 140 times:
a 2 KiB leak in one kind alone shows) detect what 3000 cycles under a 1 MiB bound did, and
smaller leaks (>= 256 bytes a cycle against 350 before), in a third of the emulated time (the
3000 cycles took 18-22 s of each emulated suite).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
F32 = np.float32

WARMUP = 300
CYCLES = int(os.environ.get("ACL_NDARRAY_MEMORY_CYCLES", "1000"))
TIME_LIMIT = float(os.environ.get("ACL_NDARRAY_MEMORY_SECONDS", "120"))  # stop early, but see MIN_CYCLES
MIN_CYCLES = 1000
BOUND_BYTES = 256 * 1024  # 256 KiB of RSS growth over the measured cycles (~260 bytes a cycle)
SUBPROCESS_TIMEOUT = 900.0


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _cycle(i: int) -> None:
    from ndarray import NdArray
    from acl_bridge import functions as fn
    from acl_bridge.native import AclError
    from acl_bridge.tensor import AclTensor

    kind = i % 7
    if kind == 0:  # element-wise on padded buffers
        a = NdArray.full((3, 17), 2.0, paddings=(1, 5), padding_offsets=(1, 2))
        b = NdArray.full((3, 17), 3.0)
        dst = NdArray.zeros((3, 17), paddings=(0, 3))
        f = fn.Add(a, b, dst).run()
        assert dst.numpy()[2, 16] == 5.0
    elif kind == 1:  # GEMM (ACL allocates internal workspace)
        a, b = NdArray.full((8, 12), 1.0), NdArray.full((12, 5), 0.5)
        dst = NdArray.zeros((8, 5))
        f = fn.Gemm(a, b, None, dst).run()
        assert dst.numpy()[7, 4] == 6.0
    elif kind == 2:
        src, dst = NdArray.full((4, 16), 1.0), NdArray.zeros((4, 16))
        f = fn.Softmax(src, dst).run()
        assert abs(dst.numpy()[3, 15] - 1 / 16) < 1e-6
    elif kind == 3:
        src, dst = NdArray.full((1, 2, 8, 8), 4.0), NdArray.zeros((1, 2, 4, 4))
        f = fn.Pooling(src, dst, "max", kernel=2, stride=2).run()
        assert dst.numpy()[0, 1, 3, 3] == 4.0
    elif kind == 4:  # staged through an ACL-padded copy (innermost stride 8 bytes)
        big = np.full((4, 32), -1.5, F32)
        dst = np.zeros((4, 16), F32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = fn.Activation(big[:, ::2], dst, "abs").run()
        assert dst[3, 15] == 1.5
    elif kind == 5:  # a bare tensor: create, import, close
        f = AclTensor(NdArray.zeros((5, 7), paddings=(2, 2), padding_offsets=(1, 1)))
        f.import_memory()
    else:  # a configure that ACL rejects: the error path must free what it built
        a, b = NdArray.zeros((2, 8)), NdArray.zeros((2, 8), "int32")
        try:
            fn.Add(a, b, NdArray.zeros((2, 8)))
        except AclError:
            pass
        else:
            raise AssertionError("Add of float32 and int32 was accepted")
        return
    if i % 2:
        f.close()
    del f


def measure(cycles=CYCLES, warmup=WARMUP, time_limit=TIME_LIMIT):
    warnings.simplefilter("ignore")  # the staged cycles warn (AclCopyFallbackWarning) every time
    for i in range(warmup):
        _cycle(i)
    gc.collect()
    start_rss, start = rss_bytes(), time.monotonic()
    samples = [start_rss]
    done = 0
    while done < cycles and (done < MIN_CYCLES or time.monotonic() - start < time_limit):
        _cycle(warmup + done)
        done += 1
        if done % 250 == 0:
            gc.collect()
            samples.append(rss_bytes())
    gc.collect()
    end_rss = rss_bytes()
    return {"warmup": warmup, "cycles": done, "seconds": round(time.monotonic() - start, 1),
            "rss_start": start_rss, "rss_end": end_rss, "growth": end_rss - start_rss,
            "peak_growth": max(samples + [end_rss]) - start_rss, "samples": samples}


@pytest.mark.acl
def test_create_run_destroy_cycles_do_not_grow_rss():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__)], capture_output=True,
                          text=True, timeout=SUBPROCESS_TIMEOUT, env=env, cwd=ROOT)
    output = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode == 0, f"memory cycles failed (exit {proc.returncode}):\n{output}"
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"memory: {result}")
    assert result["cycles"] >= MIN_CYCLES
    assert result["growth"] < BOUND_BYTES, (
        f"RSS grew by {result['growth']} bytes over {result['cycles']} cycles "
        f"(bound {BOUND_BYTES}): {result}")


if __name__ == "__main__":
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    print(json.dumps(measure()))
