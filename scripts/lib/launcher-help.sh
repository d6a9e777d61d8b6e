# The launcher's texts (sourced by ./tributary, not run): usage in English (the default), usage_zh in
# Simplified Chinese, help, which chooses, and print_welcome, what `start` prints once the brokers are ready. Kafka's terms (ISR, HW, acks, replica.lag.time.max.ms) stay as they
# are in Chinese.

usage() {
  cat <<EOF
Usage: $PROG COMMAND [ARGS] [--data DIR]

  start [--brokers N] [--racks R1,R2,...] [--secure] [--data DIR]
                                     build if needed, start the brokers (on existing data if any),
                                     wait until ready, print URLs and examples (default 3 brokers);
                                     --racks gives broker N the Nth rack (broker.rack), one per broker:
                                     new topics then put each partition's replicas on distinct racks
  start --hosts [--subnet CIDR] [--brokers N]
                                     (root) the same cluster on separate hosts: broker N in a network namespace
                                     of its own at SUBNET.N on a bridge (default 198.18.0.0/24), reached from
                                     here at SUBNET.254; the data directory remembers it
  start ID                           restart one stopped broker on its data, with its settings
  stop [ID]                          SIGTERM one broker (or all), wait for it to exit; stopping all brokers of
                                     a hosts cluster removes its namespaces and bridge too
  kill ID                            SIGKILL one broker, to simulate a crash
  pause ID / resume ID               SIGSTOP / SIGCONT one broker: the whole process freezes, misses its
                                     heartbeats and is fenced after its broker session
                                     (tributary.broker-session-timeout-ms, 3000 ms): the controller takes it out
                                     of every ISR and replaces it as leader; resumed, it rejoins and catches up
  pause-fetching ID [SECONDS]        stop only broker ID's replica fetcher for SECONDS (default 30, 1..600; 1
                                     ends a longer pause early): it stays registered and keeps leading, but as a
                                     follower it leaves the ISR once not caught up for replica.lag.time.max.ms
                                     (5000 ms here), then catches up and returns
  skew ID [(+|-)DURATION]            offset broker ID's wall clock (DURATION like +5m, -90s, +1h, or 0 to put it
                                     right; at most one day), as on a host whose clock is wrong or is stepped;
                                     its monotonic clock runs on, so ISR lag, sessions and timeouts are unmoved,
                                     while record timestamps and retention follow its wall clock. Without
                                     DURATION, print the skew. Needs the dashboard's fault actions (start sets them)
  slow-disk ID [MS]                  make every log write and fsync of broker ID take MS ms longer (0..10000; 0
                                     heals), as on a saturated or failing disk: as a follower it makes acks=all
                                     wait about MS ms longer, and leaves the ISR when MS passes
                                     replica.lag.time.max.ms (5000 here), returning once healed; as a leader it
                                     slows acks=all produces, losing nothing. Without MS, print the delay.
                                     Needs the dashboard's fault actions (start sets them)
  isolate ID [--from ID,ID]          (hosts cluster) drop every packet between broker ID and everyone, clients
                                     included, or only the brokers named (clients still reach it); the
                                     controller fences it once its session expires
  heal                               (hosts cluster) restore every link
  status                             id, pid, alive/dead, host, port and readiness of every known broker
  logs ID [--no-follow]              follow (or print the end of) a broker's log
  trace TOPIC [--acks all|1|0] [--partition P] [--broker ID]
                                     send one record and print each step of its life as its leader
                                     measured it: appended, each follower's fetch, the HW passing it,
                                     the producer's answer (default acks=all, partition 0; any running
                                     broker takes it and passes it to the leader)
  reassign TOPIC PARTITION BROKER,BROKER,... [--throttle BYTES_PER_S] [--no-wait] [--timeout SECONDS] [--broker ID]
                                     move a partition's replicas (KIP-455) and watch: the new replicas copy
                                     the log outside the ISR and join it, then the old ones leave (if the
                                     leader leaves, an in-sync target replica leads); prints each change and
                                     the time it took (default timeout 300 s; --no-wait returns at once);
                                     --throttle caps the copy (KIP-73 replication throttles, removed when done)
  reassign TOPIC PARTITION --cancel  cancel a move: back to the replicas it started from
  reassignments [TOPIC] [--broker ID]
                                     list the moves in progress, of every topic or of TOPIC (any running broker
                                     answers these two, unless --broker ID picks one)
  balance [--dry-run] [--exclude ID,ID] [--max-moves N] [--throttle BYTES_PER_S] [--timeout SECONDS] [--broker ID]
                                     print the broker's plan to even out replicas and preferred leaders (one
                                     line per move, 'orders-2: [1,2] → [4,2]', then each broker before → after);
                                     unless --dry-run, carry it out as reassignments, at most N at a time, and
                                     print the progress until done (default timeout 600 s); --exclude empties
                                     those brokers; --throttle copies under KIP-73 replication throttles,
                                     removed at the end. The broker asked (--broker) runs it: Ctrl-C only stops watching
  add-broker [--rack RACK] [--balance] [--timeout SECONDS]
                                     start the next broker (4, then 5, ...) on the running cluster: it follows
                                     the metadata quorum without voting (Kafka's broker-only role), registers
                                     and holds no partitions (on rack RACK, if given); --balance then moves
                                     an even share onto it
  decommission ID [--timeout SECONDS]
                                     balance with --exclude ID, check that no partition has a replica left on
                                     broker ID, stop it (SIGTERM) and unregister it (the cluster no longer lists
                                     it); refuses, and leaves it running, if a replica cannot move
  bench produce|consume [ARGS]       run the load generator; \`$PROG bench produce --help\` lists ARGS
  demo [NAME] [--auto] [--lang zh|en]
                                     guided demos: without NAME, list them; with NAME, explain one idea step
                                     by step, make it happen on this cluster, check the outcome (exit 1 if a
                                     claim fails) and say what to look at on the dashboard (docs/demos.md)
  chaos [--network] [--minutes N] [--seed S]
                                     run the randomized replication chaos test (ReplicationChaosIT) for N
                                     minutes (default 3): SIGKILL, SIGSTOP and SIGTERM of random brokers
                                     under acks=all load, then every produce checked; seed S replays it.
                                     --network: brokers on separate hosts (network namespaces, needs root)
                                     and network faults too: partitions, one-way and lossy links
  help [--lang zh|en]                this text (in Chinese with --lang zh, or when LANG / LC_ALL starts with zh)

Broker N listens on 127.0.0.1:808N (see TRIBUTARY_PORT_BASE), or SUBNET.N:808N with --hosts. The data directory is ./data unless --data DIR or
TRIBUTARY_DATA is given; give the same one to every command.

Environment:
  TRIBUTARY_JAVA_OPTS        broker JVM flags (default: $DEFAULT_JAVA_OPTS)
  TRIBUTARY_BENCH_JAVA_OPTS  load generator JVM flags (default: -Xms256m -Xmx1g -XX:+UseG1GC -XX:TieredStopAtLevel=1)
  TRIBUTARY_DEMO_JAVA_OPTS   guided demos' JVM flags (default: -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1)
  TRIBUTARY_JAR              run this jar, never build
  TRIBUTARY_BUILD_DIR        Maven build directory, passed as -Dbuild.dir (default: ./target)
  TRIBUTARY_MVN_ARGS         extra Maven arguments for the build, e.g. -o
  TRIBUTARY_START_TIMEOUT    seconds to wait for readiness (default 120)
  TRIBUTARY_STOP_TIMEOUT     seconds to wait for a stopped broker to exit (default 30)
  TRIBUTARY_PORT_BASE        broker N listens on TRIBUTARY_PORT_BASE+N (default 8080)
  TRIBUTARY_REPLICA_LAG_MS   replica.lag.time.max.ms for the demo cluster (default 5000)
EOF
}

usage_zh() {
  cat <<EOF
用法：$PROG 命令 [参数] [--data 目录]

  start [--brokers N] [--racks R1,R2,...] [--secure] [--data 目录]
                                     需要时先构建，启动各 broker（已有数据则在其上启动），等待就绪，
                                     打印地址和示例（默认 3 个 broker）；--racks 为第 N 个 broker 指定第 N 个
                                     机架（broker.rack），每个 broker 一个：之后新建的主题会把每个分区的副本
                                     放在不同的机架上
  start --hosts [--subnet 网段] [--brokers N]
                                     （需 root）同样的集群，但各在独立的"主机"上：broker N 在自己的网络命名空间里，
                                     地址为 网段.N，经网桥相连（默认 198.18.0.0/24），本机从 网段.254 访问；
                                     数据目录会记住这一点
  start ID                           用原来的数据和设置重启一个已停止的 broker
  stop [ID]                          向一个（或全部）broker 发送 SIGTERM，等待其退出；停止 hosts 集群的全部
                                     broker 时也删除其命名空间和网桥
  kill ID                            向一个 broker 发送 SIGKILL，模拟崩溃
  pause ID / resume ID               对一个 broker 发送 SIGSTOP / SIGCONT：整个进程冻结，停发心跳，在其 broker
                                     会话超时（tributary.broker-session-timeout-ms，3000 ms）后被隔离（fenced）：
                                     controller 把它移出所有 ISR，并替换它担任的 leader；恢复后它重新加入并追上
  pause-fetching ID [秒数]           只停止 broker ID 的副本拉取（默认 30 秒，1..600；1 可提前结束更长的暂停）：
                                     它仍然注册、仍然担任 leader，但作为 follower 一旦超过 replica.lag.time.max.ms
                                     （这里是 5000 ms）没有追上就离开 ISR，之后追上并重新加入
  skew ID [(+|-)时长]                让 broker ID 的挂钟（wall clock）偏移（时长如 +5m、-90s、+1h，0 表示校正；最多一天），
                                     如同一台时钟不准或被跳调的主机；它的单调时钟照常走，所以 ISR 滞后、会话和超时
                                     不受影响，而消息时间戳和保留策略跟随它的挂钟。不带时长时打印当前偏移。需要仪表盘的
                                     故障操作（start 会打开）
  slow-disk ID [毫秒]                让 broker ID 的每次日志写入和 fsync 都多花这么多毫秒（0..10000，0 表示恢复），如同
                                     一块饱和或将坏的磁盘：作为 follower 它让 acks=all 多等约这么久；延迟超过
                                     replica.lag.time.max.ms（此处 5000）时离开 ISR，恢复后追上并重新加入；作为 leader
                                     它让 acks=all 的写入变慢，但不丢数据。
                                     不带毫秒数时打印当前延迟。需要仪表盘的故障操作（start 会打开）
  isolate ID [--from ID,ID]          （hosts 集群）丢弃 broker ID 与所有人（包括客户端）之间的全部数据包，或只切断
                                     与所列 broker 之间的（客户端仍能访问它）；其会话超时后 controller 将其隔离（fence）
  heal                               （hosts 集群）恢复所有链路
  status                             列出每个已知 broker 的 id、pid、存活与否、主机、端口和就绪状态
  logs ID [--no-follow]              跟踪（或打印末尾）一个 broker 的日志
  trace TOPIC [--acks all|1|0] [--partition P] [--broker ID]
                                     发送一条消息，按其 leader 的测量打印它的每一步：追加、每个 follower 的拉取、
                                     HW 越过它、对生产者的应答（默认 acks=all、分区 0）
  reassign TOPIC PARTITION BROKER,BROKER,... [--throttle 字节每秒] [--no-wait] [--timeout 秒数] [--broker ID]
                                     迁移一个分区的副本（KIP-455）并观察：新副本在 ISR 之外复制日志、追上后加入 ISR，
                                     然后旧副本离开（leader 离开时由一个同步的目标副本接任）；每次变化打印一行，最后
                                     打印耗时（默认超时 300 秒；--no-wait 提交后立即返回）；--throttle 限制复制速率
                                     （KIP-73 复制限流，完成后移除）
  reassign TOPIC PARTITION --cancel  取消迁移：回到迁移开始前的副本
  reassignments [TOPIC] [--broker ID]
                                     列出正在进行的迁移（所有主题的，或 TOPIC 的）；这两个命令由任一运行中的
                                     broker 应答，--broker ID 可指定
  balance [--dry-run] [--exclude ID,ID] [--max-moves N] [--throttle 字节每秒] [--timeout 秒数] [--broker ID]
                                     打印 broker 给出的均衡计划：让副本和首选 leader 在各 broker 间分布均匀（每个
                                     迁移一行，如 'orders-2: [1,2] → [4,2]'，然后是每个 broker 的前 → 后）；不带
                                     --dry-run 时以迁移（reassignment）执行，最多同时 N 个，并打印进度直到完成
                                     （默认超时 600 秒）；--exclude 清空所列 broker；--throttle 在 KIP-73 复制限流下
                                     复制，结束时移除。由被请求的 broker（--broker）
                                     执行：Ctrl-C 只停止观察
  add-broker [--rack 机架] [--balance] [--timeout 秒数]
                                     在运行中的集群上启动下一个 broker（4、5……）：它跟随元数据仲裁但不投票
                                     （即 Kafka 的纯 broker 角色），注册后不持有任何分区（给出 --rack 时位于该
                                     机架）；加 --balance 则随后
                                     把均衡的一份副本迁到它上面
  decommission ID [--timeout 秒数]
                                     以 --exclude ID 运行 balance，确认没有分区在 broker ID 上还有副本，然后停止它
                                     （SIGTERM）并注销（集群不再列出它）；若有副本无法迁走则拒绝，broker 保持运行
  bench produce|consume [参数]       运行压测工具；\`$PROG bench produce --help\` 列出参数。produce 把每个分区的
                                     批次直接发给其 leader；请求失败后重新查找 leader，负载随故障转移继续
  demo [名称] [--auto] [--lang zh|en]
                                     引导式演示：不带名称时列出所有演示；带名称时逐步讲解一个概念，在本集群上
                                     实际运行，检查结果（有断言不成立时退出码为 1），并指出仪表盘上该看什么
                                     （docs/demos.md）
  chaos [--network] [--minutes N] [--seed S]
                                     运行随机化的复制混沌测试（ReplicationChaosIT）N 分钟（默认 3）；
                                     --network：broker 位于各自的主机（网络命名空间，需要 root），并加入网络
                                     故障：分区、单向链路和丢包链路
  help [--lang zh|en]                本说明（--lang zh，或 LANG / LC_ALL 以 zh 开头时为中文）

broker N 监听 127.0.0.1:808N（见 TRIBUTARY_PORT_BASE），使用 --hosts 时为 网段.N:808N。数据目录默认为 ./data，可用 --data 目录 或
TRIBUTARY_DATA 指定；每个命令都要给同一个目录。环境变量见英文帮助（$PROG help --lang en）。
EOF
}

# Prints the help in the language asked: --lang zh|en among the arguments, else LC_ALL, LC_MESSAGES or LANG
# (the first set) starting with zh; else English.
help() {
  local lang="" a prev=""
  for a in "$@"; do
    case "$a" in --lang=*) lang=${a#--lang=};; esac
    [ "$prev" = --lang ] && lang=$a
    prev=$a
  done
  if [ -z "$lang" ]; then
    lang=${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}
  fi
  case "$lang" in zh*|ZH*) usage_zh;; *) usage;; esac
}

# The start banner: every broker's addresses, then examples to try.
print_welcome() {
  local brokers=${1:-1} base="http://$(host_of 1):$(port_of 1)" cid n h
  local auth=()
  [ -z "${AUTH_TOKEN:-}" ] || auth=(-H "Authorization: Bearer $AUTH_TOKEN")
  cid=$(curl -s --max-time 2 "${auth[@]}" "$base/v3/clusters" 2>/dev/null |
    sed -n 's/.*"cluster_id" *: *"\([^"]*\)".*/\1/p' | head -1) || true
  [ -n "$cid" ] || cid='$(curl -s '"$base"'/v3/clusters | sed -n '"'"'s/.*"cluster_id":"\([^"]*\)".*/\1/p'"'"')'
  echo
  for n in $(seq 1 "$brokers"); do
    h=$(host_of "$n")
    echo "Broker $n:  http://$h:$(port_of "$n")/   (dashboard and API; Kafka protocol on $h:$(kafka_port_of "$n"); metadata quorum on $h:$(raft_port_of "$n"))"
  done
  echo
  echo "Kafka clients: --bootstrap-server $(bootstrap_of "$brokers")"
  cat <<EOF

Every broker answers for the whole cluster; produce and read requests are forwarded to the partition's leader.
EOF
  if [ -n "${AUTH_TOKEN:-}" ]; then
    cat <<EOF
Client authentication is on. Your admin API key (a super user) is in $DATA/admin-api-key; every call needs it:
  export TOKEN=\$(cat $DATA/admin-api-key)      # then add  -H "Authorization: Bearer \$TOKEN"  to each curl below
Sign in to the dashboard with key id 'admin' and the part after 'admin.' as the secret.
EOF
  fi
  cat <<EOF

Try:
  # produce two JSON records to partition 0 of topic demo
  curl -s -X POST -H 'Content-Type: application/vnd.kafka.json.v2+json' \\
    --data '{"records":[{"key":"k1","value":{"hello":"world"},"partition":0},{"value":[1,2,3],"partition":0}]}' \\
    '$base/topics/demo?acks=all'
  # read them back from partition 0 (waits up to 1 s for records if there are none yet)
  curl -s '$base/topics/demo/partitions/0/records?offset=0&timeout=1000'
  # list topics, then describe demo's partitions (leader, epoch, replicas, ISR)
  curl -s $base/topics
  curl -s $base/v3/clusters/$cid/topics/demo/partitions

  # each replica's log end offset, lag and ISR membership, as the partition's leader sees it
  curl -s $base/v3/clusters/$cid/topics/demo/partitions/0/replicas

  # the same topic with Kafka's own clients and tools (kcat, kafka-console-consumer, kafka-clients ...)
  echo 'hello from kcat' | kcat -P -b $(host_of 1):$(kafka_port_of 1) -t demo -p 0
  kcat -C -b $(host_of 1):$(kafka_port_of 1) -t demo -p 0 -o beginning -e

Stop with '$PROG stop'; crash a broker with '$PROG kill 2' and bring it back with '$PROG start 2';
stop only broker 3's replica fetching with '$PROG pause-fetching 3' (it stays registered; as a follower it
leaves the ISR after replica.lag.time.max.ms, ${DEMO_LAG_MS} ms, then catches up and returns); freeze the whole
process with '$PROG pause 3' and '$PROG resume 3' (it misses its heartbeats and is fenced after its 3 s broker
session: out of every ISR, and replaced where it led); watch leaders, ISRs and the controller move on the
dashboard; load test with '$PROG bench produce'.
Guided demos, each explained step by step and checked on this cluster: '$PROG demo' lists them,
'$PROG demo isr' runs one ('--lang zh' in Chinese, '--auto' without pauses).
EOF
  if hosts_on; then
    cat <<EOF
These brokers are separate hosts: cut one off with '$PROG isolate 2' (from everyone) or
'$PROG isolate 1 --from 2,3' (from its peers, while clients still reach it), and restore with '$PROG heal'.
EOF
  fi
}
