#!/usr/bin/env bash
# Runs inside the arm64 container (started by docker/emulate.sh), or directly on an arm64
# Debian/Ubuntu machine with the packages of docker/packages-<suite>.txt installed:
#
#   inside.sh test [PYTEST_ARGS...]  versions, install the project, pytest (default: tests)
#   inside.sh selftest TESTDIR       versions, pytest on TESTDIR only (nothing installed)
#   inside.sh pure                   versions, the pure tests (-m pure) from the sources (nothing built)
#   inside.sh demo [ARGS...]   versions, install, `python3 -m acl_bridge demo ARGS` (or a smoke run)
#   inside.sh shell            versions, install, interactive bash
#   inside.sh run CMD...       versions, install, CMD
#   inside.sh versions         only print what this environment runs on
#   inside.sh copy             only copy the checkout SRC to BUILD (also used by cross-build.sh)
#
# The checkout is read from SRC (default /src, mounted read-only) and copied to BUILD
# (default /build/src), so nothing is written into the checkout. "Install the project":
# with ACL_NDARRAY_WHEEL set (emulate.sh's default), pip installs that wheel, cross-compiled
# on the x86 host by docker/cross-build.sh: no compiler runs here. Without it, pip builds
# the project from the copy exactly as on a device; the C/C++ compiler then runs through
# ccache (CCACHE_DIR is a cache directory of the host), so unchanged native sources are not
# recompiled under QEMU.
# Exit codes: pytest's; 75 means "pytest collected no tests" (pytest's 5), which
# emulate.sh reports as its own result instead of a silent pass.
set -euo pipefail

SRC=${SRC:-/src}
BUILD=${BUILD:-/build/src}
export PIP_DISABLE_PIP_VERSION_CHECK=1

ts() { date +%H:%M:%S; }
log() { printf '[%s] [%s] %s\n' "$(ts)" "${ACL_NDARRAY_TARGET:-arm64}" "$*" >&2; }
timed() {  # timed LABEL CMD...: run CMD and print how long it took
    local label=$1 start rc=0; shift
    start=$(date +%s)
    "$@" || rc=$?
    if [ "$rc" = 0 ]; then
        log "time: $label $(( $(date +%s) - start ))s"
    else
        log "time: $label $(( $(date +%s) - start ))s (exit $rc)"
    fi
    return "$rc"
}

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not installed"; }

versions() {
    local lib embedded
    lib=$(ls /usr/lib/aarch64-linux-gnu/libarm_compute.so.* 2>/dev/null | head -n1 || true)
    embedded=""
    [ -z "$lib" ] || embedded=$(grep -aoh -m1 'arm_compute_version=[^ ]*' "$lib" 2>/dev/null | head -n1 || true)
    log "ACL version: $(pkg_version libarm-compute-dev) (libarm-compute-dev)${embedded:+; library says $embedded}"
    log "Arm NN version: $(pkg_version python3-pyarmnn) (python3-pyarmnn); CpuAcc backend: $(dpkg-query -W -f='${Package} ${Version}' 'libarmnn-cpuacc-backend*' 2>/dev/null | head -n1)"
    python3 - <<'EOF'
import os, platform, struct, sys

def hwcaps():
    # What the (emulated) CPU advertises: AT_HWCAP/AT_HWCAP2 from the auxiliary vector,
    # the same bits ACL's CPU feature detection reads. /proc/cpuinfo under QEMU user
    # mode describes the x86 host, so it is not used.
    names1 = ("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
              "asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm "
              "dit uscat ilrcpc flagm ssbs sb paca pacg").split()
    names2 = ("dcpodp sve2 sveaes svepmull svebitperm svesha3 svesm4 flagm2 frint svei8mm "
              "svef32mm svef64mm svebf16 i8mm bf16 dgh rng bti mte").split()
    caps = {}
    data = open("/proc/self/auxv", "rb").read()
    for i in range(0, len(data) - 15, 16):
        key, val = struct.unpack_from("<QQ", data, i)
        caps[key] = val
    found = [n for b, n in enumerate(names1) if caps.get(16, 0) >> b & 1]
    found += [n for b, n in enumerate(names2) if caps.get(26, 0) >> b & 1]
    return found

try:
    import numpy, cffi
    libs = f"numpy {numpy.__version__}, cffi {cffi.__version__}"
except ImportError as e:
    libs = f"({e})"
tag = os.environ.get("ACL_NDARRAY_TARGET", "arm64")
print(f"[{tag}] Python {platform.python_version()} on {platform.machine()}, {libs}", file=sys.stderr)
cpu = os.environ.get("QEMU_CPU") or "max (QEMU default)"
caps = hwcaps()
print(f"[{tag}] CPU: QEMU_CPU={cpu}; advertises {len(caps)} features: {' '.join(caps)}", file=sys.stderr)
print(f"[{tag}] CPU features ACL cares about: "
      + ", ".join(f"{k}={'yes' if k in caps else 'no'}" for k in ("asimdhp", "asimddp", "sve", "sve2", "i8mm", "bf16")),
      file=sys.stderr)
EOF
}

