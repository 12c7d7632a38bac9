#!/usr/bin/env bash
# Catalog and order benchmarks through the real API (issues 3 and 4): seeds products,
# inventory and orders with benches/loadgen.rs, then measures the lookups, lists,
# durable order creation and bulk import, and the server's resident memory.
#
#   bash benches/api_load.sh                   # the issues' sizes (long: 100k products, 1M orders)
#   API_LOAD_SCALE=quick bash benches/api_load.sh   # 1/20 of them, a few minutes
#   API_LOAD_BIN=/dir bash benches/api_load.sh      # prebuilt fulfilld and loadgen in /dir
#                                                   # (to compare two builds back to back)
#   API_LOAD_ORDERS=200000 ...                      # override the stored-order count
#   API_LOAD_CACHE_MB=64 ...                        # the server's sled cache_mb (default 16)
#   API_LOAD_AUTO_PACK=true ...                     # background packing on (default off here)
#
# Only 127.0.0.1 is used; the servers stop when the script ends.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SCALE=${API_LOAD_SCALE:-full}
SECS=${API_LOAD_SECS:-10}
case "$SCALE" in
    full) PRODUCTS=100000; ORDERS=1000000; CREATE=20000; BULK=10000 ;;
    quick) PRODUCTS=5000; ORDERS=50000; CREATE=2000; BULK=10000 ;;
    *) echo "API_LOAD_SCALE must be full or quick" >&2; exit 2 ;;
esac

log() { printf '[api-load] %s\n' "$*" >&2; }
die() { printf '[api-load] error: %s\n' "$*" >&2; exit 1; }

ORDERS=${API_LOAD_ORDERS:-$ORDERS}

source "$ROOT/benches/server.sh"
release_binaries loadgen "${API_LOAD_BIN:-}"
# The order API is measured without background packing (benches/pipeline.sh measures
# that); API_LOAD_AUTO_PACK=true turns it on.
echo "auto_pack = ${API_LOAD_AUTO_PACK:-false}" >"$WORK/config.toml"
if [ -n "${API_LOAD_CACHE_MB:-}" ]; then
    echo "cache_mb = $API_LOAD_CACHE_MB" >>"$WORK/config.toml"
fi
DATA="$WORK/data"
start_fulfilld "$FULFILLD" api-load "$DATA" --config "$WORK/config.toml"
LG=("$BENCH" --base "$API" --cert "$DATA/tls/cert.pem" --api-key "$KEY")

log "scale=$SCALE: $PRODUCTS products, $ORDERS orders; server at $API"
"${LG[@]}" --concurrency 64 seed-catalog --products "$PRODUCTS" --warehouses 2
"${LG[@]}" --concurrency 32 read-catalog --products "$PRODUCTS" --secs "$SECS"
"${LG[@]}" --concurrency 64 create-orders --n "$CREATE" --skus "$PRODUCTS"
"${LG[@]}" --concurrency 1 bulk-orders --n "$BULK" --batch "$BULK" --skus "$PRODUCTS" --prefix CSV
log "seeding $ORDERS orders by bulk import"
"${LG[@]}" --concurrency 1 bulk-orders --n "$ORDERS" --batch 10000 --skus "$PRODUCTS"
echo "server resident memory with $((ORDERS + CREATE + BULK)) orders: $(rss)"
"${LG[@]}" --concurrency 32 read-orders --n "$ORDERS" --secs "$SECS"
echo "server resident memory after the reads: $(rss)"
