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

log() { printf '[station] %s\n' "$*" >&2; }
die() { printf '[station] error: %s\n' "$*" >&2; exit 1; }

source "$ROOT/benches/server.sh"
release_binaries station "${STATION_BIN:-}"
start_quiet_fulfilld station
log "server at $API"
"$BENCH" --base "$API" --cert "$DATA/tls/cert.pem" --api-key "$KEY" \
    --packages "${STATION_PACKAGES:-5}"
