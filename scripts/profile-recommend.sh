#!/usr/bin/env bash
# profile-recommend.sh [BUILD_DIR] [OUT_DIR]: the recommend-new path under callgrind.
# Starts BUILD_DIR/gpuplan under callgrind, sends 1 cold + 200 memo-hit recommend bodies
# (llama-3-70b, tokens_b 15000..15200, one keep-alive connection), stops it, and prints the
# inclusive instructions per request of the main functions (the cold one included: its
# ~2.1M-instruction search adds ~10k to each figure). Needs valgrind and python3; ~1 minute.
# Callgrind counts instructions, not time: rep movsb counts per byte (http_send's copy of
# the 26 KB answer shows as ~27k), and cache misses between worker threads do not show.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$(mktemp -d /tmp/cgmemo-XXXXXX)}
mkdir -p "$out"; rm -f "$out"/port "$out"/cg.out "$out"/c.db*
cat >"$out/wl.json" <<'JSON'
{"model":{"preset":"llama-3-70b"},"task":"pretrain","tokens_b":15000,"seq_len":8192,"precision":"bf16","deadline_days":90,"budget_usd":5000000,"pricing":"cloud"}
JSON
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$build/gpuplan" serve --port 0 \
  --db "$out/c.db" --port-file "$out/port" --threads 4 --quiet 2>"$out/vlog" &
vpid=$!
for _ in $(seq 200); do [ -s "$out/port" ] && break; sleep 0.2; done
p=$(cat "$out/port")
for i in $(seq 0 200); do sed "s/15000/$((15000 + i))/" "$out/wl.json"; done >"$out/bodies.txt"
python3 - "$p" "$out/bodies.txt" <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for l in open(sys.argv[2]):
    c.request("POST", "/api/v1/recommend", body=l, headers={"Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    assert r.status == 200, r.status
print("last answer:", r.status, "search", r.getheader("X-Gpuplan-Search"))
PY
kill -INT "$vpid"; wait "$vpid" || true
callgrind_annotate --inclusive=yes "$out/cg.out" 2>/dev/null | sed 's/([ 0-9.]*%)//' |
  grep -E 'http_recommend|search_memo_recommend|engine_recommend_price|json_recommendation_text|plan_complete|cand_cost|engine_cloud_cost_usd|engine_vfmt|plan_from_cand|search_memo_get|json_parse|json_workload_decode|resp_cache|number_text|put_string' |
  grep -F "$root/" | grep -v '=>' | awk '{gsub(",","",$1); n=$2; sub(/^.*:/,"",n); if (!seen[n]++) printf "%9.0f per request  %s\n", $1/201, n}' | head -24
echo "callgrind file: $out/cg.out (callgrind_annotate --inclusive=yes / --tree=caller)"
