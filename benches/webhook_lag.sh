#!/usr/bin/env bash
# Delivery-lag benchmark (issue 19): three subscriptions to every event kind on a local
# HTTPS receiver while orders are created at a fixed rate, each rate on a fresh server
# and data directory; reports the time from each event's commit (its envelope timestamp,
# taken in the transaction) to its first arrival at the receiver.
#
#   bash benches/webhook_lag.sh                     # 500 and 1000 orders/s, 60 s each
#   LAG_RATES="500" LAG_SECS=20 bash benches/webhook_lag.sh
#   WEBHOOK_BIN=/dir bash benches/webhook_lag.sh    # prebuilt fulfilld and webhook_load in /dir
#   LAG_ERRORS=1 bash benches/webhook_lag.sh        # also count failed attempts' errors (jq)
#   LAG_H2=1 bash benches/webhook_lag.sh            # the receiver offers HTTP/2 too
#
# Targets: p99 under 1 s at 500 orders/s and under 2 s at 1,000 orders/s.
# Only 127.0.0.1 is used; servers stop when their run (or the script) ends.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
RATES=${LAG_RATES:-500 1000}
SECS=${LAG_SECS:-60}

log() { printf '[webhook-lag] %s\n' "$*" >&2; }
die() { printf '[webhook-lag] error: %s\n' "$*" >&2; exit 1; }

if [ -n "${WEBHOOK_BIN:-}" ]; then
    FULFILLD="$WEBHOOK_BIN/fulfilld"
    BENCH="$WEBHOOK_BIN/webhook_load"
else
    log "building release binaries (nice -n 10)"
    nice -n 10 cargo build --release --bin fulfilld --example webhook_load
    FULFILLD="$TARGET_DIR/release/fulfilld"
    BENCH="$TARGET_DIR/release/examples/webhook_load"
fi

source "$ROOT/benches/server.sh"

"$BENCH" certs --dir "$WORK/certs"
cat >"$WORK/config.toml" <<CONF
auto_pack = false
CONF

for rate in $RATES; do
    data="$WORK/data-$rate"
    start_fulfilld "$FULFILLD" "lag$rate" "$data" --config "$WORK/config.toml" \
        --webhook-ca "$WORK/certs/ca.pem"
    log "$rate orders/s for $SECS s: server at $API"
    "$BENCH" run --base "$API" --cert "$data/tls/cert.pem" --api-key "$KEY" \
        --certs "$WORK/certs" --subs 3 --events all --rate "$rate" --secs "$SECS" \
        --after 15 ${LAG_H2:+--h2} | tee "$WORK/report-$rate"
    echo "server resident memory: $(rss)"
    # CPU the server used (user + system), against the machine's load from other work.
    awk -v hz="$(getconf CLK_TCK)" '{printf "server CPU: %.1f s\n", ($14 + $15) / hz}' "/proc/$PID/stat"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
    # What the run cost the writer: commit batches and their writes, fdatasyncs, attempts.
    curl -sk "$API/metrics" | grep -E '^fulfilld_(storage_commit_batch_writes_(count|sum)|storage_fsync_duration_seconds_(count|sum)|webhook_deliveries_total)' \
        | sed 's/^/metrics: /' || true
    # LAG_ERRORS=1: the errors of failed attempts (the receiver always answers 200, so
    # each is a transport error), counted by text, read from the deliveries API.
    if [ -n "${LAG_ERRORS:-}" ]; then
        command -v jq >/dev/null || die "LAG_ERRORS needs jq"
        get() { curl -sk -H "X-API-Key: $KEY" "$API$1"; }
        for hook in $(get "/api/webhooks?limit=200" | jq -r '.webhooks[].id'); do
            n=$(get "/api/webhooks/$hook/deliveries?limit=1" | jq '.pagination.total')
            for ((off = 0; off < n; off += 200)); do
                get "/api/webhooks/$hook/deliveries?limit=200&offset=$off"
            done
        done | jq -r '.deliveries[].attempts[] | select(.error != null) | .error' \
            | sort | uniq -c | sort -rn | head -10 | sed 's/^/attempt errors: /'
    fi
    stop_fulfilld
    rm -rf "$data"
done

echo
echo "summary ($SECS s per rate, 3 subscriptions to every kind):"
for rate in $RATES; do
    sed -nE "s/^RESULT .*orders_per_s=([0-9.]+).*lag_p50_ms=([0-9]+) lag_p99_ms=([0-9]+) lag_max_ms=([0-9]+) undelivered=([0-9]+).*/  $rate orders\/s offered: \1 created\/s, lag p50 \2 ms, p99 \3 ms, max \4 ms, undelivered \5/p" \
        "$WORK/report-$rate"
done
