# `reassign` and `reassignments`, sourced by ./tributary (not run): move a partition's replicas with the
# broker's reassignment resources (docs/api.md, "Moving replicas"; KIP-455) and watch the move, as Kafka's
# kafka-reassign-partitions --execute, --verify, --cancel and --list do.

REASSIGN_USAGE="usage: $PROG reassign TOPIC PARTITION BROKER,BROKER,... [--throttle BYTES_PER_S] [--no-wait] [--timeout SECONDS] [--broker ID]
       $PROG reassign TOPIC PARTITION --cancel [--broker ID]
       $PROG reassignments [TOPIC] [--broker ID]"

# A usage error: said before any broker is asked.
reassign_usage() { die "$1"$'\n'"$REASSIGN_USAGE"; }

# Field $1 of one KafkaReassignment's JSON $2: a list such as [2,3,4], a number, a boolean or a string's text.
reassign_field() {
  printf '%s' "$2" | sed -n "s/.*\"$1\":\(\[[0-9,]*\]\|-\{0,1\}[0-9][0-9]*\|true\|false\|\"[^\"]*\"\).*/\1/p" |
    head -1 | tr -d '"'
}

# One move's state: "replicas [2,3,4,1], adding [4] (ISR [1,2,3]), removing [1], leader 1".
reassign_state() {
  local adding removing leader state
  adding=$(reassign_field adding_replicas "$1"); removing=$(reassign_field removing_replicas "$1")
  leader=$(reassign_field leader_id "$1")
  state="replicas $(reassign_field replica_ids "$1")"
  [ "$adding" = "[]" ] || state="$state, adding $adding"
  state="$state (ISR $(reassign_field isr_ids "$1"))"
  [ "$removing" = "[]" ] || state="$state, removing $removing"
  if [ "$leader" = -1 ]; then echo "$state, no leader"; else echo "$state, leader $leader"; fi
}

# The adding replicas of the JSON $1 not yet in its ISR, e.g. "4" or "4,5": those still copying the log.
reassign_catching_up() {
  local isr id out=""
  isr=",$(reassign_field isr_ids "$1" | tr -d '[]'),"
  for id in $(reassign_field adding_replicas "$1" | tr -d '[]' | tr ',' ' '); do
    [[ "$isr" == *",$id,"* ]] || out="$out${out:+,}$id"
  done
  echo "$out"
}

# api_call, then: nothing answered or an error answer ends the command with the broker's message.
reassign_call() {
  api_call "$@" || die "broker $API_ID ($API_URL) did not answer"
  case "$API_CODE" in 2??) ;; *) die "$(api_message)";; esac
}

