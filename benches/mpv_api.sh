#!/usr/bin/env bash
# MPV through the API (issue 20's latency target): a fresh release fulfilld, then
# benches/mpv_api.rs posts the 120 MPV instances one at a time to the packing listener's
# POST /api/v1/optimize at default options and reports the packages and, per instance, the
# server's summary.solve_ms and the client's time (median, p95, max).
#
#   bash benches/mpv_api.sh
#   MPV_API_ARGS="--classes 1,2,3 --sizes 200" bash benches/mpv_api.sh
#   MPV_API_BIN=/dir bash benches/mpv_api.sh    # prebuilt fulfilld and mpv_api in /dir
#
# Only 127.0.0.1 is used; the server stops when the script ends.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

log() { printf '[mpv-api] %s\n' "$*" >&2; }
die() { printf '[mpv-api] error: %s\n' "$*" >&2; exit 1; }

source "$ROOT/benches/server.sh"
release_binaries mpv_api "${MPV_API_BIN:-}"
start_quiet_fulfilld mpv
[ -n "$PACKING" ] || die "no packing listener"
log "packing listener at $PACKING"
# shellcheck disable=SC2086
"$BENCH" --base "$PACKING" --cert "$DATA/tls/cert.pem" --api-key "$KEY" ${MPV_API_ARGS:-}
