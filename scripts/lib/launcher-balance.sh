# `balance` and `decommission`, sourced by ./tributary (not run): show the broker's balance plan (replicas and
# preferred leaders evened out over the brokers, as Cruise Control's rebalance or kafka-reassign-partitions
# --generate propose), carry it out as reassignments and watch it; empty one broker and stop it. Uses api_* and
# reassign_field, reassign_call, now_ms (scripts/lib/launcher-api.sh, scripts/lib/launcher-reassign.sh).

BALANCE_USAGE="usage: $PROG balance [--dry-run] [--exclude ID,ID] [--max-moves N] [--throttle BYTES_PER_S] [--timeout SECONDS] [--broker ID]
       $PROG decommission ID [--timeout SECONDS]"

# A usage error: said before any broker is asked.
balance_usage() { die "$1"$'\n'"$BALANCE_USAGE"; }

# The JSON string value of field $1 in $2, its escapes undone (\uXXXX aside: Jackson writes only control
# characters that way). Only the balance's "text" is read with this; no other field of it has that name.
balance_string() {
  local rest=${2#*\"$1\":\"}
  [ "$rest" != "$2" ] || return 0
  printf '%s' "$rest" | sed -n 's/^\(\([^"\\]\|\\.\)*\)".*/\1/p' | head -1 |
    sed -e 's/\\\\/\x01/g' -e 's/\\"/"/g' -e 's/\\\//\//g' -e 's/\\t/\t/g' -e 's/\\r//g' -e 's/\\n/\n/g' \
      -e 's/\x01/\\/g'
}

# The "execution" of the balance JSON $1 as it came: "null", or the object (and whatever follows it).
balance_execution() {
  local rest=${1#*\"execution\":}
  if [ "$rest" = "$1" ]; then echo null; else printf '%s' "$rest"; fi
}

# The state of an execution ($1, from balance_execution): running, done or failed; empty when there is none.
# Its first "state": the failures in it have none.
balance_state() {
  printf '%s' "$1" | grep -o '"state":"[a-z_]*"' | head -1 | cut -d'"' -f4 || true
}

# "moves: 3 of 9 done, 2 in flight, 0 failed", of an execution.
balance_progress() {
  echo "moves: $(reassign_field moves_done "$1") of $(reassign_field moves_total "$1") done," \
    "$(reassign_field moves_in_flight "$1") in flight, $(reassign_field moves_failed "$1") failed"
}

# One line per failure of an execution: "orders-2: <message>". Object by object, a string at a time, so that
# brackets and braces inside a message do not end it.
balance_failures() {
  local rest=${1#*\"failures\":\[} failure message
  [ "$rest" != "$1" ] || return 0
  while [ "${rest:0:1}" = "{" ]; do
    failure=$(printf '%s' "$rest" | sed -n 's/^\({\([^"}]\|"\([^"\\]\|\\.\)*"\)*}\).*/\1/p')
    [ -n "$failure" ] || break
    message=$(balance_string message "$failure")
    echo "$(reassign_field topic_name "$failure")-$(reassign_field partition_id "$failure"): $message"
    rest=${rest:${#failure}}; rest=${rest#,}
  done
}

# What the plan (JSON $1) says of the measured load: the brokers whose figures did not arrive (their partitions
# count as 0 bytes-in), or that no bytes-in was known at all. The per-broker bytes-in/s is in the plan's text.
balance_load_note() {
  local missing
  missing=$(printf '%s' "$1" | grep -o '"load_missing_from":\[[0-9,]*\]' | head -1 | sed 's/.*\[\(.*\)\]/\1/')
  [ -z "$missing" ] || note "no load figures from broker(s) $missing: the plan weighs their partitions' bytes-in as 0"
  [ "$(reassign_field bytes_in_known "$1")" != false ] ||
    note "no bytes-in measured yet: the plan evens out replica and leader counts only"
}

# Milliseconds as seconds with one decimal: 12400 -> 12.4.
balance_seconds() { echo "$(($1 / 1000)).$(($1 % 1000 / 100))"; }

# A usage error unless $1 is a list of broker ids such as 3 or 3,4; $2 names the option in the error.
balance_ids() {
  local id seen=","
  [ -n "$1" ] || balance_usage "balance: $2 needs broker ids separated by commas, e.g. 3 or 3,4"
  [[ "$1" =~ ^[1-9](,[1-9])*$ ]] ||
    balance_usage "balance: $2 must be broker ids from 1 to 9 separated by commas, e.g. 3 or 3,4; not '$1'"
  for id in ${1//,/ }; do
    [[ "$seen" != *",$id,"* ]] || balance_usage "balance: $2 names broker $id twice"
    seen="$seen$id,"
  done
}

# Picks the broker to ask (api_broker): --broker's ($1), else the first running one not in the list $2, so that
# an excluded broker (which may be stopped next) does not run the balance; else any running one.
balance_broker() {
  local id=$1 b
  if [ -z "$id" ] && [ -n "$2" ]; then
    for b in $(known_brokers); do
      if [[ ",$2," != *",$b,"* ]] && [ -n "$(running_pid "$b")" ]; then id=$b; break; fi
    done
  fi
  api_broker "$id"
}

# Prints the plan and, unless $4 (dry run) is 1, carries it out on broker API_ID and waits: balance_run EXCLUDE
# MAX_MOVES TIMEOUT_S DRY_RUN (EXCLUDE "3,4" or empty, MAX_MOVES empty for the broker's default). Returns once the
# plan was balanced or is done; ends the command with exit 1 when the balance failed or ran out of time.
balance_run() {
  local exclude=$1 max=$2 timeout=$3 dry=$4 path query="" execution
  path="/v3/clusters/$API_CLUSTER/balance"
  [ -z "$exclude" ] || query="?exclude=$exclude"
  reassign_call GET "$path$query"
  note "$(balance_string text "$API_BODY")"
  balance_load_note "$API_BODY"
  execution=$(balance_execution "$API_BODY")
  if [ "$(balance_state "$execution")" = running ]; then
    note "a balance is running on broker $API_ID: $(balance_progress "$execution")"
  fi
  [ "$dry" = 0 ] || return 0
  if [ "$(reassign_field balanced "$API_BODY")" = true ]; then
    note "balanced already: nothing to move"
    return 0
  fi

  local request="" started
  [ -z "$exclude" ] || request="\"exclude\":[$exclude]"
  [ -z "$max" ] || request="$request${request:+,}\"max_concurrent_moves\":$((10#$max))"
  [ -z "${BALANCE_THROTTLE:-}" ] ||
    request="$request${request:+,}\"throttle_bytes_per_second\":$((10#$BALANCE_THROTTLE))"
  started=$(now_ms)
  api_call POST "$path" "{$request}" || die "broker $API_ID ($API_URL) did not answer"
  case "$API_CODE" in
    200|202) ;;
    409) die "another balance is running on broker $API_ID: $(api_message)"$'\n'"'$PROG balance --dry-run" \
      "--broker $API_ID' shows how far it got";;
    *) die "$(api_message)";;
  esac
  local total copies started_at
  execution=$(balance_execution "$API_BODY")
  total=$(reassign_field moves_total "$execution"); copies=$(reassign_field replicas_to_copy "$API_BODY")
  started_at=$(reassign_field started_at_ms "$execution")
  note "balancing: $total move(s), $copies replica(s) to copy${max:+, at most $((10#$max)) at a time}; broker" \
    "$API_ID runs them (Ctrl-C stops only this watching)"

  local line last="" silent=0
  while :; do
    line=$(balance_progress "$execution")
    [ "$line" = "$last" ] || note "$line"
    last=$line
    case "$(balance_state "$execution")" in
      done) break;;
      failed)
        balance_failures "$execution" >&2
        die "the balance failed: $line";;
      running) ;;
      *) die "broker $API_ID answered an execution this launcher does not know: ${execution:0:200}";;
    esac
    if [ $(($(now_ms) - started)) -ge $((timeout * 1000)) ]; then
      die "the balance is still running after ${timeout} s: $line. It goes on, on broker $API_ID:" \
        "'$PROG balance --dry-run --broker $API_ID' shows how far it got"
    fi
    sleep 0.5
    # The execution lives on this broker alone: while it runs, ask it again; once it is gone, so is the balance.
    if ! api_call GET "$path$query" || [[ "$API_CODE" == 5?? ]]; then
      [ -n "$(running_pid "$API_ID")" ] ||
        die "broker $API_ID, which ran the balance, is no longer running: the moves it had started go on" \
          "('$PROG reassignments' lists them), the rest were not started; '$PROG balance' plans again"
      [ "$silent" = 1 ] || note "broker $API_ID $([ "$API_CODE" = 000 ] && echo "did not answer" ||
        echo "answered HTTP $API_CODE"); asking again"
      silent=1
      continue
    fi
    silent=0
    [ "$API_CODE" = 200 ] || die "$(api_message)"
    execution=$(balance_execution "$API_BODY")
    [ -n "$(balance_state "$execution")" ] ||
      die "broker $API_ID no longer knows this balance (was it restarted?): the moves it had started go on" \
        "('$PROG reassignments' lists them); '$PROG balance' plans again"
    [ "$(reassign_field started_at_ms "$execution")" = "$started_at" ] ||
      die "another balance started on broker $API_ID after this one ($line when last seen)"
  done

  local finished_at took
  finished_at=$(reassign_field finished_at_ms "$execution")
  if [[ "$finished_at" =~ ^[0-9]+$ && "$started_at" =~ ^[0-9]+$ ]]; then took=$((finished_at - started_at))
  else took=$(($(now_ms) - started)); fi
  note "balanced in $(balance_seconds "$took") s: $total moves, $copies replicas copied"
  reassign_call GET "$path$query"
  note "$(balance_string text "$API_BODY")"
  [ "$(reassign_field balanced "$API_BODY")" = true ] ||
    note "the cluster changed while the balance ran, and there is more to move: '$PROG balance' again does it"
}

