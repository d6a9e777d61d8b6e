# Shared parts of scripts/bench-kafka-side-by-side (sourced, not run): clean-up, the broker-CPU window from /proc,
# RESULT lines, the two clusters, and the summary. Whatever protocol drives Tributary, these measure both systems
# the same way.
#
# The caller sets: ROOT ANCHOR KAFKA_ANCHOR_DIR TPORT_BASE TRIBUTARY_RAFT_PORT_BASE TRIBUTARY_KAFKA_PORT_BASE
# PARTITIONS HZ KEEP WORK RESULTS PROTOCOL FORMAT, and the state below; it traps EXIT with `cleanup`.
TDATA=""                         # data directory of the running Tributary cluster
KAFKA_UP=0
TOOL_PGID=""                     # process group of the tool running now
GROUPS_STARTED=()                # process groups of the clusters' launchers (brokers live in them)

# ---------------------------------------------------------------------------------------------- clean-up

group_alive() { kill -0 -- "-$1" 2>/dev/null; }
end_group() { # $1 = process group: TERM, up to 10 s, then KILL
  local g=$1
  group_alive "$g" || return 0
  kill -TERM -- "-$g" 2>/dev/null || true
  for _ in $(seq 1 50); do group_alive "$g" || return 0; sleep 0.2; done
  kill -KILL -- "-$g" 2>/dev/null || true
}
stop_tributary() {
  [ -n "$TDATA" ] || return 0
  ./tributary stop --data "$TDATA" >/dev/null 2>&1 || true
  if [ -n "$KEEP" ]; then mkdir -p "$KEEP/$(basename "$TDATA")" && cp "$TDATA"/broker-*.log "$KEEP/$(basename "$TDATA")/" 2>/dev/null || true; fi
  rm -rf "$TDATA"; TDATA=""
}
stop_kafka() { # $1 = a name for the kept logs
  [ "$KAFKA_UP" = 1 ] || return 0
  if [ -n "$KEEP" ]; then
    for d in "$KAFKA_ANCHOR_DIR"/cluster/node*; do
      mkdir -p "$KEEP/kafka-$1-$(basename "$d")"; cp "$d"/logs/server.log "$KEEP/kafka-$1-$(basename "$d")/" 2>/dev/null || true
    done
  fi
  "$ANCHOR" stop >/dev/null 2>&1 || true
  KAFKA_UP=0
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -z "$TOOL_PGID" ] || end_group "$TOOL_PGID"
  stop_tributary
  stop_kafka end
  local g; for g in ${GROUPS_STARTED[@]+"${GROUPS_STARTED[@]}"}; do end_group "$g"; done
  if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && cp -r "$WORK"/. "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$WORK"
  exit "$rc"
}

# ---------------------------------------------------------------------------------------------- measuring

ticks() { # "total jit": user+sys clock ticks summed over the given PIDs, and those of their JIT compiler threads
  local t=0 j=0 pid s
  for pid in "$@"; do
    s=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || { echo "broker pid $pid is gone" >&2; return 1; }
    t=$((t + s))
    # /proc/PID/task/TID/stat: the name in parentheses may hold spaces; utime and stime are the 12th and 13th
    # fields after it. HotSpot's compiler threads are named "C1 CompilerThread0", "C2 CompilerThread0".
    s=$(awk '{ r = 0; for (i = length($0); i > 0; i--) if (substr($0, i, 1) == ")") { r = i; break }
               name = substr($0, index($0, "(") + 1, r - index($0, "(") - 1); split(substr($0, r + 2), f, " ")
               if (name ~ /^C[12] CompilerThre/) j += f[12] + f[13] } END { print j + 0 }' /proc/"$pid"/task/*/stat 2>/dev/null)
    j=$((j + ${s:-0}))
  done
  echo "$t $j"
}
machine_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; } # busy total
load1() { cut -d' ' -f1 /proc/loadavg; }
now_ms() { date +%s%3N; }

# Runs a command in its own process group (setsid: our children are never group leaders, so it does not fork and
# $! is the group id), output to $1; waits for it. Returns its exit status.
run_tool() {
  local out=$1; shift
  setsid "$@" > "$out" 2>&1 < /dev/null &
  TOOL_PGID=$!
  local rc=0; wait "$TOOL_PGID" || rc=$?
  end_group "$TOOL_PGID"; TOOL_PGID=""
  return "$rc"
}

