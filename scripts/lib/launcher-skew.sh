# `skew ID [(+|-)DURATION]`, sourced by ./tributary (not run): set (or show) the offset of one broker's wall
# clock through the dashboard's fault action POST /dashboard/actions/brokers/ID/clock (docs/api.md), as on a
# host whose clock is wrong or is stepped. Its monotonic clock is untouched, as a real host's is.

SKEW_USAGE="usage: $PROG skew ID [(+|-)DURATION]   DURATION like 5m, 90s, 1h, 250ms, or 0 (clock right again)"

# Prints the milliseconds of a DURATION such as +5m, -90s, 1h, +250ms or 0; fails on anything else.
skew_ms() {
  local sign number unit
  [[ "$1" =~ ^([+-]?)([0-9]{1,9})(ms|s|m|h)?$ ]] || return 1
  sign=${BASH_REMATCH[1]}; number=$((10#${BASH_REMATCH[2]})); unit=${BASH_REMATCH[3]}
  [ -n "$unit" ] || [ "$number" = 0 ] || return 1 # a bare number other than 0 is ambiguous
  case "$unit" in
    h) number=$((number * 3600000));;
    m) number=$((number * 60000));;
    s) number=$((number * 1000));;
  esac
  [ "$number" -le 86400000 ] || return 1 # the broker takes at most one day either way
  if [ "$sign" = - ] && [ "$number" != 0 ]; then echo "-$number"; else echo "$number"; fi
}

cmd_skew() {
  local id=${1:-} duration=${2:-} ms field
  [ $# -le 2 ] && [[ "$id" =~ ^[1-9]$ ]] || die "$SKEW_USAGE"
  if [ -n "$duration" ]; then
    ms=$(skew_ms "$duration") || die "DURATION must be like +5m, -90s, +1h, +250ms or 0, at most one day, not '$duration'"
  fi
  api_broker "$id"
  if [ -z "$duration" ]; then
    api_call GET "/dashboard/actions/brokers/$id/clock" || die "broker $id ($API_URL) did not answer"
    [ "$API_CODE" = 200 ] || die "reading broker $id's clock failed (HTTP $API_CODE): $(api_message)"
    field=$(printf '%s' "$API_BODY" | sed -n 's/.*"skew_ms":\(-\{0,1\}[0-9]*\).*/\1/p')
    note "broker $id: wall clock skewed by ${field:-?} ms"
    return
  fi
  api_call POST "/dashboard/actions/brokers/$id/clock" "{\"skew_ms\":$ms}" || die "broker $id ($API_URL) did not answer"
  [ "$API_CODE" = 200 ] || die "skew of broker $id failed (HTTP $API_CODE): $(api_message)"
  note "$(date +%T.%3N) $(api_message)"
}
