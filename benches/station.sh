#!/usr/bin/env bash
# Packer station benchmark (issue 18): a fresh release fulfilld, orders of 200 units packed
# into one carton each, then benches/station.rs steps through every package (instructions,
# every step's diagram, the packed box) and reports the server's time from /metrics.
#
#   bash benches/station.sh                     # 5 packages
#   STATION_PACKAGES=10 bash benches/station.sh
#   STATION_BIN=/dir bash benches/station.sh    # prebuilt fulfilld and station in /dir
#
# Only 127.0.0.1 is used; the server stops when the script ends.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

log() { printf '[station] %s\n' "$*" >&2; }
die() { printf '[station] error: %s\n' "$*" >&2; exit 1; }

if [ -n "${STATION_BIN:-}" ]; then
    FULFILLD="$STATION_BIN/fulfilld"
    BENCH="$STATION_BIN/station"
else
    log "building release binaries (nice -n 10)"
    nice -n 10 cargo build --release --bin fulfilld --example station
    FULFILLD="$TARGET_DIR/release/fulfilld"
    BENCH="$TARGET_DIR/release/examples/station"
fi

source "$ROOT/benches/server.sh"
DATA="$WORK/data"
echo "auto_pack = false" >"$WORK/config.toml"
start_fulfilld "$FULFILLD" station "$DATA" --config "$WORK/config.toml"
log "server at $API"
"$BENCH" --base "$API" --cert "$DATA/tls/cert.pem" --api-key "$KEY" \
    --packages "${STATION_PACKAGES:-5}"