# What drives a system: Kafka's tools drive Kafka, and Tributary too with --protocol kafka.
client_of() { if [ "$1" = kafka ] || [ "$PROTOCOL" = kafka ]; then echo kafka; else echo "$FORMAT"; fi; }

# Prints one RESULT line and records the run. Args: scenario system run records ticks_before ticks_after
# machine_before(busy total) machine_after(busy total) wall_s rate [p99_ms]
report() {
  local sc=$1 sys=$2 run=$3 n=$4 b=$5 a=$6 mb=$7 mt=$8 ma=$9 mat=${10} wall=${11} rate=${12} p99=${13:--} cpu cpm busy jit
  cpu=$(awk -v a="${b% *}" -v b="${a% *}" -v hz="$HZ" 'BEGIN{printf "%.2f", (b-a)/hz}')
  cpm=$(awk -v c="$cpu" -v n="$n" 'BEGIN{printf "%.2f", c/(n/1e6)}')
  jit=$(awk -v a="${b#* }" -v b="${a#* }" -v hz="$HZ" -v n="$n" 'BEGIN{printf "%.2f", (b-a)/hz/(n/1e6)}')
  busy=$(awk -v b0="$mb" -v t0="$mt" -v b1="$ma" -v t1="$mat" -v c="$(nproc)" \
    'BEGIN{ if (t1>t0) printf "%.2f", (b1-b0)/(t1-t0)*c; else print "?" }')
  echo "RESULT scenario=$sc system=$sys run=$run format=$(client_of "$sys") records=$n records_per_sec=$rate$([ "$p99" = - ] || echo " p99_ms=$p99") broker_cpu_s=$cpu broker_cpu_s_per_million=$cpm jit_cpu_s_per_million=$jit window_s=$wall machine_busy=$busy/$(nproc) load=$(load1)"
  echo "$sc $sys $run $rate $cpm $jit $p99" >> "$RESULTS"
}
failed() { # scenario system run why
  echo "RESULT scenario=$1 system=$2 run=$3 error=\"$4\" (not counted)"
}

