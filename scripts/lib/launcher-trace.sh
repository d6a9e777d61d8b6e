# `trace TOPIC`, sourced by ./tributary (not run).

# Prints one traced record's steps: "+0.4 ms  appended on leader 1 at offset 17 (its LEO now 18)". The answer is
# the JSON of POST /dashboard/actions/topics/TOPIC/trace (docs/api.md), read here with sed so that curl suffices.
cmd_trace() {
  local topic="" acks=all partition=0 id="" usage="usage: $PROG trace TOPIC [--acks all|1|0] [--partition P] [--broker ID]"
  while [ $# -gt 0 ]; do
    case "$1" in
      --acks) [ $# -ge 2 ] || die "$usage"; acks=$2; shift 2;;
      --partition) [ $# -ge 2 ] || die "$usage"; partition=$2; shift 2;;
      --broker) [ $# -ge 2 ] || die "$usage"; id=$2; shift 2;;
      -*) die "$usage";;
      *) [ -z "$topic" ] || die "$usage"; topic=$1; shift;;
    esac
  done
  [ -n "$topic" ] || die "$usage"
  case "$acks" in all|-1|0|1) ;; *) die "--acks must be all, 1 or 0, not '$acks'";; esac
  [[ "$partition" =~ ^[0-9]+$ ]] || die "--partition must be a partition number, not '$partition'"
  command -v curl >/dev/null 2>&1 || die "trace needs curl"
  if [ -z "$id" ]; then
    for id in $(known_brokers) ""; do [ -n "$id" ] && [ -n "$(running_pid "$id")" ] && break; done
    [ -n "$id" ] || die "no running broker in $DATA (start them with '$PROG start')"
  fi
  local port host; port=$(conf_get "$id" PORT); port=${port:-$(port_of "$id")}; host=$(host_of "$id")
  local auth=() token_file="$DATA/admin-api-key"
  [ ! -f "$token_file" ] || auth=(-H "Authorization: Bearer $(cat "$token_file")")
  local out code body
  out=$(curl -s --max-time 20 -w '\n%{http_code}' -X POST "${auth[@]}" -H 'Content-Type: application/json' \
    --data "{\"acks\":\"$acks\",\"partition\":$partition}" \
    "http://$host:$port/dashboard/actions/topics/$(printf '%s' "$topic" | sed 's/%/%25/g; s/ /%20/g')/trace") ||
    die "broker $id ($host:$port) did not answer"
  code=${out##*$'\n'}; body=${out%$'\n'*}
  if [ "$code" != 200 ]; then
    local message
    message=$(printf '%s' "$body" | sed -n 's/.*"message":"\(\([^"\\]\|\\.\)*\)".*/\1/p')
    die "trace of $topic-$partition failed (HTTP $code): ${message:-$body}"
  fi
  field() { printf '%s' "$body" | sed -n "s/.*\"$1\":\($2\).*/\1/p" | head -1; }
  echo "$topic-$partition offset $(field offset '[0-9-]*') · leader $(field leader_id '[0-9-]*')" \
    "(epoch $(field leader_epoch '[0-9-]*')) · ISR $(field isr '\[[0-9,]*\]') · acks=$(field acks '"[^"]*"' | tr -d '"')," \
    "the answer waited for: $(field waited_for '"[^"]*"' | tr -d '"')"
  printf '%s\n' "$body" | sed 's/{"step":/\n{"step":/g' | tail -n +2 | while IFS= read -r step; do
    local at text
    at=$(printf '%s' "$step" | sed -n 's/.*"at_ms":\([0-9.]*\|null\).*/\1/p')
    text=$(printf '%s' "$step" | sed -n 's/.*"text":"\(\([^"\\]\|\\.\)*\)".*/\1/p' | sed 's/\\"/"/g')
    if [ "$at" = null ] || [ -z "$at" ]; then printf '%10s  %s\n' "no time" "$text"; else printf '%10s  %s\n' "+$at ms" "$text"; fi
  done
  [ "$(field complete 'true\|false')" = true ] || echo "(not every step happened within the trace's wait)"
}