copy_checkout() {
    rm -rf "$BUILD"
    mkdir -p "$BUILD" || return 1
    # The host tests run beside this job and make their caches (.mypy_cache, ...) in the
    # checkout's root while this reads it: the reading tar then exits 1 ("file changed as we
    # read it"), which in create mode says nothing else; 2 and up are real failures.
    tar -C "$SRC" --exclude=./.git --exclude=./build --exclude=./dist --exclude='*.egg-info' \
        --exclude=__pycache__ --exclude=.pytest_cache --exclude=.hypothesis \
        --exclude=./.mypy_cache --exclude=./.import_linter_cache --exclude=./.scratch \
        --warning=no-file-changed \
        --exclude='*.so' --exclude='*.o' --exclude=_build_info.json -cf - . \
        | tar -C "$BUILD" -xf -
    local rc=("${PIPESTATUS[@]}")
    (( rc[0] <= 1 && rc[1] == 0 ))
}

# pip-install the project (the cross-built wheel, or built here from the copy), then drop
# the package directories from the copy, so the tests import the installed project and not
# the sources.
install_project() {
    copy_checkout || return 1
    install_wheels
    if [ ! -f "$BUILD/pyproject.toml" ] && [ ! -f "$BUILD/setup.py" ]; then
        log "no pyproject.toml or setup.py yet: nothing to install, tests import the sources"
        return 0
    fi
    if [ -n "${ACL_NDARRAY_WHEEL:-}" ]; then
        install_wheel || return
    else
        build_and_install || return
    fi
    use_installed_packages || return
}

install_wheel() {
    local rc=0
    [ -f "$ACL_NDARRAY_WHEEL" ] || { log "ACL_NDARRAY_WHEEL=$ACL_NDARRAY_WHEEL does not exist"; return 1; }
    log "installing the cross-built wheel $(basename "$ACL_NDARRAY_WHEEL") (no compiler runs here)"
    python3 -m pip install --no-compile --no-deps --no-index --force-reinstall "$ACL_NDARRAY_WHEEL" \
        >/tmp/pip-install.log 2>&1 || rc=$?
    if [ "$rc" != 0 ]; then
        log "pip install of the wheel failed (exit $rc):"
        tail -n 30 /tmp/pip-install.log >&2
    fi
    return "$rc"
}

build_and_install() {
    local rc=0
    log "building the project here with pip (native module compiled under emulation)"
    command -v ccache >/dev/null && ccache -z >/dev/null 2>&1 || true
    (
        cd "$BUILD"
        [ -d /usr/lib/ccache ] && export PATH=/usr/lib/ccache:$PATH
        export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$BUILD
        # ACL is installed here: a missing native build is an error, not a silent skip
        export ACL_NDARRAY_REQUIRE_NATIVE=1
        python3 -m pip install --no-deps --no-build-isolation --no-index -v . >/tmp/pip-install.log 2>&1
    ) || rc=$?
    if [ "$rc" != 0 ]; then
        log "pip install failed (exit $rc); last lines of its log:"
        tail -n 60 /tmp/pip-install.log >&2
        return "$rc"
    fi
    if command -v ccache >/dev/null; then
        log "ccache (compiled native code, cache ${CCACHE_DIR:-~/.ccache}): $(ccache -s 2>/dev/null | awk '
            /^ *Hits:/ && !h { sub(/^ */, ""); gsub(/  +/, " "); h = $0 }
            /^ *Misses:/ && !m { sub(/^ */, ""); gsub(/  +/, " "); m = $0 }
            END { print h "; " m }')"
    fi
}