cmd_balance() {
  local dry=0 exclude="" exclude_given=0 max="" max_given=0 timeout=600 id="" throttle=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --dry-run) dry=1; shift;;
      --exclude) [ $# -ge 2 ] || balance_usage "balance: --exclude needs broker ids, e.g. 3 or 3,4"
        exclude=$2; exclude_given=1; shift 2;;
      --exclude=*) exclude=${1#*=}; exclude_given=1; shift;;
      --max-moves) [ $# -ge 2 ] || balance_usage "balance: --max-moves needs a number"; max=$2; max_given=1; shift 2;;
      --max-moves=*) max=${1#*=}; max_given=1; shift;;
      --timeout) [ $# -ge 2 ] || balance_usage "balance: --timeout needs a number of seconds"; timeout=$2; shift 2;;
      --timeout=*) timeout=${1#*=}; shift;;
      --throttle) [ $# -ge 2 ] || balance_usage "balance: --throttle needs bytes per second"; throttle=$2; shift 2;;
      --throttle=*) throttle=${1#*=}; shift;;
      --broker) [ $# -ge 2 ] || balance_usage "balance: --broker needs a broker id"; id=$2; shift 2;;
      --broker=*) id=${1#*=}; shift;;
      -*) balance_usage "balance: unknown option '$1'";;
      *) balance_usage "balance: unexpected argument '$1' (brokers to empty go after --exclude, e.g. --exclude 3,4)";;
    esac
  done
  [ "$exclude_given" = 0 ] || balance_ids "$exclude" --exclude
  [ "$max_given" = 0 ] || { [[ "$max" =~ ^[0-9]{1,4}$ ]] && [ "$((10#$max))" -ge 1 ]; } ||
    balance_usage "balance: --max-moves must be a whole number of moves at a time, at least 1, not '$max'"
  [[ "$timeout" =~ ^[0-9]{1,6}$ ]] && [ "$timeout" -ge 1 ] ||
    balance_usage "balance: --timeout must be a whole number of seconds, at least 1, not '$timeout'"
  [ -z "$id" ] || [[ "$id" =~ ^[1-9]$ ]] ||
    balance_usage "balance: --broker must be a broker id from 1 to 9, not '$id'"
  [ -z "$throttle" ] || [[ "$throttle" =~ ^[0-9]{1,15}$ ]] ||
    balance_usage "balance: --throttle must be a whole number of bytes per second, not '$throttle'"
  balance_broker "$id" "$exclude"
  BALANCE_THROTTLE=$throttle balance_run "$exclude" "$max" "$timeout" "$dry"
}

