# Sourced by the benchmark scripts: starts fresh release fulfilld servers on 127.0.0.1:0,
# stops them when asked or when the script exits, and hands back address and API key.
#
#   source benches/server.sh                    # sets WORK (a temp dir removed at exit)
#   release_binaries EXAMPLE [DIR]              # sets FULFILLD and BENCH: from DIR when
#                                               # given (prebuilt), else built here
#   start_fulfilld BIN NAME DATA_DIR [flags...]  # sets PID, API, PACKING, KEY; logs in $WORK
#   start_quiet_fulfilld NAME                    # $FULFILLD on $WORK/data, auto_pack off
#   stop_fulfilld                               # SIGTERM, then SIGKILL after 10 s
#   rss                                         # the server's resident memory, "412 MB"
#
# Requires log() and die() from the caller. Only 127.0.0.1 is used.

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fulfilld-bench.XXXXXX")
PID=""
stop_fulfilld() {
    if [ -n "$PID" ]; then
        kill "$PID" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$PID" 2>/dev/null || true
        PID=""
    fi
}
cleanup() { stop_fulfilld; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

release_binaries() {
    local example=$1 dir=${2:-}
    if [ -n "$dir" ]; then
        FULFILLD="$dir/fulfilld"
        BENCH="$dir/$example"
    else
        log "building release binaries (nice -n 10)"
        nice -n 10 cargo build --release --bin fulfilld --example "$example"
        local target=${CARGO_TARGET_DIR:-$ROOT/target}
        FULFILLD="$target/release/fulfilld"
        BENCH="$target/release/examples/$example"
    fi
}

start_fulfilld() {
    local bin=$1 name=$2 data=$3
    shift 3
    "$bin" serve "$@" --data-dir "$data" --listen 127.0.0.1:0 --packing-listen 127.0.0.1:0 \
        >"$WORK/out-$name" 2>"$WORK/err-$name" &
    PID=$!
    # Up to 2 minutes: a million orders indexed on a busy machine take more than 30 s.
    for _ in $(seq 1200); do
        grep -q '^fulfilld ready:' "$WORK/out-$name" 2>/dev/null && break
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/err-$name" >&2; die "server exited early"; }
        sleep 0.1
    done
    API=$(sed -nE 's/^fulfilld ready: fulfillment=(https:\/\/[^ ]+).*/\1/p' "$WORK/out-$name")
    case "$API" in https://127.0.0.1:*) ;; *) die "unexpected address $API" ;; esac
    PACKING=$(sed -nE 's/^fulfilld ready: .* packing=(https:\/\/[^ ]+).*/\1/p' "$WORK/out-$name")
    KEY=$("$bin" clients create --name "$name" --tier unlimited --data-dir "$data" \
        | tr -d '\n' | sed -nE 's/.*"api_key"[[:space:]]*:[[:space:]]*"([^"]*)".*/\1/p')
    [ -n "$KEY" ] || die "no API key"
}

# A server on a fresh data directory in $WORK with background packing off (the benchmark
# packs what it asks for, nothing else competes for the packing workers); sets DATA too.
start_quiet_fulfilld() {
    DATA="$WORK/data"
    echo "auto_pack = false" >"$WORK/config.toml"
    start_fulfilld "$FULFILLD" "$1" "$DATA" --config "$WORK/config.toml"
}

rss() { awk '/VmRSS/ {printf "%.0f MB", $2/1024}' "/proc/$PID/status"; }
