# A cluster of separate hosts on one machine (sourced by ./tributary, not run): `start --hosts` puts broker N in a
# Linux network namespace of its own, with its own address on a bridge, as if each broker were a machine on a LAN;
# `isolate` and `heal` cut and restore its links with nftables. Needs root, iproute2 (`ip`) and nftables (`nft`).
#
# Everything made here is named from a tag of the data directory, recorded in DIR/hosts.conf before it is made,
# and removed by name only (never by pattern):
#   namespace trib-TAG-N   (broker N's "host"; its eth0 has SUBNET.N)
#   bridge    trbTAG       (the LAN; the root namespace, where clients and your browser run, is SUBNET.254)
#   veth      trvTAG-N     (broker N's cable into the bridge; the other end is eth0 in its namespace)
#   nft table inet tributary in each namespace: a guard that drops anything bound outside the subnet (the
#             namespaces have no default route either), and the input/output chains `isolate` fills.
# Faults drop packets, never refuse them: a refused connection tells the controller a broker is dead
# (docs/adr/0010-failure-detection.md), which is not what a cut cable says.

HOSTS_DEFAULT_SUBNET=198.18.0.0/24   # RFC 2544's benchmarking range: never routed on the internet
HOSTS_CLIENT_SUFFIX=254

hosts_file() { echo "$DATA/hosts.conf"; }
hosts_get() { [ -f "$(hosts_file)" ] && sed -n "s/^$1=//p" "$(hosts_file)" | tail -1 || true; }
hosts_on() { [ -f "$(hosts_file)" ]; }
hosts_tag() { printf '%s' "$DATA" | sha256sum | cut -c1-6; }
hosts_ns() { echo "trib-$(hosts_get TAG)-$1"; }
hosts_ip() { echo "$(hosts_get PREFIX).$1"; }

# The host broker $1 listens on and advertises: its namespace's address on a hosts cluster, else loopback.
host_of() {
  local h; h=$(conf_get "$1" HOST)
  echo "${h:-127.0.0.1}"
}
# `ip netns exec NS` for a broker in a namespace (its commands and sockets live there), else nothing.
netns_of() { conf_get "$1" NETNS; }

hosts_require() {
  [ "$(id -u)" = 0 ] || die "--hosts needs root (it creates network namespaces, a bridge and nftables rules)"
  command -v ip >/dev/null 2>&1 || die "--hosts needs iproute2's 'ip' (apt-get install iproute2)"
  command -v nft >/dev/null 2>&1 || die "--hosts needs nftables' 'nft' (apt-get install nftables)"
}

# Checks SUBNET (a.b.c.0/24) and prints its prefix a.b.c; refuses one this machine already routes or uses.
hosts_prefix_of() {
  local subnet=$1 prefix
  [[ "$subnet" =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.0/24$ ]] ||
    die "--subnet must be an IPv4 /24 written a.b.c.0/24 (default $HOSTS_DEFAULT_SUBNET), not '$subnet'"
  local o
  for o in "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"; do
    [ "$o" -le 255 ] || die "--subnet $subnet is not an IPv4 network"
  done
  prefix=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}
  case "$prefix" in 127.*|0.*) die "--subnet $subnet is reserved; pick another /24";; esac
  if ip -4 -o addr show | awk '{print $4}' | grep -q "^$prefix\." ||
    ip -4 route show | awk '{print $1}' | grep -q "^$prefix\.0/24$"; then
    die "--subnet $subnet is already used on this machine (ip -4 addr / ip -4 route); pick another with --subnet"
  fi
  echo "$prefix"
}

# Records the hosts cluster (once, at the first `start --hosts`): later starts and restarts reuse it.
hosts_record() { # $1 = subnet
  local prefix; prefix=$(hosts_prefix_of "$1")
  umask 077
  printf 'TAG=%s\nSUBNET=%s\nPREFIX=%s\nBRIDGE=trb%s\n' "$(hosts_tag)" "$1" "$prefix" "$(hosts_tag)" > "$(hosts_file)"
}

# Makes the bridge and broker $2..'s namespaces that are missing (after `stop`, or a reboot). Idempotent.
hosts_up() { # $@ = broker ids
  hosts_require
  local bridge prefix n ns veth
  bridge=$(hosts_get BRIDGE); prefix=$(hosts_get PREFIX)
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge || die "could not create the bridge $bridge"
    ip addr add "$prefix.$HOSTS_CLIENT_SUFFIX/24" dev "$bridge"
    ip link set "$bridge" up
  fi
  for n in "$@"; do
    ns=$(hosts_ns "$n"); veth="trv$(hosts_get TAG)-$n"
    ip netns list | awk '{print $1}' | grep -qx "$ns" && continue
    ip netns add "$ns" || die "could not create the network namespace $ns"
    ip link add "$veth" type veth peer name "trp$(hosts_get TAG)-$n" netns "$ns" ||
      die "could not create the veth pair $veth"
    ip link set "$veth" master "$bridge" up
    ip -n "$ns" link set "trp$(hosts_get TAG)-$n" name eth0
    ip -n "$ns" addr add "$prefix.$n/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 >/dev/null 2>&1 || true
    ip netns exec "$ns" nft -f - <<EOF || die "could not install the nftables rules in $ns"
table inet tributary {
  chain guard { type filter hook output priority -10; policy accept; oifname "eth0" ip daddr != $prefix.0/24 drop; }
  chain input { type filter hook input priority 0; policy accept; }
  chain output { type filter hook output priority 0; policy accept; }
}
EOF
  done
}

