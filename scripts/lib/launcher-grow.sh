# `add-broker`, sourced by ./tributary (not run): starts the next broker (4, then 5, ...) on the running local
# cluster. It is a broker-only member, as Kafka's process.roles=broker: it follows the metadata log as a
# non-voting listener of the quorum (it asks the quorum's leader to add it, see QuorumListeners), registers, is
# unfenced like the others, and holds no partition until a reassignment or `balance` gives it some.
# Uses api_* (scripts/lib/launcher-api.sh) and balance_run (scripts/lib/launcher-balance.sh).

GROW_USAGE="usage: $PROG add-broker [--rack RACK] [--balance] [--timeout SECONDS]"

grow_usage() { die "$1"$'\n'"$GROW_USAGE"; }

# Replaces (or adds) the option --$2=... in the argument line $1 with --$2=$3; with no $3, removes it.
grow_set_arg() {
  local line=$1 name=$2 value=${3-} out="" word found=0
  for word in $line; do
    if [[ "$word" == "--$name="* ]]; then
      [ -z "$value" ] || out="$out${out:+ }--$name=$value"; found=1
    else out="$out${out:+ }$word"; fi
  done
  [ "$found" = 1 ] || [ -z "$value" ] || out="$out --$name=$value"
  printf '%s' "$out"
}

# Rewrites KEY=VALUE in file $1 (one line per key), keeping the file's mode.
grow_set_line() {
  local file=$1 key=$2 value=$3 tmp
  tmp=$(mktemp "$file.XXXXXX")
  grep -v "^$key=" "$file" > "$tmp" || true
  printf '%s=%s\n' "$key" "$value" >> "$tmp"
  chmod --reference="$file" "$tmp" && mv -f "$tmp" "$file"
}

cmd_add_broker() {
  local balance=0 timeout=600 rack=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --balance) balance=1; shift;;
      --rack) [ $# -ge 2 ] || grow_usage "add-broker: --rack needs a rack name"; rack=$2; shift 2;;
      --rack=*) rack=${1#*=}; shift;;
      --timeout) [ $# -ge 2 ] || grow_usage "add-broker: --timeout needs a number of seconds"; timeout=$2; shift 2;;
      --timeout=*) timeout=${1#*=}; shift;;
      *) grow_usage "add-broker: unknown argument '$1'";;
    esac
  done
  [[ "$timeout" =~ ^[0-9]{1,6}$ ]] && [ "$timeout" -ge 1 ] ||
    grow_usage "add-broker: --timeout must be a whole number of seconds, at least 1, not '$timeout'"
  [ -z "$rack" ] || [[ "$rack" =~ ^[A-Za-z0-9._-]+$ ]] ||
    grow_usage "add-broker: '$rack' is not a rack name (letters, digits, '.', '_', '-')"
  local existing; existing=$(cluster_get BROKERS)
  [ -n "$existing" ] || die "no cluster in $DATA to add a broker to; start one with '$PROG start'"
  local id=$((existing + 1))
  [ "$id" -le 9 ] || die "a local cluster has at most 9 brokers (broker N listens on 808N); $DATA has $existing"
  local b running=""
  for b in $(known_brokers); do [ -z "$(running_pid "$b")" ] || running="$running $b"; done
  [ -n "$running" ] || die "no broker of $DATA is running; '$PROG start' it first (a broker joins a running cluster)"
  require_java
  [ -f "$(conf_file 1)" ] || die "broker 1's settings ($(conf_file 1)) are gone; cannot tell the new broker's"
  if ! hosts_on; then
    local port
    for port in "$(port_of "$id")" "$(raft_port_of "$id")" "$(kafka_port_of "$id")"; do
      if port_in_use "$port"; then die "port $port, which broker $id would use, is already in use by another process"; fi
    done
  fi

  # The same settings as broker 1, with broker $id's own ports and address, and the listener list with it added.
  local host=127.0.0.1 listeners args
  if hosts_on; then host=$(hosts_ip "$id"); fi
  listeners=$(cluster_get LISTENERS)
  listeners="$listeners${listeners:+,}$id@$host:$(raft_port_of "$id")"
  args=$(conf_get 1 ARGS)
  args=$(grow_set_arg "$args" tributary.controller.quorum-listeners "$listeners")
  args=$(grow_set_arg "$args" tributary.kafka.port "$(kafka_port_of "$id")")
  # Its own rack, or none: not broker 1's (a cluster started with --racks wants one for each broker).
  if [[ " $args " == *" --tributary.broker-rack="* ]] && [ -z "$rack" ]; then
    note "note: the other brokers have racks (broker.rack); without --rack RACK, broker $id has none, and the" \
      "balancer then ignores racks"
  fi
  args=$(grow_set_arg "$args" tributary.broker-rack "$rack")
  if hosts_on; then args=$(grow_set_arg "$args" server.address "$host"); fi
  {
    printf 'PORT=%s\nJAR=%s\nJAVA_OPTS=%s\nARGS=%s\n' "$(port_of "$id")" "$(conf_get 1 JAR)" "$(conf_get 1 JAVA_OPTS)" "$args"
    if hosts_on; then printf 'HOST=%s\nNETNS=%s\n' "$host" "$(hosts_ns "$id")"; fi
  } > "$(conf_file "$id")"
  # The cluster now has $id brokers: a later `start` starts them all, and each broker's restart (`start N`)
  # names the new listener too (the running ones learn it from the metadata log; this is for their next start).
  grow_set_line "$(cluster_file)" BROKERS "$id"
  grow_set_line "$(cluster_file)" LISTENERS "$listeners"
  for b in $(known_brokers); do
    [ "$b" = "$id" ] || grow_set_line "$(conf_file "$b")" ARGS \
      "$(grow_set_arg "$(conf_get "$b" ARGS)" tributary.controller.quorum-listeners "$listeners")"
  done

  note "broker $id joins the running cluster as a broker that follows the metadata quorum without voting"
  launch "$id"
  await_ready "$id" || die "broker $id did not become ready; '$PROG logs $id' shows why (it stays in $DATA)"
  running=${running# }
  api_broker "${running%% *}"
  local waited=0
  while :; do
    api_call GET "/v3/clusters/$API_CLUSTER/brokers/$id" && [ "$API_CODE" = 200 ] && break
    [ "$waited" -lt 30 ] || die "broker $id is up but the cluster does not list it after 30 s; '$PROG logs $id'"
    sleep 1; waited=$((waited + 1))
  done
  note "broker $id joined: http://$host:$(port_of "$id") (Kafka $host:$(kafka_port_of "$id")); it holds no" \
    "partitions yet"
  if [ "$balance" = 1 ]; then
    note "balancing: replicas and preferred leaders move so that every broker, $id too, holds an even share"
    balance_run "" "" "$timeout" 0
  else
    note "'$PROG balance' moves an even share of the replicas onto it (see the plan first with --dry-run)"
  fi
}
