# bench/server_lib.sh: starting and stopping one benchmark server, shared by the bench
# scripts (sourced). The caller sets SERVER_PID when it starts a server; messages name the
# calling script.

# free_port: a free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for <log> <regex> <seconds>: until the server's log matches, or it died, or time is up.
wait_for() {
  local log="$1" pattern="$2" deadline=$((SECONDS + $3))
  while ((SECONDS < deadline)); do
    grep -qE "$pattern" "$log" 2>/dev/null && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  echo "${0##*/}: server did not start; its output:" >&2
  cat "$log" >&2
  return 1
}

# stop_server [seconds]: SIGTERM, then SIGKILL (said so) if it has not exited after the
# given seconds (default 10); clears SERVER_PID.
stop_server() {
  local limit="${1:-10}"
  if [[ -n "${SERVER_PID:-}" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq $((limit * 10))); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "${0##*/}: the server did not stop within ${limit} s of SIGTERM; killing it" >&2
      kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
