#!/usr/bin/env bash
# Webhook delivery benchmark (issue 5): deliveries/s to a local HTTPS receiver with 10
# subscriptions while orders are created as in the orders benchmark (64 clients), then the
# same with an 11th subscription to a dead endpoint (accepts TCP, never answers), and the
# live subscriptions' delivery rate of the second run as a share of the first's. A third
# run (the control) adds an 11th subscription to the live receiver instead: the same
# extra fan-out work without the hanging, so dead/control isolates the hanging's cost.
# Every run gets a fresh server and data directory (a backlog would carry over otherwise).
#
#   bash benches/webhooks.sh                        # 1 round: baseline, then dead endpoint
#   WEBHOOK_ROUNDS=3 WEBHOOK_SECS=30 bash benches/webhooks.sh
#   WEBHOOK_BIN=/dir bash benches/webhooks.sh       # prebuilt fulfilld and webhook_load in /dir
#   WEBHOOK_TIMEOUT=30 ...                          # the server's webhook_timeout_secs (30)
#   WEBHOOK_ARGS="--h2 --subs 10" ...               # extra flags for `webhook_load run`
#
# Targets: >= 2,000 deliveries/s; the dead endpoint costs the others < 10%.
# Only 127.0.0.1 is used; servers stop when their run (or the script) ends.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
ROUNDS=${WEBHOOK_ROUNDS:-1}
SECS=${WEBHOOK_SECS:-20}
TIMEOUT=${WEBHOOK_TIMEOUT:-30}

log() { printf '[webhooks] %s\n' "$*" >&2; }
die() { printf '[webhooks] error: %s\n' "$*" >&2; exit 1; }

source "$ROOT/benches/server.sh"
release_binaries webhook_load "${WEBHOOK_BIN:-}"

"$BENCH" certs --dir "$WORK/certs"
cat >"$WORK/config.toml" <<EOF
auto_pack = false
webhook_timeout_secs = $TIMEOUT
EOF

# One run on a fresh server; prints the example's report and keeps its RESULT line.
run() { # run <name> [--dead]
    local name=$1; shift
    local data="$WORK/data-$name"
    start_fulfilld "$FULFILLD" "$name" "$data" --config "$WORK/config.toml" \
        --webhook-ca "$WORK/certs/ca.pem"
    local api=$API key=$KEY
    log "run $name: server at $api"
    # shellcheck disable=SC2086 # WEBHOOK_ARGS is a list of flags
    "$BENCH" run --base "$api" --cert "$data/tls/cert.pem" --api-key "$key" \
        --certs "$WORK/certs" --secs "$SECS" ${WEBHOOK_ARGS:-} "$@" | tee "$WORK/report-$name"
    echo "server resident memory: $(rss)"
    stop_fulfilld
    rm -rf "$data"
}

field() { sed -nE "s/^RESULT .*$2=([0-9.]+).*/\1/p" "$WORK/report-$1"; }

for r in $(seq "$ROUNDS"); do
    run "base$r"
    run "dead$r" --dead
    run "ctrl$r" --extra-live
done

echo
echo "summary (webhook_timeout_secs=$TIMEOUT, $SECS s of order creation per run):"
for r in $(seq "$ROUNDS"); do
    b=$(field "base$r" deliveries_per_s); d=$(field "dead$r" deliveries_per_s)
    awk -v r="$r" -v b="$b" -v d="$d" -v c="$(field "ctrl$r" deliveries_per_s)" \
        -v ab="$(field "base$r" after_per_s)" -v ad="$(field "dead$r" after_per_s)" \
        -v ac="$(field "ctrl$r" after_per_s)" \
        -v ob="$(field "base$r" orders_per_s)" -v od="$(field "dead$r" orders_per_s)" \
        -v pb="$(field "base$r" create_p99_ms)" -v pd="$(field "dead$r" create_p99_ms)" 'BEGIN {
        printf "round %d: deliveries/s %d -> %d with a dead endpoint (%.1f%% of baseline); ", r, b, d, 100 * d / b
        printf "orders/s %d -> %d; create p99 %.1f -> %.1f ms\n", ob, od, pb, pd
        printf "round %d: with an 11th live subscription (control) %d/s: dead / control %.1f%%\n", r, c, 100 * d / c
        printf "round %d: after creation stopped: %d -> %d/s dead (%.1f%%), control %d/s (dead / control %.1f%%)\n",
            r, ab, ad, 100 * ad / ab, ac, 100 * ad / ac
        printf "round %d: >= 2,000 deliveries/s: %s; dead endpoint costs < 10%%: %s\n", r,
            (b >= 2000 && d >= 2000) ? "met" : "NOT met", (d >= 0.9 * b) ? "met" : "NOT met"
    }'
done