# One measured run of a Kafka tool (through kafka-anchor's classpath) against either system; the window spans the
# tool's process (its JVM start costs the brokers nothing). Args: system scenario run records pids kind -- tool args
# kind: produce (ProducerPerformance: records/sec and the 99th percentile) or consume (ConsumerPerformance).
tool_run() {
  local sys=$1 sc=$2 run=$3 n=$4 pids=$5 kind=$6; shift 7
  local log=$WORK/$sc-$sys-$run.log b a m0 m1 t0 t1 rc=0 rate="" p99=- w0
  read -r m0 t0 < <(machine_ticks); w0=$EPOCHREALTIME
  b=$(ticks $pids)
  run_tool "$log" "$ANCHOR" tool "$@" || rc=$?
  a=$(ticks $pids) || rc=99
  read -r m1 t1 < <(machine_ticks)
  local wall; wall=$(awk -v a="$w0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')
  if [ "$kind" = produce ]; then
    # "2000000 records sent, 187617.3 records/sec (17.89 MB/sec), ..., 300 ms 95th, 400 ms 99th, 500 ms 99.9th."
    local last; last=$(grep -E '^[0-9]+ records sent.* 50th' "$log" | tail -1)
    rate=$(sed -n 's/.* records sent, \([0-9.]*\) records\/sec.*/\1/p' <<< "$last")
    # (the 99th percentile is shown only when the same tool drives both systems)
    [ "$PROTOCOL" != kafka ] || p99=$(sed -n 's/.* \([0-9.]*\) ms 99th.*/\1/p' <<< "$last"); p99=${p99:--}
  else
    # a header line, then one CSV line; take fetch.nMsg.sec by its header name
    rate=$(awk -F', *' '/fetch.nMsg.sec/{for(i=1;i<=NF;i++) if($i=="fetch.nMsg.sec") c=i; next} c && /^[0-9]/ && NF>=c {r=$c} END{print r}' "$log")
  fi
  if [ "$rc" != 0 ] || [ -z "$rate" ]; then
    failed "$sc" "$sys" "$run" "tool exit $rc; see $log: $(grep -m1 -iE 'error|exception' "$log" || tail -1 "$log")"
    return 0
  fi
  report "$sc" "$sys" "$run" "$n" "$b" "$a" "$m0" "$t0" "$m1" "$t1" "$wall" "$(printf '%.0f' "$rate")" "$p99"
}

# ---------------------------------------------------------------------------------------------- clusters

port_free() { ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
require_ports() { local p; for p in "$@"; do port_free "$p" || die "port $p is in use (ss -ltnp 'sport = :$p')"; done; }

tributary_bootstrap() { # $1 = brokers: their Kafka listeners
  local i list=""
  for i in $(seq 1 "$1"); do list="$list${list:+,}127.0.0.1:$((TRIBUTARY_KAFKA_PORT_BASE + i))"; done
  echo "$list"
}

start_tributary() { # $1 = brokers; sets TDATA, TPIDS, TBOOT
  local n=$1 i
  for i in $(seq 1 "$n"); do
    require_ports $((TPORT_BASE + i)) $((TRIBUTARY_RAFT_PORT_BASE + i)) $((TRIBUTARY_KAFKA_PORT_BASE + i))
  done
  TDATA=$(mktemp -d /tmp/bench-side-by-side-tributary$n.XXXXXX)
  setsid ./tributary start --brokers "$n" --data "$TDATA" > "$WORK/tributary-start-$n.log" 2>&1 < /dev/null &
  local g=$!; GROUPS_STARTED+=("$g")
  wait "$g" || { tail -20 "$WORK/tributary-start-$n.log" >&2; die "Tributary did not start (log above)"; }
  TPIDS=$(cat "$TDATA"/broker-*.pid | tr '\n' ' ')
  TBOOT=$(tributary_bootstrap "$n")
  echo "tributary: $n broker(s) ready, pids $TPIDS"
}

# bootstrap topic rf [partitions]: create (if absent) with TopicCommand and wait until every partition has a
# leader and a full ISR
kafka_topic() {
  local boot=$1 topic=$2 rf=$3 parts=${4:-$PARTITIONS} extra=() out=$WORK/topic.out
  [ "$rf" = 1 ] || extra=(--config min.insync.replicas=2)
  for _ in $(seq 1 10); do
    run_tool "$out" "$ANCHOR" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$boot" --create \
      --if-not-exists --topic "$topic" --partitions "$parts" --replication-factor "$rf" ${extra[@]+"${extra[@]}"} && break
    sleep 1
  done
  for _ in $(seq 1 60); do
    run_tool "$out" "$ANCHOR" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$boot" --describe \
      --topic "$topic" || true
    # "Topic: t Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2,3 ..." once per partition
    if [ "$(awk -v rf="$rf" '/Partition:/ { l=""; isr="";
          for (i=1;i<NF;i++) { if ($i=="Leader:") l=$(i+1); if ($i=="Isr:") isr=$(i+1) }
          if (l ~ /^[0-9]+$/ && split(isr, x, ",") == rf) ok++ } END { print ok+0 }' "$out")" = "$parts" ]; then
      return 0
    fi
    sleep 1
  done
  cat "$out" >&2; die "topic $topic at $boot has no leader or a short ISR after 60 s"
}

start_kafka() { # $1 = nodes; sets KPIDS, KBOOT
  local n=$1 i
  if [ "$n" = 1 ]; then require_ports 9092 9093; else
    for i in 1 2 3; do require_ports "9${i}92" "9${i}93"; done; fi
  # `kafka-anchor start` stops whatever cluster its directory holds: never someone else's.
  for i in "$KAFKA_ANCHOR_DIR"/cluster/node*/pid; do
    [ -f "$i" ] && kill -0 "$(cat "$i")" 2>/dev/null && die "a kafka-anchor cluster from $KAFKA_ANCHOR_DIR is running" \
      "(pid $(cat "$i")); stop it, or give this script another KAFKA_ANCHOR_DIR"
  done
  setsid "$ANCHOR" start "$n" > "$WORK/kafka-start-$n.log" 2>&1 < /dev/null &
  local g=$!; GROUPS_STARTED+=("$g"); KAFKA_UP=1
  wait "$g" || { cat "$WORK/kafka-start-$n.log" >&2; die "Kafka did not start (log above)"; }
  KPIDS=$(cat "$KAFKA_ANCHOR_DIR"/cluster/node*/pid | tr '\n' ' ')
  KBOOT=$("$ANCHOR" bootstrap)
  # A node registers a moment after "Kafka Server started": the warm-up topic's full ISR proves all are in.
  kafka_topic "$KBOOT" warmup "$n"
  echo "kafka: $n node(s) ready, pids $KPIDS"
}

idle_note() { # what each cluster burns doing nothing, over 5 s (it runs beside the other's measurement)
  local b a
  b=$(ticks $TPIDS); a=$(ticks $KPIDS); sleep 5
  echo "idle (5 s): tributary $(awk -v x="${b% *}" -v y="$(ticks $TPIDS)" -v hz="$HZ" 'BEGIN{split(y, f, " "); printf "%.2f", (f[1]-x)/hz/5}') cores," \
    "kafka $(awk -v x="${a% *}" -v y="$(ticks $KPIDS)" -v hz="$HZ" 'BEGIN{split(y, f, " "); printf "%.2f", (f[1]-x)/hz/5}') cores"
}

# Odd runs Tributary first, even runs Kafka first.
order() { if [ $(($1 % 2)) = 1 ]; then echo "tributary kafka"; else echo "kafka tributary"; fi; }

# ---------------------------------------------------------------------------------------------- summary

summary() {
  [ -s "$RESULTS" ] || return 0
  echo
  echo "== summary: medians and best of N (rate: highest; CPU: lowest) per scenario; ratio = Tributary / Kafka"
  awk '
    function sortn(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t } }
    function median(a, n) { sortn(a, n); return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
    function ratio(x, y) { return (y > 0 && x != "") ? sprintf("%.2f", x / y) : "-" }
    { k = $1 SUBSEP $2; n[k]++; rate[k, n[k]] = $4; cpu[k, n[k]] = $5; jit[k, n[k]] = $6; p99[k, n[k]] = $7
      if (!($1 in seen)) { seen[$1]; sc[++ns] = $1 } }
    END {
      printf "%-11s %-10s %4s %14s %14s %16s %16s %12s %12s\n", "scenario", "system", "runs", "rate median", "rate best",
        "cpu-s/M median", "cpu-s/M best", "jit median", "p99 ms med"
      for (s = 1; s <= ns; s++) {
        for (q = 1; q <= 2; q++) {
          sys = q == 1 ? "tributary" : "kafka"; k = sc[s] SUBSEP sys; m = n[k]
          if (!m) { printf "%-11s %-10s %4d\n", sc[s], sys, 0; continue }
          delete r; delete c; delete jj; delete pp; best = 0; low = 1e18; np = 0
          for (i = 1; i <= m; i++) { r[i] = rate[k, i]; c[i] = cpu[k, i]; jj[i] = jit[k, i]; if (r[i] > best) best = r[i]; if (c[i] < low) low = c[i]
            if (p99[k, i] ~ /^[0-9.]+$/) pp[++np] = p99[k, i] }
          mr[sys] = median(r, m); mc[sys] = median(c, m); br[sys] = best; bc[sys] = low; mp[sys] = np ? median(pp, np) : ""
          printf "%-11s %-10s %4d %14.0f %14.0f %16.2f %16.2f %12.2f %12s\n", sc[s], sys, m, mr[sys], best, mc[sys], low,
            median(jj, m), np ? sprintf("%.0f", mp[sys]) : "-"
        }
        if (n[sc[s] SUBSEP "tributary"] && n[sc[s] SUBSEP "kafka"])
          printf "%-11s %-10s %4s %14s %14s %16s %16s %12s %12s\n", sc[s], "ratio T/K", "", ratio(mr["tributary"], mr["kafka"]),
            ratio(br["tributary"], br["kafka"]), ratio(mc["tributary"], mc["kafka"]), ratio(bc["tributary"], bc["kafka"]), "",
            ratio(mp["tributary"], mp["kafka"])
        delete mr; delete mc; delete br; delete bc; delete mp
      }
    }' "$RESULTS"
}
