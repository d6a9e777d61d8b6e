# `--protocol kafka` of scripts/bench-kafka-side-by-side (sourced, not run): Kafka's own tools drive both systems,
# Tributary through its Kafka listener (127.0.0.1:TRIBUTARY_KAFKA_PORT_BASE+N). Uses scripts/lib/side-by-side.sh.
#
# Topics on Tributary are made with TopicCommand when its listener answers CreateTopics and DescribeConfigs, and
# otherwise through its REST API (POST /v3/clusters/{id}/topics), waiting for a leader and a full ISR per partition
# (GET .../partitions). ConsumerPerformance needs a consumer group (FindCoordinator, JoinGroup, SyncGroup, ...):
# without those APIs, Tributary's consume runs are reported as not run.

# ---------------------------------------------------------------------------------------------- Tributary's APIs

# Asks Tributary's listener which APIs it serves (BrokerApiVersionsCommand) and says what is missing.
probe_tributary_apis() {
  TAPIS=$WORK/tributary-api-versions.txt
  run_tool "$TAPIS" "$ANCHOR" tool org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$TBOOT" \
    || { cat "$TAPIS" >&2; die "BrokerApiVersionsCommand failed against Tributary at $TBOOT"; }
  local api missing=""
  for api in CreateTopics DescribeConfigs FindCoordinator JoinGroup SyncGroup Heartbeat OffsetFetch OffsetCommit; do
    tributary_has "$api" || missing="$missing $api"
  done
  echo "tributary kafka listener at $TBOOT: ${missing:+no}${missing:-every API these tools use}"
  if ! tributary_has CreateTopics || ! tributary_has DescribeConfigs; then
    echo "  topics on Tributary are created through its REST API (TopicCommand needs CreateTopics and DescribeConfigs)"
  fi
  tributary_can_consume || echo "  Tributary's consume runs wait for the group APIs (ConsumerPerformance joins a group)"
}
tributary_has() { # an API name as BrokerApiVersionsCommand prints it: "Produce(0): 0 to 13 [usable: 13],"
  grep -qE "(^|[[:space:](,])$1\([0-9]+\): [0-9]+ to [0-9]+" "$TAPIS"
}
tributary_can_consume() {
  local api; for api in FindCoordinator JoinGroup SyncGroup Heartbeat OffsetFetch; do tributary_has "$api" || return 1; done
}