use_installed_packages() {
    local d pkg where
    for d in "$BUILD"/*/__init__.py; do
        [ -e "$d" ] || continue
        pkg=$(basename "$(dirname "$d")")
        where=$(cd / && python3 -P -c "import importlib.util as u; s = u.find_spec('$pkg'); print(s.origin if s else '')" 2>/dev/null || true)
        if [ -n "$where" ] && [ "${where#"$BUILD"}" = "$where" ]; then
            rm -rf "${BUILD:?}/$pkg"
            log "tests import the installed $pkg: $where"
        fi
    done
    if [ -f "$SRC/acl_bridge/_build.py" ]; then
        (cd "$BUILD" && python3 - <<'EOF'
import sys, acl_bridge
f = getattr(acl_bridge, "native_available", None)
if f is None:
    print(f"acl_bridge has no native_available() yet ({acl_bridge.__file__})", file=sys.stderr)
    sys.exit(0)
res = f()
ok = res[0] if isinstance(res, tuple) else bool(res)
print(f"acl_bridge.native_available() -> {res!r}", file=sys.stderr)
if ok:
    from acl_bridge import native
    info = getattr(native, "BUILD_INFO", None) or {}
    if info:
        print(f"native module: built on {info.get('build_machine')} for {info.get('module_machine')} "
              f"with {info.get('compiler')} ({info.get('elf_comment')}), build-id {info.get('build_id')}",
              file=sys.stderr)
    print(f"ACL detected (acl_bridge.cpu_report()): {native.cpu_report()}", file=sys.stderr)
sys.exit(0 if ok else 3)
EOF
        ) || { log "ERROR: the native ACL module did not build or load here, so the 'acl' tests would only skip"; return 3; }
    fi
}

# Wheels fetched on the host (python3 -m acl_bridge.models.apps.fetch) for this Python: tflite,
# flatbuffers, Pillow (and TFLite's interpreter on 3.11); --no-index --no-deps, so nothing
# else is pulled in and Debian's numpy stays. Absent: the model tests skip, saying why.
install_wheels() {
    local tag dir
    tag=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
    # the folder keyed by THIS checkout's wheel list (not merely the newest one)
    dir=$(cd / && ACL_NDARRAY_CACHE=/var/cache/acl-ndarray python3 "$SRC/acl_bridge/models/apps/fetch.py" \
          --print-wheel-dir "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
          --wheel-machine "$(uname -m)" 2>/dev/null || true)
    if [ -z "$dir" ] || [ ! -f "$dir/.complete" ]; then
        log "no fetched wheels for $tag in ${dir:-the cache} (python3 -m acl_bridge.models.apps.fetch on the host): model tests will skip"
        return 0
    fi
    # --no-compile: byte-compiling every module of these wheels (tflite's generated schema is
    # hundreds of files) under emulation cost more than importing the few the tests use
    python3 -m pip install -q --no-compile --no-index --no-deps "$dir"/*.whl >/tmp/pip-wheels.log 2>&1 \
        && log "installed fetched wheels: $(cd "$dir" && ls *.whl | sed 's/-py.*\|-cp.*//' | xargs)" \
        || { log "installing $dir/*.whl failed:"; tail -n 20 /tmp/pip-wheels.log >&2; }
}

run_pytest() {  # run_pytest ARGS...: pytest in BUILD, mapping 'no tests' (5) to 75
    local rc=0
    cd "$BUILD" || return 1
    HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-emulated} python3 -m pytest -q -rfEs -p no:cacheprovider --durations=15 "$@" || rc=$?
    if [ "$rc" = 5 ]; then
        log "WARNING: pytest collected no tests (exit 5)"
        return 75
    fi
    return "$rc"
}

