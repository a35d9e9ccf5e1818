# shellcheck shell=bash
# Sourced by docker/emulate.sh: the amd64 cross builder image per target and the aarch64
# wheel it builds (docker/cross-build.sh), cached outside the repo by their inputs and
# copied into the dist directory. Uses emulate.sh's helpers (log, run_long, eng, ensure_base,
# wait_base, image_missing, cross_tag, hash_of) and variables (CACHE, LOGS, REPO, DIST,
# REBUILD, RUN_FLAGS, BUILD_NET, CONTAINER_PREFIX).

# What goes into a wheel: its key is the content of these files (relative to the repo) and
# the builder image's tag (itself keyed by Dockerfile.cross and packages-cross.txt).
# Tests, docs and the emulation scripts are not inputs: changing them reuses the wheel.
WHEEL_INPUTS=(pyproject.toml setup.py README.md acl_bridge ndarray native docker/cross-build.sh)

declare -A WHEEL_FILE=() WHEEL_BUILD_ID=() WHEEL_CL_LAYER_BUILD_ID=()

ensure_cross_image() {  # ensure_cross_image TARGET: the amd64 builder image of TARGET's release
    local target=$1 tag
    tag=$(cross_tag "$target")
    wait_base "$target-amd64"
    if ! image_missing "$tag"; then
        log "cross builder: $tag (cached)"; return 0
    fi
    ensure_base "$target" amd64 || return 1
    local nocache=()
    [ "$REBUILD" = 1 ] && nocache=(--no-cache)
    run_long "build $tag from $BASE_REF (amd64: cross compiler + arm64 ACL and Python headers)" \
        "$LOGS/build-cross-$target.log" \
        eng build "${nocache[@]}" "${RUN_FLAGS[@]}" "${BUILD_NET[@]}" --platform linux/amd64 \
            --build-arg "SUITE=$target" --build-arg "BASE=$BASE_REF" \
            -t "$tag" -f "$SCRIPT_DIR/Dockerfile.cross" "$SCRIPT_DIR" || return 1
    image_to_archive "$tag"
}

wheel_key() {  # wheel_key TARGET: hash of the builder tag and the content of WHEEL_INPUTS
    (
        cd "$REPO" || exit 1
        cross_tag "$1"
        find "${WHEEL_INPUTS[@]}" -type f ! -path '*/__pycache__/*' ! -name '*.pyc' ! -name '*.so' \
            ! -name '*.o' ! -name _build_info.json ! -path '*.egg-info/*' 2>/dev/null \
            | LC_ALL=C sort | xargs -r -d '\n' sha256sum
    ) | hash_of
}

# cross_run TARGET [-v SRC:DST | -e NAME=VALUE]... -- CMD...: CMD in TARGET's builder (amd64,
# no network)
cross_run() {
    local target=$1 flags=() pid rc=0; shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        case $1 in -v|-e) flags+=("$1" "$2"); shift ;; esac
        shift
    done
    shift
    eng run --rm --pull never --name "${CONTAINER_PREFIX}cross-$target-$RANDOM" --platform linux/amd64 \
        "${RUN_FLAGS[@]}" --network none -e "ACL_NDARRAY_TARGET=$target" "${flags[@]}" \
        -v "$REPO:/src:ro" "$(cross_tag "$target")" "$@" </dev/null &
    pid=$!
    BG_PIDS+=("$pid")
    wait "$pid" || rc=$?
    return "$rc"
}

# ensure_wheel TARGET: the cross-compiled wheel of TARGET, from the cache or built now;
# copied into DIST; sets WHEEL_FILE[TARGET] (its name), WHEEL_BUILD_ID[TARGET] and
# WHEEL_CL_LAYER_BUILD_ID[TARGET] (its OpenCL layer's; empty where the wheel has none).
ensure_wheel() {
    local target=$1 key dir whl name tag
    ensure_cross_image "$target" || return 1
    key=$(wheel_key "$target") || return 1
    dir=$CACHE/wheels/$target-$key
    if [ "$REBUILD" = 1 ] || [ ! -s "$dir/build-id" ] || [ ! -e "$dir/cl-layer-build-id" ] \
        || ! compgen -G "$dir/*.whl" >/dev/null; then
        rm -rf "$dir" "$dir.tmp"
        mkdir -p "$dir.tmp" || return 1
        run_long "cross-compile the $target wheel (amd64 builder, aarch64 target)" "$LOGS/wheel-$target.log" \
            cross_run "$target" -v "$dir.tmp:/out" -- bash /src/docker/cross-build.sh /out || return 1
        sed -n 's/^\[[0-9:]*\] \[cross [a-z]*\] //p' "$LOGS/wheel-$target.log" | grep -E '^(time|acl_ndarray-)' >&2 || true
        mv "$dir.tmp" "$dir" || return 1
    else
        log "wheel: $dir (cached; key: builder image + content of ${WHEEL_INPUTS[*]})"
    fi
    whl=$(compgen -G "$dir/*.whl" | head -n1)
    name=$(basename "$whl")
    tag=$(cut -d- -f3 <<<"$name")  # cp313
    mkdir -p "$DIST" || return 1
    rm -f "$DIST"/acl_ndarray-*-"$tag-$tag"-linux_aarch64.whl
    cp "$whl" "$DIST/" || return 1
    # the checkout's owner, not root, owns what the script writes into it
    case $DIST in "$REPO"/*) chown "$(stat -c %u:%g "$REPO")" "$DIST" "$DIST/$name" 2>/dev/null || true ;; esac
    WHEEL_FILE[$target]=$name
    WHEEL_BUILD_ID[$target]=$(cat "$dir/build-id")
    WHEEL_CL_LAYER_BUILD_ID[$target]=$(cat "$dir/cl-layer-build-id")
    log "wheel $target: $DIST/$name (native module build-id ${WHEEL_BUILD_ID[$target]}; OpenCL layer ${WHEEL_CL_LAYER_BUILD_ID[$target]:-none})"
}
