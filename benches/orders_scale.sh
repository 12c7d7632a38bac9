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
#   bash benches/orders_scale.sh restart DIR [ROUNDS]       # DIR itself: time from start to the first
#                                                          # 200 on /health with the index snapshot,
#                                                          # without it, after a kill -9; snapshot
#                                                          # size and write time; RSS. ORDERS_BASE_BIN
#                                                          # =/dir adds an older build's start first
#   bash benches/orders_scale.sh scrape DIR SECS ROUNDS     # DIR itself: product GETs without, then
#                                                          # with, a /metrics scraper at 1 s
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

# Starts BIN on DIR (logs in $WORK/out-NAME, err-NAME) and sets READY to the seconds from
# its start to the first 200 on /health; leaves it running as $PID.
time_to_ready() {
    local bin=$1 data=$2 name=$3 t0 t1
    t0=$(date +%s.%N)
    "$bin" serve --config "$WORK/config.toml" --data-dir "$data" --listen 127.0.0.1:0 \
        --packing-listen 127.0.0.1:0 >"$WORK/out-$name" 2>"$WORK/err-$name" &
    PID=$!
    until grep -q '^fulfilld ready:' "$WORK/out-$name" 2>/dev/null; do
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/err-$name" >&2; die "server exited early"; }
        sleep 0.01
    done
    API=$(sed -nE 's/^fulfilld ready: fulfillment=(https:\/\/[^ ]+).*/\1/p' "$WORK/out-$name")
    until curl -sf --cacert "$data/tls/cert.pem" "$API/health" >/dev/null; do sleep 0.01; done
    t1=$(date +%s.%N)
    READY=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
}
# How the running server loaded its order index, from /metrics.
index_source() {
    curl -sf --cacert "$dir/tls/cert.pem" "$API/metrics" | grep '^fulfilld_index_load_info' | grep ' 1$' \
        | sed -E 's/.*reason="([^"]*)",source="([^"]*)".*/\2 (\1)/'
}

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
restart)
    dir=$2 rounds=${3:-2}
    config
    for r in $(seq "$rounds"); do
        if [ -n "${ORDERS_BASE_BIN:-}" ]; then
            rm -f "$dir/index-snapshot"
            time_to_ready "$ORDERS_BASE_BIN/fulfilld" "$dir" "base$r"
            echo "round $r: older build, ready after $READY s; RSS $(rss)"
            stop_fulfilld
        fi
        rm -f "$dir/index-snapshot"
        time_to_ready "$FULFILLD" "$dir" "rebuild$r"
        echo "round $r: no snapshot (rebuild), ready after $READY s; RSS $(rss)"
        t0=$(date +%s.%N)
        stop_fulfilld
        t1=$(date +%s.%N)
        written=$(sed -nE 's/.*order index snapshot written.*bytes=([0-9]+).*ms=([0-9]+).*/\1 bytes in \2 ms/p' "$WORK/err-rebuild$r")
        echo "round $r: clean stop took $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f s", b - a}'), snapshot ${written:-NOT written}"
        time_to_ready "$FULFILLD" "$dir" "snap$r"
        echo "round $r: from the snapshot, ready after $READY s; RSS $(rss); $(index_source)"
        kill -9 "$PID"
        wait "$PID" 2>/dev/null || true
        PID=""
        time_to_ready "$FULFILLD" "$dir" "kill$r"
        echo "round $r: after a kill -9, ready after $READY s; RSS $(rss); $(index_source)"
        stop_fulfilld
    done
    ;;
scrape)
    dir=$2 secs=$3 rounds=$4
    config
    start_fulfilld "$FULFILLD" scrape "$dir" --config "$WORK/config.toml"
    LG=("$LOADGEN" --base "$API" --cert "$dir/tls/cert.pem" --api-key "$KEY")
    "${LG[@]}" --concurrency 32 scrape-cost --products "$(products_of "$dir")" --secs "$secs" --rounds "$rounds"
    ;;
*)
    die "usage: orders_scale.sh seed DIR PRODUCTS ORDERS | create DIR CACHE_MB N | read DIR CACHE_MB | backup DIR N | restart DIR [ROUNDS] | scrape DIR SECS ROUNDS"
    ;;
esac
