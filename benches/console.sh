#!/usr/bin/env bash
# Issue 17: the console on a large database. Serves a copy of a seeded data directory
# (benches/orders_scale.sh seed) with a release build, logs a console user in, and
# measures: the compressed size of everything the console loads; the time to a usable
# page in headless Chromium (Navigation Timing: the `console-rendered` mark, set once a
# page has drawn its data, from the navigation's start) for the orders list, a search,
# a status filter, an order's detail and the dashboard; and Lighthouse accessibility and
# best-practices scores of every page (desktop preset, Debian chromium).
#
#   CONSOLE_DATA=<seeded dir> LH_DIR=<dir> bash benches/console.sh [ROUNDS]
#
# LH_DIR holds npm `lighthouse` (mkdir LH_DIR && cd LH_DIR && npm install lighthouse);
# it also brings puppeteer-core, which drives the timing runs. CONSOLE_BIN=<dir holding
# fulfilld> uses a prebuilt binary, else a release build is made here. The copy of the
# data directory lives in a temp dir (removed at exit): it needs the seed's size free.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '[console] %s\n' "$*" >&2; }
die() { printf '[console] error: %s\n' "$*" >&2; exit 1; }
ROUNDS=${1:-5}
[ -d "${CONSOLE_DATA:-}/db" ] || die "set CONSOLE_DATA to a seeded data directory"
[ -d "${LH_DIR:-}/node_modules/lighthouse" ] || die "set LH_DIR to a directory with npm lighthouse"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
source "$ROOT/benches/server.sh"

if [ -n "${CONSOLE_BIN:-}" ]; then
    FULFILLD="$CONSOLE_BIN/fulfilld"
else
    log "building the release binary (nice -n 10)"
    (cd "$ROOT" && nice -n 10 cargo build --release --bin fulfilld)
    FULFILLD="${CARGO_TARGET_DIR:-$ROOT/target}/release/fulfilld"
fi

log "copying $CONSOLE_DATA ($(du -sh "$CONSOLE_DATA" | cut -f1))"
cp -a "$CONSOLE_DATA" "$WORK/data"
echo "auto_pack = false" >"$WORK/config.toml"
"$FULFILLD" serve --config "$WORK/config.toml" --data-dir "$WORK/data" --listen 127.0.0.1:0 \
    --packing-listen 127.0.0.1:0 >"$WORK/out" 2>"$WORK/err" &
PID=$!
until grep -q '^fulfilld ready:' "$WORK/out" 2>/dev/null; do
    kill -0 "$PID" 2>/dev/null || { cat "$WORK/err" >&2; die "server exited early"; }
    sleep 0.1
done
API=$(sed -nE 's/^fulfilld ready: fulfillment=(https:\/\/[^ ]+).*/\1/p' "$WORK/out")
CA="$WORK/data/tls/cert.pem"
until curl -sf --cacert "$CA" "$API/health" >/dev/null; do sleep 0.1; done
log "serving at $API"

PASSWORD=console-bench-password-0123
printf '%s' "$PASSWORD" | "$FULFILLD" users create --name console-bench --role admin \
    --password-stdin --data-dir "$WORK/data" >/dev/null
COOKIE=$(curl -s --cacert "$CA" -D - -o /dev/null --data-urlencode username=console-bench \
    --data-urlencode "password=$PASSWORD" "$API/console/login" \
    | sed -nE 's/^[Ss]et-[Cc]ookie: ([^;]*);.*/\1/p' | head -1)