# Removes every namespace, veth and the bridge this cluster made, by name; a namespace that still holds a process
# (a broker that would not stop) is reported and kept.
hosts_down() {
  hosts_on || return 0
  local n ns pids rc=0 tag; tag=$(hosts_get TAG)
  for n in $(known_brokers); do
    ns=$(hosts_ns "$n")
    ip netns list | awk '{print $1}' | grep -qx "$ns" || continue
    pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
    if [ -n "$pids" ]; then
      echo "network namespace $ns still holds processes ($pids); kept" >&2; rc=1; continue
    fi
    ip netns del "$ns"
    ip link del "trv$tag-$n" 2>/dev/null || true
  done
  [ "$rc" = 0 ] || return 1
  ip link del "$(hosts_get BRIDGE)" 2>/dev/null || true
  note "hosts: removed the namespaces trib-$tag-N and the bridge $(hosts_get BRIDGE)"
}

# `isolate ID [--from ID,ID]`: drops every packet between broker ID and everyone (clients and your browser too),
# or only between it and the brokers named, in both directions and in both namespaces.
cmd_isolate() {
  hosts_on || die "isolate works on a cluster started with '$PROG start --hosts'"
  hosts_require
  local id="" from="" usage="usage: $PROG isolate ID [--from ID,ID,...]"
  while [ $# -gt 0 ]; do
    case "$1" in
      --from) [ $# -ge 2 ] || die "$usage"; from=$2; shift 2;;
      --from=*) from=${1#*=}; shift;;
      [1-9]) [ -z "$id" ] || die "$usage"; id=$1; shift;;
      *) die "$usage";;
    esac
  done
  [ -n "$id" ] || die "$usage"
  [ -f "$(conf_file "$id")" ] || die "no broker $id in $DATA"
  local ns; ns=$(hosts_ns "$id")
  if [ -z "$from" ]; then
    ip netns exec "$ns" nft add rule inet tributary input iifname "eth0" drop
    ip netns exec "$ns" nft add rule inet tributary output oifname "eth0" drop
    note "$(date +%T.%3N) broker $id ($(hosts_ip "$id")): cut off from every broker and client ('$PROG heal' restores it)"
    return
  fi
  [[ "$from" =~ ^[1-9](,[1-9])*$ ]] || die "--from takes broker ids separated by commas, e.g. --from 2,3"
  local peer peers=()
  for peer in ${from//,/ }; do
    [ "$peer" != "$id" ] || die "broker $id cannot be cut off from itself"
    [ -f "$(conf_file "$peer")" ] || die "no broker $peer in $DATA"
    peers+=("$peer")
  done
  for peer in "${peers[@]}"; do
    hosts_drop_between "$id" "$peer"
    hosts_drop_between "$peer" "$id"
  done
  note "$(date +%T.%3N) broker $id ($(hosts_ip "$id")): cut off from broker(s) $from; clients still reach it" \
    "('$PROG heal' restores it)"
}

hosts_drop_between() { # $1 = the namespace's broker, $2 = the peer whose packets it drops
  local ns ip; ns=$(hosts_ns "$1"); ip=$(hosts_ip "$2")
  ip netns exec "$ns" nft add rule inet tributary input ip saddr "$ip" drop
  ip netns exec "$ns" nft add rule inet tributary output ip daddr "$ip" drop
}

# `heal`: every link of the cluster restored (the guard stays).
cmd_heal() {
  hosts_on || die "heal works on a cluster started with '$PROG start --hosts'"
  hosts_require
  hosts_heal_all
  note "$(date +%T.%3N) every link healed"
}

hosts_heal_all() {
  local n ns
  for n in $(known_brokers); do
    ns=$(hosts_ns "$n")
    ip netns list | awk '{print $1}' | grep -qx "$ns" || continue
    ip netns exec "$ns" nft flush chain inet tributary input
    ip netns exec "$ns" nft flush chain inet tributary output
  done
}

# What `status` adds on a hosts cluster: which links are cut.
hosts_status() {
  hosts_on || return 0
  local n ns rules
  echo "hosts: subnet $(hosts_get SUBNET) on bridge $(hosts_get BRIDGE); clients at $(hosts_ip "$HOSTS_CLIENT_SUFFIX")"
  for n in $(known_brokers); do
    ns=$(hosts_ns "$n")
    ip netns list | awk '{print $1}' | grep -qx "$ns" || { echo "  broker $n: no namespace (stopped)"; continue; }
    rules=$(ip netns exec "$ns" nft list chain inet tributary input 2>/dev/null | grep -c drop || true)
    if [ "${rules:-0}" -gt 0 ]; then echo "  broker $n ($ns): $rules link(s) cut"; else echo "  broker $n ($ns): all links up"; fi
  done
}
