#!/usr/bin/env bash
# Keyed order creation (issue 21): the same durable POST /api/orders with and without an
# Idempotency-Key, against two builds in alternating rounds on fresh servers, so the cost
# of holding a keyed change and its stored response in one commit batch reads as ratios
# within one run.
#
#   KEYED_BEFORE=/dir KEYED_AFTER=/dir bash benches/keyed_orders.sh
#       each /dir holds a release `fulfilld`; KEYED_AFTER also `loadgen` (built with
#       `cargo build --release --bin fulfilld --example loadgen`), used for both builds
#   KEYED_ROUNDS=3 KEYED_N=4000 ...    rounds (default 3) and orders per measurement
#
# Only 127.0.0.1 is used; the servers stop when the script ends.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '[keyed] %s\n' "$*" >&2; }
die() { printf '[keyed] error: %s\n' "$*" >&2; exit 1; }
[ -n "${KEYED_BEFORE:-}" ] && [ -n "${KEYED_AFTER:-}" ] || die "set KEYED_BEFORE and KEYED_AFTER"
LOADGEN="$KEYED_AFTER/loadgen"
ROUNDS=${KEYED_ROUNDS:-3}
N=${KEYED_N:-4000}
PRODUCTS=1000
source "$ROOT/benches/server.sh"
echo "auto_pack = false" >"$WORK/config.toml"

# Prints "plain keyed" orders/s of one fresh server of build $1.
measure() {
    local name=$1 bin=$2 data="$WORK/data-$1-$3"
    start_fulfilld "$bin" "$name" "$data" --config "$WORK/config.toml"
    local lg=("$LOADGEN" --base "$API" --cert "$data/tls/cert.pem" --api-key "$KEY")
    "${lg[@]}" --concurrency 64 seed-catalog --products "$PRODUCTS" --warehouses 2 >/dev/null
    local plain keyed
    plain=$("${lg[@]}" --concurrency 64 create-orders --n "$N" --skus "$PRODUCTS" --prefix P | tee -a "$WORK/runs")
    keyed=$("${lg[@]}" --concurrency 64 create-orders --n "$N" --skus "$PRODUCTS" --prefix K --keyed | tee -a "$WORK/runs")
    stop_fulfilld
    rm -rf "$data"
    echo "$(rate "$plain") $(rate "$keyed")"
}
# The requests per second of one loadgen summary line.
rate() { sed -nE 's/.* ([0-9.]+) req\/s.*/\1/p' <<<"$1" | head -1; }

printf '%-6s %-7s %10s %10s %12s\n' round build plain/s keyed/s keyed/plain
for r in $(seq "$ROUNDS"); do
    # Alternate which build goes first, so drift in the machine's load evens out.
    order=(before after)
    [ $((r % 2)) -eq 0 ] && order=(after before)
    for b in "${order[@]}"; do
        dir=KEYED_${b^^}
        read -r p k < <(measure "$b" "${!dir}/fulfilld" "$r")
        printf '%-6s %-7s %10s %10s %12s\n' "$r" "$b" "$p" "$k" \
            "$(awk -v p="$p" -v k="$k" 'BEGIN { printf "%.2f", k / p }')"
    done
done
log "loadgen lines:"
cat "$WORK/runs" >&2