# Replication throttles for one move (KIP-73; docs/adr/0029-replication-throttles.md), as kafka-reassign-partitions
# --throttle sets them: every broker's leader and follower rates (the cluster-wide default), the partition's current
# replicas throttled on the leader side and its new ones on the follower side. Only replicas outside the ISR are
# ever held back. reassign_unthrottle removes them (what --verify does once the move is done).
reassign_throttle() { # TOPIC PARTITION CURRENT_LIST_JSON TARGET_LIST_JSON BYTES
  local topic=$1 p=$2 current=${3//[\[\]]/} target=${4//[\[\]]/} rate=$5 b leader="" follower=""
  for b in ${current//,/ }; do leader="$leader${leader:+,}$p:$b"; done
  for b in ${target//,/ }; do
    [[ ",$current," == *",$b,"* ]] || follower="$follower${follower:+,}$p:$b"
  done
  reassign_call PUT "/v3/clusters/$API_CLUSTER/broker-configs/leader.replication.throttled.rate" "{\"value\":\"$rate\"}"
  reassign_call PUT "/v3/clusters/$API_CLUSTER/broker-configs/follower.replication.throttled.rate" "{\"value\":\"$rate\"}"
  reassign_call PUT "/v3/clusters/$API_CLUSTER/topics/$topic/configs/leader.replication.throttled.replicas" \
    "{\"value\":\"$leader\"}"
  if [ -n "$follower" ]; then
    reassign_call PUT "/v3/clusters/$API_CLUSTER/topics/$topic/configs/follower.replication.throttled.replicas" \
      "{\"value\":\"$follower\"}"
  fi
  note "throttled at $rate bytes/s: leader side $leader, follower side ${follower:-none} (only out-of-sync copies)"
}
reassign_unthrottle() { # TOPIC
  reassign_call DELETE "/v3/clusters/$API_CLUSTER/broker-configs/leader.replication.throttled.rate"
  reassign_call DELETE "/v3/clusters/$API_CLUSTER/broker-configs/follower.replication.throttled.rate"
  reassign_call DELETE "/v3/clusters/$API_CLUSTER/topics/$1/configs/leader.replication.throttled.replicas"
  reassign_call DELETE "/v3/clusters/$API_CLUSTER/topics/$1/configs/follower.replication.throttled.replicas"
  note "throttles removed"
}

now_ms() { date +%s%3N; }
seconds_since() { local ms=$(($(now_ms) - $1)); echo "$((ms / 1000)).$((ms % 1000 / 100))"; }

cmd_reassign() {
  local topic="" partition="" target="" cancel=0 wait=1 timeout=300 id="" n=0 throttle=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --cancel) cancel=1; shift;;
      --throttle) [ $# -ge 2 ] || reassign_usage "reassign: --throttle needs bytes per second"; throttle=$2; shift 2;;
      --throttle=*) throttle=${1#*=}; shift;;
      --no-wait) wait=0; shift;;
      --timeout) [ $# -ge 2 ] || reassign_usage "reassign: --timeout needs a number of seconds"; timeout=$2; shift 2;;
      --timeout=*) timeout=${1#*=}; shift;;
      --broker) [ $# -ge 2 ] || reassign_usage "reassign: --broker needs a broker id"; id=$2; shift 2;;
      --broker=*) id=${1#*=}; shift;;
      --*|-[!0-9]*) reassign_usage "reassign: unknown option '$1'";;
      *) n=$((n + 1))
        case $n in
          1) topic=$1;; 2) partition=$1;; 3) target=$1;;
          *) reassign_usage "reassign: too many arguments (the broker list has no spaces: 2,3,4)";;
        esac
        shift;;
    esac
  done
  [ -n "$topic" ] || reassign_usage "reassign: give a topic, a partition and the target brokers"
  [[ "$topic" =~ ^[A-Za-z0-9._-]{1,249}$ ]] ||
    reassign_usage "reassign: '$topic' is not a topic name (1 to 249 of a-z A-Z 0-9 . _ -)"
  [[ "$partition" =~ ^[0-9]{1,9}$ ]] ||
    reassign_usage "reassign: PARTITION must be a partition number (0, 1, ...), not '$partition'"
  if [ "$cancel" = 1 ]; then
    [ -z "$target" ] ||
      reassign_usage "reassign: --cancel takes no broker list (a cancelled move goes back to the replicas it left)"
  else
    [ -n "$target" ] ||
      reassign_usage "reassign: give the target replicas as broker ids separated by commas, e.g. 2,3,4"
    [[ "$target" =~ ^[0-9]{1,9}(,[0-9]{1,9})*$ ]] ||
      reassign_usage "reassign: the target replicas must be broker ids separated by commas, e.g. 2,3,4; not '$target'"
  fi
  [[ "$timeout" =~ ^[0-9]{1,6}$ ]] && [ "$timeout" -ge 1 ] ||
    reassign_usage "reassign: --timeout must be a whole number of seconds, at least 1, not '$timeout'"
  [ -z "$throttle" ] || { [[ "$throttle" =~ ^[0-9]{1,15}$ ]] && [ "$cancel" = 0 ]; } ||
    reassign_usage "reassign: --throttle takes a whole number of bytes per second, and only with a target"
  [ -z "$id" ] || [[ "$id" =~ ^[1-9]$ ]] ||
    reassign_usage "reassign: --broker must be a broker id from 1 to 9, not '$id'"

  api_broker "$id"
  local tp="$topic-$partition" path="/v3/clusters/$API_CLUSTER/topics/$topic/partitions/$partition/reassignment"
  if [ "$cancel" = 1 ]; then
    reassign_call DELETE "$path"
    note "$tp: move cancelled: $(reassign_state "$API_BODY")"
    return 0
  fi
  # The broker's JSON writes lists as [2,3,4]: the target the same way, so that they compare as strings.
  local want="" b
  for b in ${target//,/ }; do want="$want${want:+,}$((10#$b))"; done
  want="[$want]"
  local started; started=$(now_ms)
  if [ -n "$throttle" ]; then
    reassign_call GET "$path"
    reassign_throttle "$topic" "$partition" "$(reassign_field replica_ids "$API_BODY")" "$want" "$((10#$throttle))"
  fi
  reassign_call POST "$path" "{\"replicas\":$want}"
  note "$tp: moving to $want, committed: $(reassign_state "$API_BODY")"
  if [ "$wait" = 0 ]; then
    note "not waiting: '$PROG reassignments' lists the moves in progress;" \
      "'$PROG reassign $topic $partition --cancel' cancels this one"
    [ -z "$throttle" ] || note "the throttles stay until removed (DELETE the broker-configs and topic configs" \
      "named above; docs/api.md)"
    return 0
  fi
  local body=$API_BODY last state silent=0
  last=$(reassign_state "$body")
  while [ "$(reassign_field in_progress "$body")" != false ]; do
    if [ $(($(now_ms) - started)) -ge $((timeout * 1000)) ]; then
      local behind; behind=$(reassign_catching_up "$body")
      if [ -n "$behind" ]; then
        behind="replica(s) $behind still catching up, not yet in the ISR $(reassign_field isr_ids "$body")"
      else
        behind="every new replica is in sync, but the controller has not completed the move"
      fi
      die "$tp: still moving after ${timeout} s: $behind. The move goes on: '$PROG reassignments' shows it," \
        "'$PROG reassign $topic $partition --cancel' cancels it"
    fi
    sleep 0.25
    # A broker that stops answering (stopped, crashed, restarting) is not the end of the move: ask again, and
    # unless --broker chose it, ask another broker if this one is no longer running.
    if ! api_call GET "$path" || [[ "$API_CODE" == 5?? ]]; then
      [ "$silent" = 1 ] || note "broker $API_ID $([ "$API_CODE" = 000 ] && echo "did not answer" ||
        echo "answered HTTP $API_CODE"); asking again"
      silent=1
      [ -n "$id" ] || api_broker
      continue
    fi
    silent=0
    [ "$API_CODE" = 200 ] || die "$(api_message)"
    body=$API_BODY
    state=$(reassign_state "$body")
    [ "$state" = "$last" ] || note "$tp: $state"
    last=$state
  done
  local replicas; replicas=$(reassign_field replica_ids "$body")
  [ "$replicas" = "$want" ] ||
    die "$tp: the move ended on $replicas, not $want: someone else cancelled or retargeted it"
  note "$tp moved to $want in $(seconds_since "$started") s (leader $(reassign_field leader_id "$body"))"
  [ -z "$throttle" ] || reassign_unthrottle "$topic"
}

