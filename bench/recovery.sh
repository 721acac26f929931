#!/usr/bin/env bash
# Recovery after a crash with ITEMS items (issue 17): a server on a data directory, a table
# with one GSI (ALL) and an LSI, ITEMS items of ~200 bytes written by bench/loadgen's preload
# (BatchWriteItem), then kill -9 right after the last acknowledged write, and a restart on
# the same directory. Reports the WAL and SST sizes at the kill, the time from exec to the
# first answered ListTables, the server's own "ready N ms after main()", and checks the
# table's ItemCount and a Select COUNT Scan of the table and of the GSI. The same after a
# clean stop, for reference. Each server is this script's own and is stopped by PID.
#   bench/recovery.sh [ITEMS] [DIR] [DURABILITY]   # default 1000000, /var/tmp, process
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/server_lib.sh
items=${1:-1000000}
base=${2:-/var/tmp}
durability=${3:-process}
server=${DDB_SERVER:-build/ddb-server}
loadgen=${DDB_LOADGEN:-build/loadgen}
work=$(mktemp -d "$base/ddb-recovery-bench.XXXXXX")
SERVER_PID=""
trap 'stop_server; rm -rf "$work"' EXIT
dir="$work/data"

echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))," \
  "$(free -g | awk '/Mem:/{print $2}') GB RAM; data dir on $(df -P "$base" | awk 'NR==2{print $1}')" \
  "($(findmnt -no FSTYPE -T "$base")); load average $(cut -d' ' -f1-3 /proc/loadavg);" \
  "--durability $durability; $items items"

post() {  # post <port> <target> <json>: the response body
  curl -s -X POST "http://127.0.0.1:$1/" -H "X-Amz-Target: DynamoDB_20120810.$2" \
    -H 'Content-Type: application/x-amz-json-1.0' \
    -H 'Authorization: AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00' \
    -d "$3"
}

# Starts the server on $dir; sets PORT, FIRST (ms from exec to the first answer) and READY
# (the server's own figure). Not in a subshell: SERVER_PID must reach stop_server.
start() {
  local port log t0 t1
  port=$(free_port)
  log="$work/server-$1.log"
  t0=$(date +%s%N)
  "$server" --port "$port" --data-dir "$dir" --durability "$durability" >"$log" 2>&1 &
  SERVER_PID=$!
  until post "$port" ListTables '{}' 2>/dev/null | grep -q TableNames; do
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.001
  done
  t1=$(date +%s%N)
  PORT=$port
  FIRST=$(((t1 - t0) / 1000000))
  READY=$(grep -o 'ready [0-9.]* ms' "$log" | grep -o '[0-9.]*')
}

count() {  # count <port> [index]: Select COUNT over every page
  local total=0 start="" body page
  while :; do
    body="{\"TableName\":\"bench\",\"Select\":\"COUNT\"${2:+,\"IndexName\":\"$2\"}${start:+,\"ExclusiveStartKey\":$start}}"
    page=$(post "$1" Scan "$body")
    total=$((total + $(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["Count"])' "$page")))
    start=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(json.dumps(d["LastEvaluatedKey"]) if "LastEvaluatedKey" in d else "")' "$page")
    [[ -z $start ]] && break
  done
  echo "$total"
}

check() {  # check <port>
  local described
  described=$(post "$1" DescribeTable '{"TableName":"bench"}' |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Table"]["ItemCount"])')
  echo "  ItemCount $described; Scan COUNT table $(count "$1"), gsi1 $(count "$1" gsi1)"
}

start fresh
t0=$(date +%s%N)
"$loadgen" --port "$PORT" --workload none --preload "$items" --gsis 1 --lsi --item-size 200 \
  --no-progress --seed 1 >/dev/null
t1=$(date +%s%N)
echo "preload: $items items in $(((t1 - t0) / 1000000)) ms"
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
# Bytes written (apparent size: RocksDB preallocates WAL files).
wal=$(find "$dir" -name '*.log' -printf '%s\n' | awk '{s+=$1} END{printf "%.1f", s/1048576}')
sst=$(find "$dir" -name '*.sst' -printf '%s\n' | awk '{s+=$1} END{printf "%.1f", s/1048576}')
echo "at the kill: WAL $wal MB, SST files $sst MB"

start after-kill
echo "restart after kill -9: first answer $FIRST ms after exec (server: ready $READY ms after main())"
check "$PORT"
stop_server
start after-stop
echo "restart after a clean stop: first answer $FIRST ms after exec (ready $READY ms)"
check "$PORT"
