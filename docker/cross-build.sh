#!/usr/bin/env bash
# Cross-compiles the aarch64 wheel of the project on an amd64 Debian builder (the image of
# docker/Dockerfile.cross, started by docker/emulate.sh): Debian's aarch64 cross compiler of
# the same release as the target, against the target's arm64 ACL and Python headers
# installed next to the builder's own packages (Debian multiarch). Native speed, no QEMU.
#
#   cross-build.sh OUTDIR      wheel -> OUTDIR/acl_ndarray-<v>-cp3XX-cp3XX-linux_aarch64.whl
#                              plus OUTDIR/build-id (GNU build-id of its native module) and
#                              OUTDIR/cl-layer-build-id (of its OpenCL layer; empty: none)
#
# The checkout is read from SRC (default /src, read-only) and copied to BUILD first.
# How it works: the builder's Python (same version as the target's) runs the ordinary
# build (setup.py + acl_bridge/_build.py); the environment selects the target's sysconfig
# data (_PYTHON_SYSCONFIGDATA_NAME: MULTIARCH, EXT_SUFFIX, SOABI of aarch64) and platform
# (_PYTHON_HOST_PLATFORM: the wheel's linux_aarch64 tag), and the cross compiler.
set -euo pipefail

OUT=${1:?usage: cross-build.sh OUTDIR}
SRC=${SRC:-/src}
BUILD=${BUILD:-/build/src}
TRIPLET=aarch64-linux-gnu
log() { printf '[%s] [cross %s] %s\n' "$(date +%H:%M:%S)" "${ACL_NDARRAY_TARGET:-?}" "$*" >&2; }

py=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
sysconfigdata=_sysconfigdata__linux_$TRIPLET
[ -f "/usr/lib/python$py/$sysconfigdata.py" ] \
    || { log "/usr/lib/python$py/$sysconfigdata.py missing: install libpython3-dev:arm64"; exit 1; }
command -v "$TRIPLET-g++" >/dev/null || { log "$TRIPLET-g++ missing: install g++-$TRIPLET"; exit 1; }
log "builder $(. /etc/os-release; echo "$PRETTY_NAME") $(uname -m); Python $py; $("$TRIPLET-g++" --version | head -n1)"
log "target ACL: $(dpkg-query -W -f='${Version}' libarm-compute-dev:arm64) (libarm-compute-dev:arm64)"

SRC=$SRC BUILD=$BUILD bash "$SRC/docker/inside.sh" copy
export _PYTHON_HOST_PLATFORM=linux-aarch64 _PYTHON_SYSCONFIGDATA_NAME=$sysconfigdata
export CC=$TRIPLET-gcc CXX=$TRIPLET-g++ LDSHARED="$TRIPLET-g++ -shared"
export ACL_NDARRAY_REQUIRE_NATIVE=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# Reproducible archive timestamps: the newest mtime of the inputs, not the build time
SOURCE_DATE_EPOCH=$(find "$BUILD" -type f -printf '%T@\n' | sort -n | tail -n1 | cut -d. -f1)
export SOURCE_DATE_EPOCH
mkdir -p "$OUT"
start=$(date +%s)
python3 -m pip wheel --no-deps --no-build-isolation --no-index -v -w "$OUT" "$BUILD" >/tmp/pip-wheel.log 2>&1 \
    || { log "pip wheel failed; last lines:"; tail -n 60 /tmp/pip-wheel.log >&2; exit 1; }
grep -E '^ *acl_bridge: built for' /tmp/pip-wheel.log >&2 || true
log "time: cross-compile + wheel $(( $(date +%s) - start ))s"

# Check what came out and record its build-id (read from the ELF in the wheel, not from the
# build's own record), which the emulated tests compare with the module they import.
tag=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
wheels=("$OUT"/acl_ndarray-*-"$tag-$tag"-linux_aarch64.whl)
[ -f "${wheels[0]}" ] || { log "no $tag linux_aarch64 wheel in $OUT: $(ls "$OUT")"; exit 1; }
python3 - "${wheels[0]}" "$BUILD/acl_bridge/_build_info.py" "$OUT/build-id" "$OUT/cl-layer-build-id" <<'EOF'
import importlib.util, json, os, sys, tempfile, zipfile

wheel, helper, out, layer_out = sys.argv[1:]
spec = importlib.util.spec_from_file_location("build_info", helper)
build_info = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_info)
with zipfile.ZipFile(wheel) as z, tempfile.TemporaryDirectory() as tmp:
    names = z.namelist()
    modules = [n for n in names if n.startswith("acl_bridge/_acl_shim") and n.endswith(".so")]
    run_module = [n for n in names if n.startswith("acl_bridge/_native_call") and n.endswith(".so")]
    if len(modules) != 1 or len(run_module) != 1 or "acl_bridge/_build_info.json" not in names:
        sys.exit(f"{wheel}: expected one acl_bridge/_acl_shim*.so, one acl_bridge/_native_call*.so and "
                 f"acl_bridge/_build_info.json, has {names}")
    facts = build_info.elf_facts(z.extract(modules[0], tmp))
    record = json.loads(z.read("acl_bridge/_build_info.json"))
    # the OpenCL layer (native/cl_layer), where setup.py found the headers to build it
    layer = "acl_bridge/libacl_ndarray_cl_layer.so"
    layer_facts = build_info.elf_facts(z.extract(layer, tmp)) if layer in names else None
if facts["machine"] != "aarch64" or not facts["build_id"]:
    sys.exit(f"{modules[0]} in {wheel}: machine {facts['machine']}, build-id {facts['build_id']!r}")
print(f"{os.path.basename(wheel)}: {modules[0]} is {facts['machine']}, build-id {facts['build_id']}, "
      f"needs {', '.join(facts['needed'])}; built for {build_info.built_for(record)}", file=sys.stderr)
with open(out, "w") as f:
    f.write(facts["build_id"] + "\n")
if layer_facts is not None and (layer_facts["machine"] != "aarch64" or not layer_facts["build_id"]):
    sys.exit(f"{layer} in {wheel}: machine {layer_facts['machine']}, build-id {layer_facts['build_id']!r}")
print(f"{os.path.basename(wheel)}: " + (f"{layer} is aarch64, build-id {layer_facts['build_id']}" if layer_facts
      else "no OpenCL layer (no OpenCL headers with CL/cl_layer.h first on the include path)"), file=sys.stderr)
with open(layer_out, "w") as f:  # empty: the wheel has no layer
    f.write(layer_facts["build_id"] + "\n" if layer_facts else "")
EOF