[ -n "$COOKIE" ] || die "login failed"
api() { curl -sf --cacert "$CA" -H "Cookie: $COOKIE" "$API$1"; }
json() { python3 -c "import json,sys; v=json.load(sys.stdin); print($1)"; }
TOTAL=$(api '/api/orders?limit=1' | json 'v["pagination"]["total"]')
ORDER=$(api "/api/orders?limit=1&offset=$((TOTAL / 2))" | json 'v["orders"][0]["id"]')
EXTERNAL=$(api "/api/orders/$ORDER" | json 'v["externalId"]')
INVENTORY=$(api '/api/inventory?limit=1' | json 'v["inventory"][0]["id"]')
WAREHOUSE=$(api '/api/warehouses?limit=1' | json 'v["warehouses"][0]["id"]')
echo "database: $TOTAL orders; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# Every file the console loads: the shell, its stylesheet and the module graph of app.js
# (static and dynamic imports), each as identity, gzip and Brotli.
echo "assets (bytes on the wire: identity / gzip / br):"
files="app.css js/app.js"
seen=""
while [ -n "$files" ]; do
    set -- $files
    f=$1
    shift
    files="$*"
    case " $seen " in *" $f "*) continue ;; esac
    seen="$seen $f"
    for m in $(api "/console/assets/$f" | grep -oE "'\./[a-z_]+\.js'" | tr -d "'" | sed 's|^\./|js/|' | sort -u); do
        files="$files $m"
    done
done
sum_i=0 sum_g=0 sum_b=0
for f in index.html $seen; do
    path="/console/assets/$f"
    [ "$f" = index.html ] && path="/console/"
    size() { curl -s --cacert "$CA" -H "Accept-Encoding: $1" -o /dev/null -w '%{size_download}' "$API$path"; }
    i=$(size identity) g=$(size gzip) b=$(size br)
    sum_i=$((sum_i + i)) sum_g=$((sum_g + g)) sum_b=$((sum_b + b))
    printf '  %-18s %7d %7d %7d\n' "$f" "$i" "$g" "$b"
done
printf '  %-18s %7d %7d %7d\n' "all" "$sum_i" "$sum_g" "$sum_b"

echo "time to a usable page (ms from navigation start to console-rendered; $ROUNDS rounds, round 1 cold):"
LH_DIR="$LH_DIR" CHROMIUM="$CHROMIUM" node "$ROOT/benches/console_timing.mjs" "$API" "$COOKIE" "$ROUNDS" \
    "/console/orders" "/console/orders?q=$EXTERNAL" "/console/orders?status=pending" \
    "/console/orders/$ORDER" "/console/" >"$WORK/timing.jsonl"
python3 - "$WORK/timing.jsonl" <<'EOF'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
for path in dict.fromkeys(r["path"] for r in rows):
    rs = [r for r in rows if r["path"] == path]
    warm = [r["renderedMs"] for r in rs[1:]] or [rs[0]["renderedMs"]]
    print(f"  {path[:60]:60} cold {rs[0]['renderedMs']:5} ms ({rs[0]['transferBytes']} B, {rs[0]['requests']} requests);"
          f" warm median {statistics.median(warm):5.0f} ms, max {max(warm)} ms")
EOF

echo "Lighthouse $(node "$LH_DIR/node_modules/lighthouse/cli/index.js" --version) (desktop preset): accessibility / best-practices"
pages=(/console/login /console/ /console/orders "/console/orders/$ORDER" /console/inventory
    "/console/inventory/$INVENTORY" /console/products /console/warehouses
    "/console/warehouses/$WAREHOUSE" /console/webhooks /console/clients /console/users /console/reference)
n=0
for p in "${pages[@]}"; do
    n=$((n + 1))
    headers="{\"Cookie\": \"$COOKIE\"}"
    [ "$p" = /console/login ] && headers="{}"
    CHROME_PATH="$CHROMIUM" nice -n 10 node "$LH_DIR/node_modules/lighthouse/cli/index.js" "$API$p" --quiet \
        --preset=desktop --only-categories=accessibility,best-practices \
        --chrome-flags="--headless --no-sandbox --ignore-certificate-errors" \
        --extra-headers="$headers" --output=json --output-path="$WORK/lh-$n.json" \
        || { echo "  $p: lighthouse failed"; continue; }
    python3 - "$WORK/lh-$n.json" "$p" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["categories"]
low = [a["id"] for cat in c.values() for ref in cat["auditRefs"] if ref["weight"] > 0
       for a in [r["audits"][ref["id"]]] if a["score"] is not None and a["score"] < 1]
print(f"  {sys.argv[2][:60]:60} {round(c['accessibility']['score'] * 100):3} / {round(c['best-practices']['score'] * 100):3}"
      + (f"  (failed: {', '.join(low)})" if low else ""))
EOF
done
