"""What ACL detects on each emulated CPU of the matrix (docker/emulate.sh runs the `acl`
tests on QEMU's default `max` and on cortex-a53 and neoverse-n1): ACL's CPU flags follow
the hardware capabilities the (emulated) kernel advertises, and differ per CPU model as
measured (docker/README.md, "CPU matrix"). On a real board only the agreement with the
advertised capabilities is checked."""

import os
import struct

import pytest

from acl_bridge import native

pytestmark = [pytest.mark.acl, pytest.mark.cpu]  # cpu: CPU detection, on each CPU of the matrix

# AT_HWCAP (16) / AT_HWCAP2 (26) bits of arm64 Linux, the ones ACL's detection reads
_HWCAP = {"fphp": 9, "asimdhp": 10, "asimddp": 20, "sve": 22}
_HWCAP2 = {"sve2": 1, "i8mm": 13, "bf16": 14}

# Measured with ACL 24.11 (trixie) and 20.08 (bookworm, which reports no sve/sve2/bf16/i8mm:
# None) under qemu-aarch64 7.2. cortex-a53/a72: Armv8.0, neither fp16 nor dot product;
# neoverse-n1: Armv8.2 with both, no SVE; a64fx: fp16 and SVE but no dot product; max: all.
EXPECTED = {
    "cortex-a53": dict(fp16=False, dot_product=False, sve=False, sve2=False, bf16=False, i8mm=False),
    "cortex-a72": dict(fp16=False, dot_product=False, sve=False, sve2=False, bf16=False, i8mm=False),
    "neoverse-n1": dict(fp16=True, dot_product=True, sve=False, sve2=False, bf16=False, i8mm=False),
    "a64fx": dict(fp16=True, dot_product=False, sve=True, sve2=False, bf16=False, i8mm=False),
    "max": dict(fp16=True, dot_product=True, sve=True, sve2=True, bf16=True, i8mm=True),
}
QEMU_CPU_MODEL = os.environ.get("QEMU_CPU", "").split(",")[0]


def advertised_hwcaps():
    """Names of the AT_HWCAP/AT_HWCAP2 bits set for this process (from /proc/self/auxv:
    under QEMU user mode /proc/cpuinfo describes the x86 host, the auxiliary vector does not)."""
    with open("/proc/self/auxv", "rb") as f:
        data = f.read()
    vector = dict(struct.iter_unpack("<QQ", data[: len(data) // 16 * 16]))
    hwcap, hwcap2 = vector.get(16, 0), vector.get(26, 0)
    return ({n for n, b in _HWCAP.items() if hwcap >> b & 1} | {n for n, b in _HWCAP2.items() if hwcap2 >> b & 1})


def test_acl_flags_follow_the_advertised_capabilities():
    report, caps = native.cpu_report(), advertised_hwcaps()
    print(f"QEMU_CPU={os.environ.get('QEMU_CPU', '(not emulated or default)')}: {report}; hwcaps {sorted(caps)}")
    assert report.fp16 == ("fphp" in caps and "asimdhp" in caps), (report, caps)
    assert report.dot_product == ("asimddp" in caps), (report, caps)
    for flag in ("sve", "sve2", "bf16", "i8mm"):
        value = getattr(report, flag)
        assert value is None or value == (flag in caps), (flag, report, caps)


@pytest.mark.skipif(QEMU_CPU_MODEL not in EXPECTED, reason=f"QEMU_CPU={QEMU_CPU_MODEL or '(unset)'}: "
                    f"no measured expectation (emulated CPUs with one: {', '.join(EXPECTED)})")
def test_acl_detects_what_this_emulated_cpu_model_has():
    report = native.cpu_report()
    seen = {flag: getattr(report, flag) for flag in EXPECTED[QEMU_CPU_MODEL]}
    expected = {flag: (None if seen[flag] is None and flag not in ("fp16", "dot_product") else want)
                for flag, want in EXPECTED[QEMU_CPU_MODEL].items()}
    assert seen == expected, f"QEMU_CPU={QEMU_CPU_MODEL}: ACL {report.version} detected {seen}"
    # Debian builds ACL for plain armv8-a: no F16 kernels on any CPU, fp16 hardware or not
    assert report.f16_kernels is False, report


def test_the_native_identity_is_what_the_proc_files_say():
    """native.identity_text (the facts cache's identity, ABI 19) says what the slow /proc files
    say: its capability words are the auxiliary vector's, its cores ACL's count with one CPU
    model each, its feature flags ACL's report, its libraries, by real path, exactly the
    libarm_compute files /proc/self/maps shows mapped, its shim the module's file, and each
    file's size and modification time what os.stat says."""
    cpu, *names = native.identity_text().split("\n")
    fields = dict(part.split("=", 1) for part in cpu.split())
    with open("/proc/self/auxv", "rb") as f:
        data = f.read()
    vector = dict(struct.iter_unpack("<QQ", data[: len(data) // 16 * 16]))
    assert (int(fields["hwcap"], 16), int(fields["hwcap2"], 16)) == (vector.get(16, 0), vector.get(26, 0)), cpu
    report = native.cpu_report()
    assert int(fields["cpus"]) == report.num_cpus and len(fields["models"].split(",")) == report.num_cpus, cpu
    flags = {"fp16": report.fp16, "dotprod": report.dot_product, "sve": report.sve, "sve2": report.sve2,
             "bf16": report.bf16, "i8mm": report.i8mm}
    assert {k: fields[k] == "1" for k in flags if k in fields} == {k: v for k, v in flags.items() if k in fields}, cpu
    assert {"fp16", "dotprod"} <= set(fields) and (report.sve is None) == ("sve" not in fields), cpu
    with open("/proc/self/maps") as f:
        mapped = {line.split()[-1] for line in f if "libarm_compute" in line and "/" in line}
    files = [line.split("\t") for line in names]
    libraries = {path for tag, path, _, _ in files if tag == "library"}
    assert libraries and libraries == {os.path.realpath(p) for p in mapped}, (names, mapped)
    import acl_bridge._acl_shim as shim

    assert [path for tag, path, _, _ in files if tag == "shim"] == [os.path.realpath(shim.__file__)], names
    for tag, path, size, mtime in files:  # what os.stat says of each
        st = os.stat(path)
        assert (int(size), int(mtime)) == (st.st_size, st.st_mtime_ns), (path, size, mtime)
