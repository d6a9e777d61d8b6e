# `slow-disk ID [MS]`, sourced by ./tributary (not run): make every log write and fsync of one broker take MS
# milliseconds longer (0 heals), or show its delay, through the dashboard's fault action
# POST /dashboard/actions/brokers/ID/disk (docs/api.md), as on a host whose disk is saturated or failing.

SLOW_DISK_USAGE="usage: $PROG slow-disk ID [MS]   MS from 0 (disk healthy again) to 10000, added to each log write and fsync"

cmd_slow_disk() {
  local id=${1:-} ms=${2:-} field
  [ $# -le 2 ] && [[ "$id" =~ ^[1-9]$ ]] || die "$SLOW_DISK_USAGE"
  if [ -n "$ms" ]; then
    ms=${ms%ms} # 250ms reads as 250
    [[ "$ms" =~ ^[0-9]{1,5}$ ]] && [ "$((10#$ms))" -le 10000 ] ||
      die "MS must be a whole number of milliseconds from 0 to 10000, not '$2'"
    ms=$((10#$ms))
  fi
  api_broker "$id"
  if [ -z "$ms" ]; then
    api_call GET "/dashboard/actions/brokers/$id/disk" || die "broker $id ($API_URL) did not answer"
    [ "$API_CODE" = 200 ] || die "reading broker $id's disk delay failed (HTTP $API_CODE): $(api_message)"
    field=$(printf '%s' "$API_BODY" | sed -n 's/.*"delay_ms":\([0-9]*\).*/\1/p')
    note "broker $id: ${field:-?} ms added to each log write and fsync"
    return
  fi
  api_call POST "/dashboard/actions/brokers/$id/disk" "{\"delay_ms\":$ms}" || die "broker $id ($API_URL) did not answer"
  [ "$API_CODE" = 200 ] || die "slow-disk of broker $id failed (HTTP $API_CODE): $(api_message)"
  note "$(date +%T.%3N) $(api_message)"
}
