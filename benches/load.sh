#!/usr/bin/env bash
# HTTP load benchmark (foundation issue): requests/s and p50/p99 latency over TLS with
# keep-alive, measured with wrk in one run for
#   bare     the bare hyper + rustls hello server (benches/bare_hello.rs): the ceiling
#   bare-list  the same server with its body padded to the size of the product list
#            response: what that payload alone costs (TLS, copies, kernel)
#   health   GET /health on fulfilld (anonymous)
#   apikey   GET /api/products?limit=10 with X-API-Key of an `unlimited` client
#   bearer   the same with Authorization: Bearer <token from POST /oauth/token>
#   apikey1  GET /api/products/sku/BENCH-1 with X-API-Key (one product, ~0.5 KB): the
#            authenticated path with a small body, to separate auth from payload cost
# Every target gets the same wrk settings; the targets are interleaved and repeated
# (LOAD_ROUNDS) so the noise is visible. Target: authenticated GETs >= 70% of bare.
#
# Usage: bash benches/load.sh
# Environment (defaults in brackets):
#   LOAD_DURATION [10s]    wrk -d per measured run (e.g. LOAD_DURATION=3s for a quick run)
#   LOAD_WARMUP [2s]       unrecorded wrk run per target before round 1 (0 to skip)
#   LOAD_ROUNDS [2]        how many times the four targets are measured, interleaved
#   LOAD_THREADS [1]       wrk -t (1: the client must not take the server's cores)
#   LOAD_CONNECTIONS [32]  wrk -c (keep-alive connections, wrk's default)
#   LOAD_PRODUCTS [10]     products created before the run (the list returns 10)
#   LOAD_RAW [0]           1: also print every raw wrk report
#   CARGO_TARGET_DIR       where cargo puts the release binaries [./target]
# All traffic goes to 127.0.0.1 on ports the servers pick themselves (port 0); both
# servers run with a temporary data directory and are stopped on exit.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

DURATION=${LOAD_DURATION:-10s}
WARMUP=${LOAD_WARMUP:-2s}
ROUNDS=${LOAD_ROUNDS:-2}
THREADS=${LOAD_THREADS:-1}
CONNECTIONS=${LOAD_CONNECTIONS:-32}
PRODUCTS=${LOAD_PRODUCTS:-10}
RAW=${LOAD_RAW:-0}
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

log() { printf '[load] %s\n' "$*" >&2; }
die() { printf '[load] error: %s\n' "$*" >&2; exit 1; }
[ "$PRODUCTS" -ge 1 ] || die "LOAD_PRODUCTS must be at least 1"

# ---------------------------------------------------------------- tools and binaries
if ! command -v wrk >/dev/null 2>&1; then
    log "wrk not found; installing it (Debian package wrk)"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "wrk is missing and we are not root: apt-get install wrk"
        SUDO=sudo
    fi
    $SUDO apt-get update && $SUDO apt-get install -y wrk
fi
command -v curl >/dev/null 2>&1 || die "curl is required"

log "building release binaries (nice -n 10)"
nice -n 10 cargo build --release --bin fulfilld --example bare_hello
FULFILLD="$TARGET_DIR/release/fulfilld"
BARE="$TARGET_DIR/release/examples/bare_hello"
[ -x "$FULFILLD" ] || die "$FULFILLD not built"
[ -x "$BARE" ] || die "$BARE not built"

# ---------------------------------------------------------------- servers and cleanup
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fulfilld-load.XXXXXX")
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        # fulfilld drains and flushes on SIGTERM; do not wait forever.
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_ready LOGFILE PID PATTERN: prints the first stdout line matching PATTERN.
wait_ready() {
    local file=$1 pid=$2 pattern=$3 line
    for _ in $(seq 300); do
        line=$(grep -m1 "$pattern" "$file" 2>/dev/null || true)
        if [ -n "$line" ]; then printf '%s\n' "$line"; return 0; fi
        kill -0 "$pid" 2>/dev/null || { cat "$file" "$file.err" >&2 2>/dev/null; die "server exited early"; }
        sleep 0.1
    done
    die "server did not become ready (see $file)"
}

"$BARE" 127.0.0.1:0 >"$WORK/bare.out" 2>"$WORK/bare.out.err" &
PIDS+=($!)
BARE_URL=$(wait_ready "$WORK/bare.out" "${PIDS[-1]}" '^bare_hello ready:' | sed -E 's/.*(https:\/\/127\.0\.0\.1:[0-9]+).*/\1/')

# Anonymous traffic is rate-limited per IP at the starter tier (60 rpm) by design; the
# benchmark raises that limit so GET /health measures the code path, not 429s. The
# limiter still runs (and its mutex is still taken) for every anonymous request.
cat >"$WORK/bench.toml" <<'EOF'
[rate_limits.starter]
rpm = 1000000000
burst = 1000000000
EOF
DATA="$WORK/data"
"$FULFILLD" serve --data-dir "$DATA" --config "$WORK/bench.toml" \
    --listen 127.0.0.1:0 --packing-listen 127.0.0.1:0 \
    >"$WORK/fulfilld.out" 2>"$WORK/fulfilld.out.err" &