# The partitions with a replica on broker $1 ("orders-0 orders-2"), every topic's, internal ones included.
balance_partitions_on() {
  local id=$1 topic partition replicas out=""
  reassign_call GET "/v3/clusters/$API_CLUSTER/topics"
  for topic in $(printf '%s' "$API_BODY" | grep -o '"topic_name":"[^"]*"' | cut -d'"' -f4 | sort -u); do
    api_call GET "/v3/clusters/$API_CLUSTER/topics/$topic/partitions" || die "broker $API_ID ($API_URL) did not answer"
    [ "$API_CODE" != 404 ] || continue # deleted meanwhile
    [ "$API_CODE" = 200 ] || die "$(api_message)"
    while IFS= read -r partition; do
      replicas=$(reassign_field replica_ids "$partition" | tr -d '[]')
      [[ ",$replicas," != *",$id,"* ]] || out="$out${out:+ }$topic-$(reassign_field partition_id "$partition")"
    done < <(printf '%s\n' "$API_BODY" | sed 's/{"kind":"KafkaPartition",/\n&/g' | tail -n +2)
  done
  echo "$out"
}

# Empties broker ID (a balance that excludes it), checks that no partition has a replica left on it and no move
# involves it, and only then stops it. There is no unregistration: the controller keeps it, fenced.
cmd_decommission() {
  local id="" timeout=600
  while [ $# -gt 0 ]; do
    case "$1" in
      --timeout) [ $# -ge 2 ] || balance_usage "decommission: --timeout needs a number of seconds"; timeout=$2; shift 2;;
      --timeout=*) timeout=${1#*=}; shift;;
      -*) balance_usage "decommission: unknown option '$1'";;
      *) [ -z "$id" ] || balance_usage "decommission: one broker at a time"; id=$1; shift;;
    esac
  done
  [ -n "$id" ] || balance_usage "decommission: give the id of the broker to empty and stop"
  [[ "$id" =~ ^[1-9]$ ]] || balance_usage "decommission: ID must be a broker id from 1 to 9, not '$id'"
  [[ "$timeout" =~ ^[0-9]{1,6}$ ]] && [ "$timeout" -ge 1 ] ||
    balance_usage "decommission: --timeout must be a whole number of seconds, at least 1, not '$timeout'"
  local brokers; brokers=$(known_brokers | tr '\n' ' '); brokers=${brokers% }
  [ -f "$(conf_file "$id")" ] ||
    balance_usage "decommission: broker $id is not a broker of $DATA (its brokers: ${brokers:-none})"
  [ "$brokers" != "$id" ] ||
    balance_usage "decommission: broker $id is the only broker of $DATA; its replicas have nowhere to go"
  # Another broker runs the balance and answers the checks: broker $id may be down already (then it is fenced,
  # and its replicas move all the same).
  local b other=""
  for b in $brokers; do
    if [ "$b" != "$id" ] && [ -n "$(running_pid "$b")" ]; then other=$b; break; fi
  done
  [ -n "$other" ] || die "no running broker in $DATA besides broker $id to take its replicas (start them with '$PROG start')"
  api_broker "$other"

  note "decommission of broker $id: every replica it holds moves to the other brokers, then it stops"
  balance_run "$id" "" "$timeout" 0

  local tp moving="" left
  reassign_call GET "/v3/clusters/$API_CLUSTER/topics/-/partitions/-/reassignment"
  while IFS= read -r tp; do
    [[ ",$(reassign_field replica_ids "$tp" | tr -d '[]')," != *",$id,"* ]] ||
      moving="$moving${moving:+ }$(reassign_field topic_name "$tp")-$(reassign_field partition_id "$tp")"
  done < <(printf '%s\n' "$API_BODY" | sed 's/{"kind":"KafkaReassignment"/\n&/g' | tail -n +2)
  [ -z "$moving" ] || die "broker $id is not stopped: moves that involve it are in progress ($moving);" \
    "'$PROG reassignments' shows them; run '$PROG decommission $id' again once they are done"
  left=$(balance_partitions_on "$id")
  # shellcheck disable=SC2086 # one partition per word
  set -- $left
  left=$(IFS=,; echo "${*:1:20}"); left=${left//,/, }
  [ $# -le 20 ] || left="$left and $(($# - 20)) more"
  [ $# = 0 ] || die "broker $id is not stopped: it still holds replicas of $left, which cannot move" \
    "(see the 'skipped' lines of the plan above: a replication factor as large as the brokers left, or no" \
    "leader). Lower their replication factor ('$PROG reassign TOPIC PARTITION' with fewer brokers) or add a" \
    "broker, then run '$PROG decommission $id' again"

  note "broker $id holds no replica: stopping it"
  stop_one "$id" || die "broker $id is empty but did not stop; '$PROG kill $id' ends it"
  # Unregistered once the controller has fenced it (its session ends a few seconds after it stopped).
  local waited=0
  while :; do
    api_call DELETE "/v3/clusters/$API_CLUSTER/brokers/$id" || true
    case "$API_CODE" in
      204|404) break;;
    esac
    [ "$waited" -lt 30 ] || die "broker $id is empty and stopped, but the cluster would not unregister it:" \
      "$(api_message)"
    sleep 1; waited=$((waited + 1))
  done
  note "broker $id is empty, stopped and unregistered: the cluster no longer lists it"
  if [[ ",$(cluster_get VOTERS)" == *",$id@"* ]]; then
    note "broker $id is a voter of the metadata quorum: until it is back ('$PROG start $id', then it registers" \
      "again), the quorum runs on the other voters and survives one fewer failure"
  elif [ "$id" = "$(cluster_get BROKERS)" ]; then
    # The last broker add-broker made: it leaves the launcher's cluster too ('$PROG add-broker' makes it anew).
    local listeners; listeners=$(cluster_get LISTENERS)
    listeners=$(printf '%s' ",$listeners," | sed "s/,$id@[^,]*,/,/; s/^,//; s/,\$//")
    grow_set_line "$(cluster_file)" BROKERS "$((id - 1))"
    grow_set_line "$(cluster_file)" LISTENERS "$listeners"
    local b
    for b in $(known_brokers); do
      [ "$b" = "$id" ] || grow_set_line "$(conf_file "$b")" ARGS \
        "$(grow_set_arg "$(conf_get "$b" ARGS)" tributary.controller.quorum-listeners "$listeners")"
    done
    mv "$(conf_file "$id")" "$DATA/broker-$id.decommissioned.conf"
    mv "$DATA/broker-$id" "$DATA/broker-$id.decommissioned.$(date +%s)" 2>/dev/null || true
    note "broker $id left this launcher's cluster too (its data is kept in $DATA/broker-$id.decommissioned.*);" \
      "'$PROG add-broker' adds a broker $id afresh"
  else
    note "'$PROG start $id' brings it back (it registers again, empty) and '$PROG balance' gives it work"
  fi
}
