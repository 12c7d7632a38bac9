#!/usr/bin/env bash
# Issue 4 at scale on reusable data directories: seed once through the API, then serve a
# copy (creation) or the directory itself (reads, memory) with a chosen sled cache, so two
# builds can be compared back to back on the same data. Prebuilt binaries: ORDERS_BIN=/dir
# holding `fulfilld` and `loadgen` (built with `cargo build --release --bin fulfilld
# --example loadgen`).
#
#   bash benches/orders_scale.sh seed DIR PRODUCTS ORDERS   # new data dir: catalog + bulk orders
#   bash benches/orders_scale.sh create DIR CACHE_MB N      # copy of DIR: N orders, 64 clients
#   bash benches/orders_scale.sh read DIR CACHE_MB          # DIR itself: RSS, 32-client reads, RSS
#   bash benches/orders_scale.sh backup DIR N               # copy of DIR: backup, restore and check
#                                                          # times and size; N orders created
#                                                          # without, then during, back-to-back backups
#
# A newer build may migrate DIR's schema on `read`; keep one directory per build then.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '[orders-scale] %s\n' "$*" >&2; }
die() { printf '[orders-scale] error: %s\n' "$*" >&2; exit 1; }
[ -n "${ORDERS_BIN:-}" ] || die "set ORDERS_BIN to a directory holding fulfilld and loadgen"
FULFILLD="$ORDERS_BIN/fulfilld"
LOADGEN="$ORDERS_BIN/loadgen"
source "$ROOT/benches/server.sh"

config() {
    echo "auto_pack = false" >"$WORK/config.toml"
    [ -z "${1:-}" ] || echo "cache_mb = $1" >>"$WORK/config.toml"
}
cpu_secs() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$PID/stat"; }
products_of() { cat "$1/bench-products"; }

mode=${1:-}
case "$mode" in
seed)
    dir=$2 products=$3 orders=$4
    [ ! -e "$dir" ] || die "$dir exists"
    config
    start_fulfilld "$FULFILLD" seed "$dir" --config "$WORK/config.toml"
    LG=("$LOADGEN" --base "$API" --cert "$dir/tls/cert.pem" --api-key "$KEY")
    "${LG[@]}" --concurrency 64 seed-catalog --products "$products" --warehouses 2
    if [ "$orders" -gt 0 ]; then
        "${LG[@]}" --concurrency 1 bulk-orders --n "$orders" --batch 10000 --skus "$products"
    fi
    stop_fulfilld
    echo "$products" >"$dir/bench-products"
    echo "$orders" >"$dir/bench-orders"
    log "seeded $dir: $products products, $orders orders ($(du -sh "$dir" | cut -f1))"
    ;;
create)
    src=$2 cache=$3 n=$4
    cp -a "$src" "$WORK/data"
    config "$cache"
    start_fulfilld "$FULFILLD" create "$WORK/data" --config "$WORK/config.toml"
    LG=("$LOADGEN" --base "$API" --cert "$WORK/data/tls/cert.pem" --api-key "$KEY")
    before=$(cpu_secs)
    "${LG[@]}" --concurrency 64 create-orders --n "$n" --skus "$(products_of "$src")"
    echo "server CPU for $n orders: $(awk -v a="$before" -v b="$(cpu_secs)" 'BEGIN {printf "%.2f s", b - a}'); RSS $(rss)"
    ;;
read)
    dir=$2 cache=$3
    config "$cache"
    start_fulfilld "$FULFILLD" read "$dir" --config "$WORK/config.toml"
    LG=("$LOADGEN" --base "$API" --cert "$dir/tls/cert.pem" --api-key "$KEY")
    echo "RSS when ready: $(rss)"
    "${LG[@]}" --concurrency 32 read-orders --n "$(cat "$dir/bench-orders")" --secs "${ORDERS_SECS:-8}"
    echo "RSS after the reads: $(rss)"
    ;;
backup)
    src=$2 n=$3
    cp -a "$src" "$WORK/data"
    config
    start_fulfilld "$FULFILLD" backup "$WORK/data" --config "$WORK/config.toml"
    LG=("$LOADGEN" --base "$API" --cert "$WORK/data/tls/cert.pem" --api-key "$KEY")
    t0=$(date +%s.%N)
    "$FULFILLD" backup --data-dir "$WORK/data" --out "$WORK/idle.backup" >/dev/null
    t1=$(date +%s.%N)
    echo "online backup, idle server: $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f s", b - a}'), $(du -m "$WORK/idle.backup" | cut -f1) MB (database $(du -sm "$WORK/data/db" | cut -f1) MB)"
    echo "creation without a backup:"
    "${LG[@]}" --concurrency 64 create-orders --n "$n" --skus "$(products_of "$src")" --prefix IDLE1
    : >"$WORK/backups-done"
    (while [ ! -e "$WORK/stop-backups" ]; do
        "$FULFILLD" backup --data-dir "$WORK/data" --out "$WORK/busy.backup" >/dev/null && echo >>"$WORK/backups-done"
    done) &
    looper=$!
    echo "creation while back-to-back backups run:"
    "${LG[@]}" --concurrency 64 create-orders --n "$n" --skus "$(products_of "$src")" --prefix BUSY
    touch "$WORK/stop-backups"
    wait "$looper"
    echo "backups completed during that run: $(wc -l <"$WORK/backups-done")"
    echo "creation without a backup, again:"
    "${LG[@]}" --concurrency 64 create-orders --n "$n" --skus "$(products_of "$src")" --prefix IDLE2
    stop_fulfilld
    t0=$(date +%s.%N)
    "$FULFILLD" restore --from "$WORK/idle.backup" --data-dir "$WORK/restored" >/dev/null
    t1=$(date +%s.%N)
    "$FULFILLD" check --data-dir "$WORK/restored" >"$WORK/check.json"
    t2=$(date +%s.%N)
    echo "restore: $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f s", b - a}'); check of the restored copy: $(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.1f s", b - a}'), ok=$(grep -c '"ok": true' "$WORK/check.json")"
    ;;
*)
    die "usage: orders_scale.sh seed DIR PRODUCTS ORDERS | create DIR CACHE_MB N | read DIR CACHE_MB | backup DIR N"
    ;;
esac