PIDS+=($!)
READY=$(wait_ready "$WORK/fulfilld.out" "${PIDS[-1]}" '^fulfilld ready:')
API_URL=$(printf '%s\n' "$READY" | sed -E 's/.*fulfillment=(https:\/\/[^ ]+).*/\1/')
case "$BARE_URL$API_URL" in
    https://127.0.0.1:*https://127.0.0.1:*) ;;
    *) die "unexpected addresses: bare=$BARE_URL fulfilld=$API_URL" ;;
esac
log "bare_hello at $BARE_URL, fulfilld at $API_URL (data dir $DATA)"

# ---------------------------------------------------------------- client, data, token
json_field() { sed -nE "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"([^\"]*)\".*/\1/p"; }

CLIENT=$("$FULFILLD" clients create --name load-bench --tier unlimited --data-dir "$DATA")
API_KEY=$(printf '%s' "$CLIENT" | tr -d '\n' | json_field api_key)
CLIENT_ID=$(printf '%s' "$CLIENT" | tr -d '\n' | json_field client_id)
CLIENT_SECRET=$(printf '%s' "$CLIENT" | tr -d '\n' | json_field client_secret)
[ -n "$API_KEY" ] && [ -n "$CLIENT_ID" ] && [ -n "$CLIENT_SECRET" ] || die "could not parse: $CLIENT"

CURL=(curl -ksS --fail-with-body --max-time 10)
for i in $(seq 1 "$PRODUCTS"); do
    "${CURL[@]}" -o /dev/null -X POST "$API_URL/api/products" \
        -H "X-API-Key: $API_KEY" -H 'Content-Type: application/json' \
        --data "{\"sku\":\"BENCH-$i\",\"name\":\"Benchmark product $i\",\"description\":\"A product created by benches/load.sh so the list is realistic.\",\"price\":12.5,\"unitCost\":4.25,\"costCurrency\":\"USD\",\"weight\":0.8,\"dimensions\":{\"width\":4,\"height\":5,\"length\":4},\"lowStockThreshold\":3}"
done
TOKEN=$("${CURL[@]}" -X POST "$API_URL/oauth/token" \
    --data-urlencode grant_type=client_credentials \
    --data-urlencode "client_id=$CLIENT_ID" --data-urlencode "client_secret=$CLIENT_SECRET" | json_field access_token)
[ -n "$TOKEN" ] || die "no access token from /oauth/token"

# ---------------------------------------------------------------- targets
TARGETS=(bare health apikey bearer apikey1)
declare -A URL HDR
URL[bare]="$BARE_URL/";                            HDR[bare]=""
URL[health]="$API_URL/health";                     HDR[health]=""
URL[apikey]="$API_URL/api/products?limit=10";      HDR[apikey]="X-API-Key: $API_KEY"
URL[bearer]="$API_URL/api/products?limit=10";      HDR[bearer]="Authorization: Bearer $TOKEN"
URL[apikey1]="$API_URL/api/products/sku/BENCH-1";  HDR[apikey1]="X-API-Key: $API_KEY"

run_wrk() { # run_wrk TARGET DURATION
    local t=$1 d=$2
    local args=(-t"$THREADS" -c"$CONNECTIONS" -d"$d" --latency)
    [ -n "${HDR[$t]}" ] && args+=(-H "${HDR[$t]}")
    wrk "${args[@]}" "${URL[$t]}"
}

for t in "${TARGETS[@]}"; do
    hdr=()
    [ -n "${HDR[$t]}" ] && hdr=(-H "${HDR[$t]}")
    out=$("${CURL[@]}" "${hdr[@]}" -w '\n%{http_code}' "${URL[$t]}") || die "$t: ${URL[$t]} failed: $out"
    [ "${out##*$'\n'}" = 200 ] || die "$t: status ${out##*$'\n'}"
    body=${out%$'\n'*}
    log "$t: 200, ${#body}-byte body"
done
LIST_BODY=$("${CURL[@]}" -H "${HDR[apikey]}" "${URL[apikey]}")
[ "$(printf '%s' "$LIST_BODY" | grep -o '"sku"' | wc -l)" -eq "$(( PRODUCTS < 10 ? PRODUCTS : 10 ))" ] \
    || die "the product list does not hold the products just created"

"$BARE" 127.0.0.1:0 "${#LIST_BODY}" >"$WORK/bare-list.out" 2>"$WORK/bare-list.out.err" &
PIDS+=($!)
BARE_LIST_URL=$(wait_ready "$WORK/bare-list.out" "${PIDS[-1]}" '^bare_hello ready:' | sed -E 's/.*(https:\/\/127\.0\.0\.1:[0-9]+).*/\1/')
[ -n "$BARE_LIST_URL" ] || die "unexpected bare-list address"
TARGETS=(bare bare-list health apikey bearer apikey1)
URL[bare-list]="$BARE_LIST_URL/"; HDR[bare-list]=""
log "bare-list at $BARE_LIST_URL, body padded to ${#LIST_BODY} bytes like the product list"

if [ "$WARMUP" != 0 ]; then
    log "warm-up: $WARMUP per target"
    for t in "${TARGETS[@]}"; do run_wrk "$t" "$WARMUP" >/dev/null; done
fi

# to_ms VALUE: wrk latency (e.g. 812.00us, 1.52ms, 2.01s) in milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
        printf "%.3f", n }'
}

