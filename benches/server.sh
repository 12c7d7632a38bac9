# Sourced by the benchmark scripts: starts a fresh release fulfilld on 127.0.0.1:0 in a
# temp dir, stops it when the script exits, and hands back its address and an API key.
#
#   source benches/server.sh
#   start_fulfilld "$FULFILLD" NAME [serve flags...]   # sets WORK, DATA, PID, API, KEY
#
# Requires log() and die() from the caller. Only 127.0.0.1 is used.

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fulfilld-bench.XXXXXX")
DATA="$WORK/data"
PID=""
cleanup() {
    if [ -n "$PID" ]; then
        kill "$PID" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_fulfilld() {
    local bin=$1 name=$2
    shift 2
    "$bin" serve "$@" --data-dir "$DATA" --listen 127.0.0.1:0 --packing-listen 127.0.0.1:0 \
        >"$WORK/out" 2>"$WORK/err" &
    PID=$!
    for _ in $(seq 300); do
        grep -q '^fulfilld ready:' "$WORK/out" 2>/dev/null && break
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/err" >&2; die "server exited early"; }
        sleep 0.1
    done
    API=$(sed -nE 's/^fulfilld ready: fulfillment=(https:\/\/[^ ]+).*/\1/p' "$WORK/out")
    case "$API" in https://127.0.0.1:*) ;; *) die "unexpected address $API" ;; esac
    KEY=$("$bin" clients create --name "$name" --tier unlimited --data-dir "$DATA" \
        | tr -d '\n' | sed -nE 's/.*"api_key"[[:space:]]*:[[:space:]]*"([^"]*)".*/\1/p')
    [ -n "$KEY" ] || die "no API key"
}

# Resident memory of the server, e.g. "412 MB".
rss() { awk '/VmRSS/ {printf "%.0f MB", $2/1024}' "/proc/$PID/status"; }