# A live broker's REST base (the first whose process is up; the failover kills one).
tributary_url() {
  local f id
  for f in "$TDATA"/broker-*.pid; do
    id=${f##*/broker-}; id=${id%.pid}
    if kill -0 "$(cat "$f" 2>/dev/null)" 2>/dev/null; then echo "http://127.0.0.1:$((TPORT_BASE + id))"; return 0; fi
  done
  return 1
}
tributary_rest() { # GET path below /v3/clusters/{id}; prints the body
  local url cid; url=$(tributary_url) || return 1
  cid=$(curl -sf --max-time 10 "$url/v3/clusters" | sed -n 's/.*"cluster_id":"\([^"]*\)".*/\1/p') || return 1
  curl -sf --max-time 10 "$url/v3/clusters/$cid$1"
}

# topic rf partitions: create through REST (HTTP 201, or 409 if it exists) and wait until every partition has a
# leader and rf replicas in sync.
tributary_rest_topic() {
  local topic=$1 rf=$2 parts=$3 url cid code body
  url=$(tributary_url) || die "no Tributary broker is up"
  cid=$(curl -sf --max-time 10 "$url/v3/clusters" | sed -n 's/.*"cluster_id":"\([^"]*\)".*/\1/p')
  [ -n "$cid" ] || die "GET $url/v3/clusters gave no cluster_id"
  body="{\"topic_name\":\"$topic\",\"partitions_count\":$parts,\"replication_factor\":$rf,"
  body="$body\"configs\":[{\"name\":\"min.insync.replicas\",\"value\":\"$([ "$rf" = 1 ] && echo 1 || echo 2)\"}]}"
  code=$(curl -s --max-time 30 -o "$WORK/topic.out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "$body" "$url/v3/clusters/$cid/topics")
  case "$code" in 201|409) ;; *) cat "$WORK/topic.out" >&2; die "creating topic $topic on Tributary answered HTTP $code";; esac
  for _ in $(seq 1 60); do
    # Each partition's "leader_id":N and "isr_ids":[..], in the same order
    if [ "$(tributary_rest "/topics/$topic/partitions" 2>/dev/null | grep -oE '"(leader_id":-?[0-9]+|isr_ids":\[[0-9,]*\])' |
          awk -v rf="$rf" -F: '/leader_id/ { l = $2 } /isr_ids/ { gsub(/[][]/, "", $2); if (l >= 0 && split($2, x, ",") == rf) ok++ }
                              END { print ok + 0 }')" = "$parts" ]; then return 0; fi
    sleep 1
  done
  tributary_rest "/topics/$topic/partitions" >&2 || true
  die "Tributary topic $topic has no leader or a short ISR after 60 s"
}

# system topic rf [partitions]
system_topic() {
  local parts=${4:-$PARTITIONS}
  if [ "$1" = kafka ]; then kafka_topic "$KBOOT" "$2" "$3" "$parts"
  elif tributary_has CreateTopics && tributary_has DescribeConfigs; then kafka_topic "$TBOOT" "$2" "$3" "$parts"
  else tributary_rest_topic "$2" "$3" "$parts"; fi
}
boot_of() { if [ "$1" = kafka ]; then echo "$KBOOT"; else echo "$TBOOT"; fi; }
pids_of() { if [ "$1" = kafka ]; then echo "$KPIDS"; else echo "$TPIDS"; fi; }

start_tributary_kafka() { # $1 = brokers: start, probe the APIs, make the warm-up topic (proves the listener)
  start_tributary "$1"
  probe_tributary_apis
  system_topic tributary warmup "$1"
}

# ---------------------------------------------------------------------------------------------- produce, consume

# The tools' arguments, printed for the caller to split into words (none holds a space).
producer_perf() { # system topic records
  echo org.apache.kafka.tools.ProducerPerformance --topic "$2" --num-records "$3" --record-size 100 \
    --throughput -1 --command-property bootstrap.servers="$(boot_of "$1")" acks=all
}

kp_produce_runs() { # scenario rf records
  local sc=$1 rf=$2 n=$3 run sys
  for run in $(seq 1 "$WARM_RUNS"); do
    echo "== $sc warm-up run $run/$WARM_RUNS, not measured (load $(load1))"
    for sys in tributary kafka; do
      run_tool "$WORK/$sc-$sys-warm-$run.log" "$ANCHOR" tool $(producer_perf "$sys" warmup "$n") \
        || echo "($sys warm-up run failed)"
    done
  done
  for run in $(seq 1 "$RUNS"); do
    echo "== $sc run $run/$RUNS (load $(load1))"
    for sys in $(order "$run"); do
      system_topic "$sys" "$sc-r$run" "$rf"
      run_tool "$WORK/$sc-$sys-warmup-$run.log" "$ANCHOR" tool $(producer_perf "$sys" warmup "$K_WARMUP") \
        || echo "($sys warm-up failed; see --keep logs)"
      tool_run "$sys" "$sc" "$run" "$n" "$(pids_of "$sys")" produce -- $(producer_perf "$sys" "$sc-r$run" "$n")
    done
  done
}

consumer_perf() { # system topic records group
  echo org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$(boot_of "$1")" --topic "$2" \
    --num-records "$3" --timeout 30000 --group "$4"
}

kp_consume_runs() { # reads the topics `produce` wrote, else one filled here
  local run sys topic systems="tributary kafka" warm=$(( RECORDS < 500000 ? RECORDS : 500000 ))
  if ! want produce; then
    echo "== consume: filling one topic per system with $RECORDS records (not measured)"
    for sys in tributary kafka; do
      system_topic "$sys" produce-r1 1
      run_tool "$WORK/fill-$sys.log" "$ANCHOR" tool $(producer_perf "$sys" produce-r1 "$RECORDS")
    done
  fi
  if ! tributary_can_consume; then
    systems=kafka
    for run in $(seq 1 "$RUNS"); do
      failed consume tributary "$run" "not run: Tributary's Kafka listener has no group APIs yet (ConsumerPerformance needs FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetFetch)"
    done
  fi
  echo "== consume warm-up: $warm records each (not measured)"
  for sys in $systems; do
    run_tool "$WORK/consume-$sys-warmup.log" "$ANCHOR" tool $(consumer_perf "$sys" produce-r1 "$warm" "side-by-side-warm-$RANDOM") \
      || echo "($sys consume warm-up failed)"
  done
  for run in $(seq 1 "$RUNS"); do
    topic=produce-r$run; want produce || topic=produce-r1
    echo "== consume run $run/$RUNS (load $(load1))"
    for sys in $(order "$run"); do
      [[ " $systems " == *" $sys "* ]] || continue
      tool_run "$sys" consume "$run" "$RECORDS" "$(pids_of "$sys")" consume -- \
        $(consumer_perf "$sys" "$topic" "$RECORDS" "side-by-side-$run-$RANDOM")
    done
  done
}

# ---------------------------------------------------------------------------------------------- failover

# The broker leading partition 0 of a topic, and the metadata quorum's leader (the active controller).
leader_of() { # system topic
  if [ "$1" = kafka ]; then
    run_tool "$WORK/describe.out" "$ANCHOR" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$KBOOT" \
      --describe --topic "$2" || true
    awk '/Partition: 0/ { for (i = 1; i < NF; i++) if ($i == "Leader:") print $(i+1) }' "$WORK/describe.out"
  else
    tributary_rest "/topics/$2/partitions/0" | sed -n 's/.*"leader_id":\(-\{0,1\}[0-9]*\).*/\1/p'
  fi
}
controller_of() {
  if [ "$1" = kafka ]; then
    run_tool "$WORK/quorum.out" "$ANCHOR" tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-server "$KBOOT" \
      describe --status || true
    sed -n 's/^LeaderId:[[:space:]]*\([0-9]*\).*/\1/p' "$WORK/quorum.out"
  else
    tributary_rest "" | sed -n 's/.*"controller_id":\(-\{0,1\}[0-9]*\).*/\1/p'
  fi
}
end_offset_of() { # system topic: partition 0's latest offset (ListOffsets), after the failover
  run_tool "$WORK/offsets.out" "$ANCHOR" tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$(boot_of "$1")" \
    --topic "$2" --partitions 0 --time -1 || true
  sed -n "s/^$2:0:\([0-9]*\)$/\1/p" "$WORK/offsets.out"
}
pid_of_broker() { # system id
  if [ "$1" = kafka ]; then cat "$KAFKA_ANCHOR_DIR/cluster/node$2/pid"; else cat "$TDATA/broker-$2.pid"; fi
}

# One failover run on a fresh 3-broker cluster of one system (the other is down): topic `failover` with one
# partition, RF 3, min.insync.replicas 2, whose leader (and the active controller) is looked up first;
# VerifiableProducer (acks=all, the client's default retries) at FAILOVER_RATE records/s, until stopped; after
# FAILOVER_SETTLE_S of acknowledgements, SIGKILL of the leader's broker by PID; the producer runs on until
# FAILOVER_AFTER_S after the kill and at least 10 s past its first acknowledgement after it, then gets SIGTERM (it
# closes, waiting for what it sent). Stall: the longest gap between successive acknowledgements (the
# producer_send_success events' timestamps) that ends after the kill.
failover_once() { # system run
  local sys=$1 run=$2 acks=$WORK/failover-$1-$2.acks err=$WORK/failover-$1-$2.err
  local leader ctl pid kill_ms g java res until_ms
  if [ "$sys" = kafka ]; then start_kafka 3; else start_tributary_kafka 3; fi
  system_topic "$sys" failover 3 1
  leader=$(leader_of "$sys" failover); ctl=$(controller_of "$sys")
  [[ "$leader" =~ ^[0-9]+$ ]] || { failed failover "$sys" "$run" "no leader for failover-0"; failover_stop "$sys" "$run"; return 0; }
  # Only what the stall needs is kept of the tool's per-record JSON: "TIMESTAMP ok", "TIMESTAMP error EXCEPTION",
  # other events as they are.
  local keep='match($0, /"timestamp":[0-9]+/) { t = substr($0, RSTART + 12, RLENGTH - 12) }
    /"producer_send_success"/ { print t, "ok"; next }
    /"producer_send_error"/ { e = "?"; if (match($0, /"exception":"[^"]*"/)) { e = substr($0, RSTART + 13, RLENGTH - 14); sub(/^class /, "", e) }
                              print t, "error", e; next } { print }'
  # VerifiableProducer sets retries=0 (so that a failed send shows as an error); its --command-config comes after
  # that, and restores kafka-clients' default: retries unbounded within delivery.timeout.ms, hence idempotence on.
  printf 'retries=2147483647\n' > "$WORK/failover-producer.properties"
  setsid bash -c 'keep=$1 err=$2 acks=$3; shift 3; "$@" 2> "$err" | awk "$keep" > "$acks"' - "$keep" "$err" "$acks" \
    "$ANCHOR" tool org.apache.kafka.tools.VerifiableProducer --bootstrap-server "$(boot_of "$sys")" --topic failover \
    --max-messages -1 --throughput "$FAILOVER_RATE" --acks -1 --command-config "$WORK/failover-producer.properties" < /dev/null &
  g=$!; TOOL_PGID=$g
  # The group exists once the child has called setsid, a moment after the fork: until then it looks ended.
  for _ in $(seq 1 100); do group_alive "$g" && break; sleep 0.05; done
  for _ in $(seq 1 600); do grep -q ' ok$' "$acks" 2>/dev/null && break; group_alive "$g" || break; sleep 0.1; done
  if ! grep -q ' ok$' "$acks" 2>/dev/null; then
    end_group "$g"; TOOL_PGID=""
    failed failover "$sys" "$run" "no acknowledgement in 60 s; see $err: $(grep -m1 -iE 'error|exception' "$err" || tail -1 "$err")"
    failover_stop "$sys" "$run"; return 0
  fi
  sleep "$FAILOVER_SETTLE_S"
  pid=$(pid_of_broker "$sys" "$leader")
  kill_ms=$(now_ms); kill -KILL "$pid"
  echo "$(date +%T.%3N) $sys: SIGKILL broker $leader (pid $pid), the leader of failover-0$([ "$leader" = "$ctl" ] && echo ", and the active controller")"
  # Run on until FAILOVER_AFTER_S past the kill and 10 s past the first acknowledgement after it (180 s at most).
  until_ms=$(( kill_ms + FAILOVER_AFTER_S * 1000 ))
  for _ in $(seq 1 900); do
    [ "$(now_ms)" -ge "$until_ms" ] && [ "$(awk -v k="$kill_ms" -v w="$(( $(now_ms) - 10000 ))" \
      '$2 == "ok" && $1 > k && $1 <= w { print "y"; exit }' "$acks")" = y ] && break
    [ "$(now_ms)" -ge $(( kill_ms + 180000 )) ] && break
    group_alive "$g" || break; sleep 0.2
  done
  # SIGTERM to the tool's JVM alone (awk must live on to write what the JVM prints as it closes).
  java=$(ps -eo pid=,pgid=,comm= | awk -v g="$g" '$2 == g && $3 == "java" { print $1 }')
  [ -z "$java" ] || kill -TERM $java 2>/dev/null || true
  for _ in $(seq 1 750); do group_alive "$g" || break; sleep 0.2; done
  end_group "$g"; TOOL_PGID=""
  res=$(sort -n -k1,1 "$acks" | awk -v k="$kill_ms" '
    $2 == "ok" { if (prev != "" && $1 > k && $1 - prev > gap) { gap = $1 - prev; from = prev }
                 if ($1 <= k) before++; else after++; prev = $1; next }
    $2 == "error" { errors++; kind[$3]++ }
    END { for (e in kind) if (kind[e] > most) { most = kind[e]; top = e }
          if (after) printf "stall_s=%.2f stall_began_s=%+.2f acked_before_kill=%d acked_after_kill=%d send_errors=%d%s\n",
                            gap / 1000, (from - k) / 1000, before, after, errors + 0, errors ? " (mostly " top ")" : "" }')
  if [ -z "$res" ]; then
    failed failover "$sys" "$run" "no acknowledgement in 180 s after the kill; see $err"
  else
    # With acks=all and the idempotent producer, the partition ends exactly at the acknowledged count: fewer is an
    # acknowledged record lost, more a record written twice (or a failed send that was written after all).
    local new end acked check=?; new=$(leader_of "$sys" failover); end=$(end_offset_of "$sys" failover)
    acked=$(( $(sed -n 's/.*acked_before_kill=\([0-9]*\).*/\1/p' <<< "$res") + $(sed -n 's/.*acked_after_kill=\([0-9]*\).*/\1/p' <<< "$res") ))
    if [ -n "$end" ]; then
      if [ "$end" = "$acked" ]; then check=ok; elif [ "$end" -lt "$acked" ]; then check=LOST; else check=extra; fi
    fi
    echo "RESULT scenario=failover system=$sys run=$run rate=$FAILOVER_RATE killed_broker=$leader killed_controller=$([ "$leader" = "$ctl" ] && echo yes || echo no) new_leader=${new:-?} $res end_offset=${end:-?} end_vs_acked=$check load=$(load1)"
    echo "$sys $run $(sed -n 's/^stall_s=\([0-9.]*\).*/\1/p' <<< "$res")" >> "$WORK/failover"
  fi
  failover_stop "$sys" "$run"
}
failover_stop() { if [ "$1" = kafka ]; then stop_kafka "failover-$2"; else stop_tributary; fi; }

failover_runs() {
  local run sys
  : > "$WORK/failover"
  for run in $(seq 1 "$RUNS"); do
    echo "== failover run $run/$RUNS: 3 brokers, RF 3, min.insync.replicas 2, acks=all at $FAILOVER_RATE records/s (load $(load1))"
    for sys in $(order "$run"); do failover_once "$sys" "$run"; done
  done
}

failover_summary() {
  [ -s "$WORK/failover" ] || return 0
  echo
  echo "== failover: the producer's longest gap between acknowledgements around the SIGKILL of the partition leader"
  awk '
    function sortn(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t } }
    { n[$1]++; s[$1, n[$1]] = $3 }
    END {
      printf "%-10s %4s %14s %10s %10s\n", "system", "runs", "stall median", "best", "worst"
      for (q = 1; q <= 2; q++) {
        sys = q == 1 ? "tributary" : "kafka"; m = n[sys]
        if (!m) { printf "%-10s %4d\n", sys, 0; continue }
        delete a; for (i = 1; i <= m; i++) a[i] = s[sys, i]; sortn(a, m)
        med[sys] = m % 2 ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
        printf "%-10s %4d %13.2fs %9.2fs %9.2fs\n", sys, m, med[sys], a[1], a[m]
      }
      if (n["tributary"] && n["kafka"] && med["kafka"] > 0) printf "%-10s %4s %14.2f\n", "ratio T/K", "", med["tributary"] / med["kafka"]
    }' "$WORK/failover"
}
