#!/usr/bin/env bash
# Order-to-packages pipeline benchmark (issue 7): a fresh fulfilld with background packing
# on, a 200-product catalog in two warehouses, then benches/pipeline.rs offers orders of
# 1-10 units at a fixed rate while 8 readers measure the API, and reports how fast orders
# reach `processing` (packed) end to end.
#
#   bash benches/pipeline.sh                       # 15,000 orders offered at 600/s
#   PIPELINE_ORDERS=30000 PIPELINE_RATE=800 bash benches/pipeline.sh
#   PIPELINE_BIN=/dir bash benches/pipeline.sh     # prebuilt fulfilld and pipeline in /dir
#   PIPELINE_AUTO_PACK=false bash benches/pipeline.sh  # baseline: same load, no packing
#
# Only 127.0.0.1 is used; the server stops when the script ends.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
ORDERS=${PIPELINE_ORDERS:-15000}
RATE=${PIPELINE_RATE:-600}

log() { printf '[pipeline] %s\n' "$*" >&2; }
die() { printf '[pipeline] error: %s\n' "$*" >&2; exit 1; }

source "$ROOT/benches/server.sh"
release_binaries pipeline "${PIPELINE_BIN:-}"
# PIPELINE_AUTO_PACK=false: the same load without packing, the baseline of the API latency.
echo "auto_pack = ${PIPELINE_AUTO_PACK:-true}" >"$WORK/config.toml"
DATA="$WORK/data"
start_fulfilld "$FULFILLD" pipeline "$DATA" --config "$WORK/config.toml"

log "server at $API; $ORDERS orders at $RATE/s"
"$BENCH" --base "$API" --cert "$DATA/tls/cert.pem" --api-key "$KEY" --orders "$ORDERS" --rate "$RATE"
echo "server resident memory: $(rss)"