# Moves in progress (every topic's, or TOPIC's), one line each: "orders-0 to [2,3,4]: replicas [2,3,4,1], ...".
cmd_reassignments() {
  local topic="" id=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --broker) [ $# -ge 2 ] || reassign_usage "reassignments: --broker needs a value"; id=$2; shift 2;;
      --broker=*) id=${1#*=}; shift;;
      -*) reassign_usage "reassignments: unknown option '$1'";;
      *) [ -z "$topic" ] || reassign_usage "reassignments: too many arguments"; topic=$1; shift;;
    esac
  done
  [ -z "$topic" ] || [[ "$topic" =~ ^[A-Za-z0-9._-]{1,249}$ ]] ||
    reassign_usage "reassignments: '$topic' is not a topic name (1 to 249 of a-z A-Z 0-9 . _ -)"
  [ -z "$id" ] || [[ "$id" =~ ^[1-9]$ ]] || reassign_usage "reassignments: --broker must be 1 to 9, not '$id'"
  api_broker "$id"
  reassign_call GET "/v3/clusters/$API_CLUSTER/topics/${topic:--}/partitions/-/reassignment"
  local move count=0
  while IFS= read -r move; do
    count=$((count + 1))
    note "$(reassign_field topic_name "$move")-$(reassign_field partition_id "$move")" \
      "to $(reassign_field target_replica_ids "$move"): $(reassign_state "$move")"
  done < <(printf '%s\n' "$API_BODY" | sed 's/{"kind":"KafkaReassignment"/\n&/g' | tail -n +2)
  [ "$count" -gt 0 ] || note "no reassignment in progress${topic:+ of $topic}"
}
