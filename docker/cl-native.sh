#!/usr/bin/env bash
# Native (no QEMU) OpenCL stage of acl-ndarray: a Debian trixie amd64 root whose ACL 24.11 is
# the OpenCL backend alone, with two software OpenCL devices (PoCL and Mesa rusticl).
#   ./docker/cl-native.sh [test]            build/reuse the root, build the project in it, run
#                                           tests/cl and demo --backend cl with PoCL, then rusticl,
#                                           then the pure tests (-m pure) on the root's Python 3.13
#   ./docker/cl-native.sh build             only build (or reuse) the cached root
#   ./docker/cl-native.sh run [--driver pocl|rusticl] -- CMD...
#                                           any command in the root, in the project (/src)
#   ./docker/cl-native.sh clean             drop the cached root (tarball and unpacked copy)
# Environment: ACL_NDARRAY_CACHE (default /var/cache/acl-ndarray), ACL_NDARRAY_MIRROR
# (Debian mirror; default: the host's apt sources, read as docker/emulate.sh reads them),
# ACL_NDARRAY_REBUILD=1 (make the root again).
# The root is cached as $CACHE/rootfs/cl-trixie-amd64-KEY.tar (KEY: suite, architecture,
# mirror, package list) and kept unpacked beside it; /proc, /sys and /dev are bind-mounted
# while a command runs (PoCL and ACL read them) and unmounted on exit, also on failure.
# The model tests (tests/cl/test_cl_models.py) read the models fetched by emulate.sh
# ($CACHE/models, copied into the root when present) and compare with TFLite's interpreter:
# x86_64 wheels of CL_WHEELS (pip download on the host, cached in $CACHE/wheels/cl-amd64-*)
# unpacked into the root and put on PYTHONPATH; without them those tests compare with the
# numpy executor of the same plan, or skip where the parser is missing.
# Timings and details: docs/opencl.md.
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
SUITE=trixie
ARCH=amd64
PKG_FILE=$SCRIPT_DIR/packages-cl-amd64.txt

