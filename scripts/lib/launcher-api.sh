# Calls to a running broker's HTTP API, sourced by ./tributary (not run); pause-fetching and reassign use them.
# Answers are JSON read with sed, so that curl suffices.

# Picks broker $1 (which must be running) or, without $1, the first running one: sets API_ID, API_URL and
# API_CLUSTER, the cluster id (as `start` recorded it, else as the broker says).
api_broker() {
  local id=${1:-}
  command -v curl >/dev/null 2>&1 || die "this command needs curl"
  if [ -n "$id" ]; then
    [ -f "$(conf_file "$id")" ] || die "no broker $id in $DATA"
    [ -n "$(running_pid "$id")" ] || die "broker $id is not running"
  else
    for id in $(known_brokers) ""; do [ -n "$id" ] && [ -n "$(running_pid "$id")" ] && break; done
    [ -n "$id" ] || die "no running broker in $DATA (start them with '$PROG start')"
  fi
  local port; port=$(conf_get "$id" PORT)
  API_ID=$id; API_URL="http://$(host_of "$id"):${port:-$(port_of "$id")}"
  API_CLUSTER=$(cluster_get CLUSTER_ID)
  if [ -z "$API_CLUSTER" ] && api_call GET /v3/clusters; then
    API_CLUSTER=$(printf '%s' "$API_BODY" | sed -n 's/.*"cluster_id" *: *"\([^"]*\)".*/\1/p' | head -1)
  fi
}
# One call: api_call METHOD PATH [JSON BODY] sets API_CODE and API_BODY; fails (API_CODE 000) when nothing answered within
# API_TIMEOUT_S (5). As the admin when `start --secure` made a key, since its calls need one.
api_call() {
  local out auth=() data=()
  [ ! -f "$DATA/admin-api-key" ] || auth=(-H "Authorization: Bearer $(cat "$DATA/admin-api-key")")
  [ -z "${3:-}" ] || data=(-H 'Content-Type: application/json' --data "$3")
  API_CODE=000; API_BODY=""
  out=$(curl -s --max-time "${API_TIMEOUT_S:-5}" -w '\n%{http_code}' -X "$1" "${auth[@]}" "${data[@]}" "$API_URL$2") ||
    return 1
  API_CODE=${out##*$'\n'}; API_BODY=${out%$'\n'*}
}
# The error answer's "message" (docs/api.md: {"error_code":42206,"message":"..."}), else the body as it came.
api_message() {
  local m; m=$(printf '%s' "$API_BODY" | sed -n 's/.*"message":"\(\([^"\\]\|\\.\)*\)".*/\1/p' | sed 's/\\"/"/g')
  printf '%s' "${m:-$API_BODY}"
}