declare -A RPS P50 P99 ERR
log "measuring: wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency, $ROUNDS round(s), targets interleaved"
for r in $(seq 1 "$ROUNDS"); do
    for t in "${TARGETS[@]}"; do
        out=$(run_wrk "$t" "$DURATION")
        [ "$RAW" = 1 ] && printf '=== round %s %s\n%s\n' "$r" "$t" "$out" >&2
        RPS[$t,$r]=$(printf '%s\n' "$out" | awk '/^Requests\/sec:/ {print $2}')
        P50[$t,$r]=$(to_ms "$(printf '%s\n' "$out" | awk '$1 == "50%" {print $2}')")
        P99[$t,$r]=$(to_ms "$(printf '%s\n' "$out" | awk '$1 == "99%" {print $2}')")
        non2xx=$(printf '%s\n' "$out" | awk '/Non-2xx or 3xx responses:/ {print $NF}')
        sock=$(printf '%s\n' "$out" | awk -F'errors: ' '/Socket errors:/ {print $2}')
        ERR[$t,$r]=""
        [ -n "$non2xx" ] && ERR[$t,$r]+="non-2xx=$non2xx "
        [ -n "$sock" ] && ERR[$t,$r]+="socket: $sock"
        log "round $r $t: ${RPS[$t,$r]} req/s p50 ${P50[$t,$r]} ms p99 ${P99[$t,$r]} ms ${ERR[$t,$r]}"
    done
done

# ---------------------------------------------------------------- report
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f%%", 100 * a / b; else print "-" }'; }
mean() { printf '%s\n' "$@" | awk '{ s += $1; n++ } END { printf "%.0f", s / n }'; }

echo
echo "HTTP load, TLS 1.3 + HTTP/1.1 keep-alive, wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency, $(nproc) CPU(s), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| round | target | requests/s | p50 (ms) | p99 (ms) | vs bare (same round) | errors |"
echo "|---|---|---:|---:|---:|---:|---|"
for r in $(seq 1 "$ROUNDS"); do
    for t in "${TARGETS[@]}"; do
        printf '| %s | %s | %.0f | %s | %s | %s | %s |\n' "$r" "$t" "${RPS[$t,$r]}" "${P50[$t,$r]}" \
            "${P99[$t,$r]}" "$(ratio "${RPS[$t,$r]}" "${RPS[bare,$r]}")" "${ERR[$t,$r]:-none}"
    done
done
echo
echo "| target | mean requests/s | vs bare | vs bare-list (same body size) | target >= 70% of bare |"
echo "|---|---:|---:|---:|---|"
bare_vals=(); for r in $(seq 1 "$ROUNDS"); do bare_vals+=("${RPS[bare,$r]}"); done
BARE_MEAN=$(mean "${bare_vals[@]}")
list_vals=(); for r in $(seq 1 "$ROUNDS"); do list_vals+=("${RPS[bare-list,$r]}"); done
BARE_LIST_MEAN=$(mean "${list_vals[@]}")
for t in "${TARGETS[@]}"; do
    vals=(); for r in $(seq 1 "$ROUNDS"); do vals+=("${RPS[$t,$r]}"); done
    m=$(mean "${vals[@]}")
    verdict="-"
    same="-"
    case "$t" in apikey | bearer | bare-list) same=$(ratio "$m" "$BARE_LIST_MEAN") ;; esac
    if [ "$t" != bare ] && [ "$t" != bare-list ] && [ "$t" != health ]; then
        if awk -v a="$m" -v b="$BARE_MEAN" 'BEGIN { exit !(a >= 0.7 * b) }'; then verdict=met; else verdict="NOT met"; fi
    fi
    printf '| %s | %s | %s | %s | %s |\n' "$t" "$m" "$(ratio "$m" "$BARE_MEAN")" "$same" "$verdict"
done
for key in "${!ERR[@]}"; do
    [ -z "${ERR[$key]}" ] || log "warning: errors in $key: ${ERR[$key]}"
done
exit 0