T0=$(date +%s)
ts() { date +%H:%M:%S; }
log() { printf '[%s] %s\n' "$(ts)" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$(ts)" "$*" >&2; exit 1; }

# The mirror lookup is emulate.sh's own function, taken from it without running that script
# (emulate.sh runs its whole pipeline at top level, so it cannot be sourced as is).
# shellcheck disable=SC1090
source <(sed -n '/^debian_mirror() {$/,/^}$/p' "$SCRIPT_DIR/emulate.sh")
declare -F debian_mirror >/dev/null || die "could not read debian_mirror() from $SCRIPT_DIR/emulate.sh"

# Wheels for the root's Python 3.13 (x86_64): TFLite's parser and interpreter for the model
# tests (ai-edge-litert 2.3.0 has cp313 manylinux_2_27 x86_64 wheels), Pillow for the photograph.
CL_WHEELS="tflite==2.18.0 flatbuffers==25.12.19 pillow==11.3.0 ai-edge-litert==2.3.0 tqdm==4.67.1 typing-extensions==4.15.0"
WHEEL_SITE=/opt/acl-ndarray-wheels

STAGES=()
stage() {  # stage NAME CMD...: run, print its time; the script stops at the first failure
    local name=$1 start rc=0; shift
    start=$(date +%s)
    log "=== stage: $name"
    "$@" || rc=$?
    local secs=$(( $(date +%s) - start ))
    STAGES+=("$(printf '%-40s %4ds  %s' "$name" "$secs" "$([ $rc = 0 ] && echo PASS || echo "FAIL (exit $rc)")")")
    log "=== stage: $name: exit $rc in ${secs}s"
    return "$rc"
}

MOUNTED=()
unmount_all() {
    local i
    for (( i=${#MOUNTED[@]}-1; i>=0; i-- )); do umount -l "${MOUNTED[$i]}" 2>/dev/null || true; done
    MOUNTED=()
}
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    unmount_all
    [ -z "${BUILD_DIR:-}" ] || rm -rf "$BUILD_DIR"
    if [ ${#STAGES[@]} -gt 0 ]; then
        printf '\n' >&2; printf '%s\n' "${STAGES[@]}" >&2
        printf '%-40s %4ds\n' total $(( $(date +%s) - T0 )) >&2
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot and bind mounts need it)"
# A mount namespace of our own: the bind mounts into the root are invisible outside, vanish
# with this script, and no other script's cleanup can take them away while tests run
# (emulate.sh unmounts everything under $CACHE/rootfs when it exits).
if [ -z "${ACL_NDARRAY_CL_NAMESPACE:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
    trap - EXIT
    ACL_NDARRAY_CL_NAMESPACE=1 exec unshare --mount --propagation private "$BASH" "${BASH_SOURCE[0]}" "$@"
fi
CACHE=${ACL_NDARRAY_CACHE:-/var/cache/acl-ndarray}
mkdir -p "$CACHE/rootfs" "$CACHE/logs" || die "cannot create $CACHE"
exec 8>"$CACHE/.cl-native.lock"
flock -n 8 || { log "another cl-native.sh holds $CACHE/.cl-native.lock; waiting"; flock 8; }

pkgs=$(sed -e 's/#.*//' "$PKG_FILE" | xargs)
MIRROR=$(debian_mirror)
KEY=$(printf '%s\n' "$SUITE" "$ARCH" "$MIRROR" "$pkgs" minbase+apt v1 | sha256sum | cut -c1-12)
TARBALL=$CACHE/rootfs/cl-$SUITE-$ARCH-$KEY.tar
ROOT=$CACHE/rootfs/cl-$SUITE-$ARCH-$KEY.root

mount_system() {  # bind /proc /sys /dev into DIR (PoCL aborts without /sys; ACL reads /proc)
    local d
    for d in proc sys dev; do
        mkdir -p "$1/$d"
        mount --rbind "/$d" "$1/$d" || return 1
        mount --make-rslave "$1/$d" 2>/dev/null || true
        MOUNTED+=("$1/$d")
    done
}

copy_models() {  # the fetched models and photograph, where acl_bridge.models.apps.fetch looks
    # (a copy, a few MB, not a bind mount: emulate.sh's cleanup unmounts everything under
    # $CACHE/rootfs, also while this script runs)
    local dst=$ROOT/var/cache/acl-ndarray
    [ -d "$CACHE/models" ] || { log "no $CACHE/models (emulate.sh fetches them): the model tests will skip"; return 0; }
    mkdir -p "$dst" && cp -a -u "$CACHE/models" "$dst/"
}

# CL_WHEELS for the root: downloaded once (host pip, no dependencies, binary only), unpacked
# into $ROOT$WHEEL_SITE/KEY; prints that folder (inside the root) or nothing when unavailable.
install_wheels() {
    local key dir site logf=$CACHE/logs/cl-native-wheels.log w
    key=$(printf '%s\n' $CL_WHEELS x86_64 cp313 | sha256sum | cut -c1-12)
    dir=$CACHE/wheels/cl-amd64-$key site=$WHEEL_SITE/$key
    if [ -f "$ROOT$site/.complete" ]; then echo "$site"; return 0; fi
    if [ ! -f "$dir/.complete" ]; then
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        python3 -m pip --disable-pip-version-check download --no-deps --only-binary=:all: \
            --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
            --python-version 3.13 --implementation cp --abi cp313 --abi none --abi abi3 -d "$dir" $CL_WHEELS \
            >"$logf" 2>&1 || { log "pip download of the model-test wheels failed (log: $logf)"; return 0; }
        touch "$dir/.complete"
    fi
    rm -rf "$ROOT$site" && mkdir -p "$ROOT$site/.whl" || return 0
    for w in "$dir"/*.whl; do
        cp "$w" "$ROOT$site/.whl/" && chroot "$ROOT" python3 -m zipfile -e "$site/.whl/$(basename "$w")" "$site" \
            || { log "unpacking $w failed"; return 0; }
    done
    rm -rf "$ROOT$site/.whl" && touch "$ROOT$site/.complete" && echo "$site"
}

make_root() {
    BUILD_DIR=$CACHE/rootfs/cl-$SUITE-$ARCH-$KEY.build
    local keyring=() logf=$CACHE/logs/cl-native-root.log
    rm -rf "$BUILD_DIR" "$TARBALL.tmp"; mkdir -p "$BUILD_DIR" || return 1
    [ -e /usr/share/keyrings/debian-archive-keyring.gpg ] \
        && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
    command -v debootstrap >/dev/null || { apt-get update -q && apt-get install -y -q debootstrap; } >>"$logf" 2>&1 \
        || return 1
    log "debootstrap $SUITE $ARCH minbase from ${MIRROR:-the default mirror of debootstrap} (log: $logf)"
    debootstrap --arch=$ARCH --variant=minbase --components=main "${keyring[@]}" \
        "$SUITE" "$BUILD_DIR" ${MIRROR:+"$MIRROR"} >"$logf" 2>&1 || { tail -n 30 "$logf" >&2; return 1; }
    log "apt-get install $(echo "$pkgs" | wc -w) packages"
    mount_system "$BUILD_DIR" || return 1
    cp /etc/resolv.conf "$BUILD_DIR/etc/resolv.conf" 2>/dev/null || true
    # shellcheck disable=SC2086
    chroot "$BUILD_DIR" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $pkgs" >>"$logf" 2>&1 \
        || { tail -n 30 "$logf" >&2; return 1; }
    unmount_all
    rm -rf "$BUILD_DIR"/var/cache/apt/archives/*.deb "$BUILD_DIR"/var/lib/apt/lists/* "$BUILD_DIR"/tmp/*
    log "pack $(du -sh "$BUILD_DIR" | cut -f1) into $TARBALL"
    tar --numeric-owner -C "$BUILD_DIR" -cf "$TARBALL.tmp" . && mv "$TARBALL.tmp" "$TARBALL" || return 1
    rm -rf "$ROOT" && mv "$BUILD_DIR" "$ROOT" || return 1
    BUILD_DIR=
}

ensure_root() {
    if [ "${ACL_NDARRAY_REBUILD:-0}" = 1 ]; then rm -rf "$ROOT" "$TARBALL"; fi
    if [ -x "$ROOT/usr/bin/python3" ]; then log "root: $ROOT (cached)"; return 0; fi
    if [ -s "$TARBALL" ]; then
        log "root: unpacking cached $TARBALL"
        rm -rf "$ROOT.tmp" && mkdir -p "$ROOT.tmp" && tar -C "$ROOT.tmp" -xf "$TARBALL" \
            && mv "$ROOT.tmp" "$ROOT"
        return
    fi
    make_root
}

# The project's files (tracked and untracked-not-ignored) into $ROOT/src; build outputs of
# earlier runs (build/, compiled modules) stay, so an unchanged source is not recompiled.
sync_source() {
    local dst=$ROOT/src
    mkdir -p "$dst"
    find "$dst" -mindepth 1 -maxdepth 1 ! -name build ! -name acl_bridge -exec rm -rf {} +
    # the last build's products stay (build_project reuses them when the native sources are
    # those it was made from)
    [ -d "$dst/acl_bridge" ] && find "$dst/acl_bridge" -mindepth 1 ! -name '*.so' ! -name _build_info.json -exec rm -rf {} +
    if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$REPO" ls-files -co --exclude-standard -z | tar -C "$REPO" --null -T - -cf - | tar -C "$dst" -xf -
    else
        tar -C "$REPO" --exclude=.git --exclude=build --exclude='*.so' -cf - . | tar -C "$dst" -xf -
    fi
}

in_root() {  # in_root DRIVER CMD...: run CMD in $ROOT/src with the OpenCL driver DRIVER
    local driver=$1; shift
    local icd
    case $driver in
        pocl) icd=/etc/OpenCL/vendors/pocl.icd ;;
        rusticl) icd=/etc/OpenCL/vendors/rusticl.icd ;;
        *) die "unknown driver $driver (pocl or rusticl)" ;;
    esac
    chroot "$ROOT" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
        OCL_ICD_VENDORS=$icd RUSTICL_ENABLE=llvmpipe POCL_CACHE_DIR=/var/cache/pocl \
        PYTHONDONTWRITEBYTECODE=1 ACL_NDARRAY_CL_DRIVER="$driver" ${SITE:+PYTHONPATH=$SITE} \
        ACL_NDARRAY_CACHE=/var/cache/acl-ndarray ${OUTCOMES:+ACL_NDARRAY_OUTCOMES=$OUTCOMES} \
        sh -c 'cd /src && exec "$@"' sh "$@"
}

build_project() {
    # setup.py builds the cffi shim (CL backend: amd64 ACL has no NE functions) and the
    # OpenCL layer; --inplace puts both into /src/acl_bridge. The root's /src is shared by
    # every checkout that runs this script, and tar keeps each file's mtime, so an older
    # source can look up to date beside another checkout's newer build: --force whenever the
    # native sources differ from those of the last build.
    # The products of a build from the same native sources are reused as they are (a fresh
    # clone's newer mtimes would otherwise rebuild them: about 20 s of a warm run).
    local sum force=() f
    sum=$(cd "$ROOT/src" && cat setup.py acl_bridge/_build.py native/*.h native/*.c* native/cl_layer/* 2>/dev/null \
          | sha256sum | cut -c1-16)
    if [ "$(cat "$ROOT/src/build/.native-sources" 2>/dev/null)" = "$sum" ]; then
        for f in _acl_shim.abi3.so _native_call.abi3.so libacl_ndarray_cl_layer.so _build_info.json; do
            [ -s "$ROOT/src/acl_bridge/$f" ] || { f=missing; break; }
        done
        if [ "$f" != missing ]; then
            log "native build reused (its sources unchanged: $sum)"
            return 0
        fi
    else
        force=(--force)
    fi
    in_root pocl python3 setup.py -q build_ext --inplace "${force[@]}" >"$CACHE/logs/cl-native-build.log" 2>&1 \
        || { tail -n 40 "$CACHE/logs/cl-native-build.log" >&2; return 1; }
    mkdir -p "$ROOT/src/build" && echo "$sum" >"$ROOT/src/build/.native-sources"
}

# With ACL_NDARRAY_OUTCOMES_DIR (set by emulate.sh test), each pytest run's outcomes
# (tests/conftest.py) are written in the root's /tmp and copied there as cl-native-NAME.tsv.
OUTCOMES=""
outcomes_to() {  # outcomes_to NAME CMD...: CMD with OUTCOMES set, its file copied out afterwards
    local name=$1 rc=0; shift
    [ -n "${ACL_NDARRAY_OUTCOMES_DIR:-}" ] || { "$@"; return; }
    OUTCOMES=/tmp/outcomes-$name.tsv
    rm -f "$ROOT$OUTCOMES"
    "$@" || rc=$?
    [ ! -e "$ROOT$OUTCOMES" ] || cp "$ROOT$OUTCOMES" "$ACL_NDARRAY_OUTCOMES_DIR/cl-native-$name.tsv"
    OUTCOMES=""
    return "$rc"
}

run_tests() {  # run_tests DRIVER: tests/cl, then the main job's network on CL (demo --backend cl)
    outcomes_to "$1" in_root "$1" python3 -m pytest -q -p no:cacheprovider tests/cl || return
    in_root "$1" env ACL_NDARRAY_CL_LAYER=1 python3 -m acl_bridge demo --backend cl --skip armnn --runs 3 --strict \
        | grep -E '^(bridge path|  bytes copied|  [a-z0-9]+ +max|  time per|result)'
}

cmd=${1:-test}; [ $# -gt 0 ] && shift
case $cmd in
    build)
        stage "root (trixie amd64)" ensure_root ;;
    test)
        stage "root (trixie amd64)" ensure_root || exit 1
        mount_system "$ROOT" && copy_models || die "bind mounts or copying the models failed"
        SITE=$(install_wheels)
        stage "sync + build project" eval 'sync_source && build_project' || exit 1
        rc=0
        stage "tests/cl + demo --backend cl, PoCL" run_tests pocl || rc=1
        stage "tests/cl + demo --backend cl, rusticl" run_tests rusticl || rc=1
        # the tests that never touch ACL (tests/conftest.py PURE_MODULES) on this root's
        # Python 3.13 and numpy, natively: the emulated trixie run leaves them out
        stage "pure tests, natively (Python 3.13)" outcomes_to pure in_root pocl env HYPOTHESIS_PROFILE=emulated \
            python3 -m pytest -q -p no:cacheprovider -m pure tests || rc=1
        exit $rc ;;
    run)
        driver=pocl
        while [ $# -gt 0 ] && [ "$1" != -- ]; do
            case $1 in --driver) driver=$2; shift 2 ;; *) die "unknown option $1" ;; esac
        done
        [ "${1:-}" = -- ] && shift
        [ $# -gt 0 ] || die "usage: $0 run [--driver pocl|rusticl] -- CMD..."
        stage "root (trixie amd64)" ensure_root || exit 1
        mount_system "$ROOT" && copy_models || die "bind mounts or copying the models failed"
        SITE=$(install_wheels)
        sync_source || exit 1
        # CMD may build anything into /src: the next test builds again rather than reuse it
        rm -f "$ROOT/src/build/.native-sources"
        in_root "$driver" "$@" ;;
    clean)
        rm -rf "$CACHE"/rootfs/cl-$SUITE-$ARCH-* ; log "removed cached OpenCL roots" ;;
    -h|--help|help)
        awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" ;;
    *) die "unknown command $cmd (test, build, run, clean)" ;;
esac