smoke() {
    # Placeholder main job until acl_bridge/__main__.py exists: load ACL, run one Neon
    # kernel through Arm NN's CpuAcc backend and compare with numpy.
    python3 - <<'EOF'
import ctypes, sys
import numpy as np
ctypes.CDLL("libarm_compute.so")
print("loaded libarm_compute.so", file=sys.stderr)
import pyarmnn as ann
print(f"pyarmnn {getattr(ann, '__version__', '?')}, Arm NN {ann.GetVersion()}", file=sys.stderr)
x = np.linspace(-4, 4, 16, dtype=np.float32).reshape(2, 8)
net = ann.INetwork()
desc = ann.ActivationDescriptor()
desc.m_Function = ann.ActivationFunction_ReLu
inp, act, out = net.AddInputLayer(0), net.AddActivationLayer(desc), net.AddOutputLayer(0)
inp.GetOutputSlot(0).Connect(act.GetInputSlot(0))
act.GetOutputSlot(0).Connect(out.GetInputSlot(0))
info = ann.TensorInfo(ann.TensorShape(x.shape), ann.DataType_Float32)
inp.GetOutputSlot(0).SetTensorInfo(info)
act.GetOutputSlot(0).SetTensorInfo(info)
runtime = ann.IRuntime(ann.CreationOptions())
opt, _ = ann.Optimize(net, [ann.BackendId("CpuAcc")], runtime.GetDeviceSpec(), ann.OptimizerOptions())
net_id, _ = runtime.LoadNetwork(opt)
in_info = runtime.GetInputTensorInfo(net_id, 0)
if hasattr(in_info, "SetConstant"):
    in_info.SetConstant(True)
inputs = ann.make_input_tensors([(0, in_info)], [x])
outputs = ann.make_output_tensors([(0, runtime.GetOutputTensorInfo(net_id, 0))])
runtime.EnqueueWorkload(net_id, inputs, outputs)
y = ann.workload_tensors_to_ndarray(outputs)[0]
ok = np.array_equal(y.reshape(x.shape), np.maximum(x, 0))
print(f"ReLU through Arm NN CpuAcc (ACL Neon kernels): {'matches numpy' if ok else 'MISMATCH'}", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}

main() {
    local mode=${1:-shell}
    [ $# -eq 0 ] || shift
    case $mode in
    versions) versions ;;
    copy) copy_checkout ;;
    selftest)  # harness self-check: only the given test directory
        timed versions versions
        copy_checkout
        rm -rf "$BUILD/tests"; cp -r "${1:?selftest needs a test directory}" "$BUILD/tests"
        timed pytest run_pytest tests ;;
    pure)  # the pure tests (-m pure) on this root's Python and numpy, from the sources: no
        # native module, nothing built (the bookworm builder, amd64: docker/emulate.sh PURE_JOB)
        timed versions versions
        copy_checkout
        install_wheels
        timed pytest run_pytest -m pure tests ;;
    test)
        [ $# -gt 0 ] || set -- tests
        timed versions versions
        timed "install" install_project
        timed pytest run_pytest "$@" ;;
    demo)
        timed versions versions
        timed "install" install_project
        if [ -f "$SRC/acl_bridge/models/apps/detect_demo.py" ]; then
            # the main job: BlazeFace on the bridge vs TFLite / Arm NN, then the small CNN demo
            out=/demo-out; [ -w "$out" ] || out=/tmp
            (cd "$BUILD" && timed "face detection (acl_bridge.models.apps.detect_demo)" \
                python3 -m acl_bridge.models.apps.detect_demo --out "$out/detect-astronaut.png" "$@" \
                && timed "acl_bridge demo (6-layer CNN)" python3 -m acl_bridge demo)
        elif [ -f "$SRC/acl_bridge/__main__.py" ]; then
            (cd "$BUILD" && timed "acl_bridge demo" python3 -m acl_bridge demo "$@")
        else
            log "acl_bridge/__main__.py does not exist yet: smoke run instead of the main job"
            timed smoke smoke
        fi ;;
    shell)
        versions
        install_project || log "install failed; the shell starts anyway (checkout copy in $BUILD)"
        cd "$BUILD"; exec bash ;;
    run)
        versions
        install_project
        cd "$BUILD"; exec "$@" ;;
    *) echo "unknown mode '$mode'" >&2; return 2 ;;
    esac
}
main "$@"
exit $?
