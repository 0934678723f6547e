# shellcheck shell=bash disable=SC2034,SC2016  # (variables set for the scripts that source it; code in quotes for sh and perl)
# scripts/netns.sh — hosts that are not loopback, on one machine: a network namespace per host,
# each with one link to a private switch, and that link's delay, loss and rate; faults on a
# link (cut, delay, heal) during a run. Sourced after scripts/lib.sh and lib_init.
#
#   netns_check               root, ip, perl, taskset and /dev/net/tun; returns EXIT_FAILED
#                             with a message naming what is missing
#   netns_init DIR            this run's prefix NETNS_PREFIX=hc<pid> (every namespace is
#                             PREFIX-NAME, so parallel runs and leftovers are told apart), the
#                             switch namespace PREFIX-sw and its switch (scripts/netns-switch.pl,
#                             a service); DIR keeps its control FIFO, log and placement.txt.
#                             Registers netns_cleanup with at_cleanup: Ctrl-C, errors and
#                             --time-limit all remove what the run made
#   netns_shape RTT LOSS RATE every link, now and later: RTT the round trip between any two
#                             hosts (200us, 1ms, 0), LOSS per link and direction (0.1%, 0.001, 0),
#                             RATE per link and direction (1gbit, 100mbit, 0 = unlimited)
#   netns_host NAME           namespace PREFIX-NAME with lo up and eth0, its link to the switch,
#                             address 198.18.0.N/24 (N = 1, 2, ... in order), MTU $NETNS_MTU (9000:
#                             jumbo frames, a third of 1500's frames through the switch); sets
#                             NETNS_ADDR
#   netns_addr NAME           prints NAME's address
#   netns_start KIND NAME CPUS PROGRAM ARGS...   PROGRAM in NAME's namespace (ip netns exec),
#                             pinned to CPUS (taskset; "" = not pinned); KIND service or client
#                             (lib.sh's start_service or start_bg; redirect the call); sets
#                             BG_PID and appends "NAME pid CPUS-allowed PROGRAM" to placement.txt
#   netns_cpus server|other INDEX   the CPUs for a process: the server alone on the last CPU
#                             this script may use (when it may use two or more), the others in
#                             turn on the rest; "" (not pinned) when NETNS_PIN=0
#   netns_wait_tcp NAME ADDR:PORT [TIMEOUT_S]    until a connection from NAME's namespace opens
#   netns_http NAME METHOD URL [DATA] [MAX_S]    lib.sh's http_get/http_post from NAME's
#                             namespace (admin routes from the server's own loopback)
#   netns_fault cut|delay|heal NAME [EXTRA]      cut: every packet to or from NAME dropped (100 %
#                             loss, both directions); delay EXTRA (5ms): EXTRA added to every
#                             round trip with NAME; heal: the run's own shaping back. Appends
#                             "UNIX_S VERB NAME EXTRA" (the script's clock) to NETNS_FAULTS_FILE
#                             when it is set
#   netns_rtt FROM TO [COUNT] ICMP echo FROM → TO (Perl's Net::Ping): sets NETNS_RTT_MIN_US and
#                             NETNS_RTT_MEDIAN_US
#   netns_counters FILE       the switch's counters per port (rx, tx, drops by reason) into FILE
#   netns_topology_start NODES CLIENTS BUILD_DIR SERVER_THREADS LOG_DIR
#                             scripts/topology.sh --netns's hosts: mc1..mcN each with a memcached
#                             (ADDR:11211), server with hitcost-server (--host 0.0.0.0 --port
#                             8080), c1..cK for the clients; pinned by netns_cpus (server "server
#                             0", node I "other I-1", client C "other NODES+C-1"). Sets NETNS_URL
#                             (the clients' base URL), NETNS_ADMIN_URL (the server's own loopback:
#                             use with netns_http server), NETNS_NODES (ADDR:PORT each)
#   netns_nodes_table ADDR:PORT...   lib.sh's memcached_nodes_table, asked from the server's host
#   netns_compare NETNS_JSON LOOPBACK_JSON   per strategy, median over repeats: server CPU per
#                             hit and closed-loop p50/p99, netns beside loopback, with the ratios
#   netns_cleanup             stops what was started, deletes every namespace of the run (their
#                             links go with them) and reports anything left
#   netns_leftovers           prints how many namespaces named PREFIX-* remain
#
# The links: the host's own network namespace gets no interface, address or route. Each host's
# eth0 is a TAP device whose other end is the switch process, in a namespace of its own; the
# switch delays, drops and paces every frame (scripts/netns-switch.pl says why in user space:
# this kernel, like CI's, has no sch_netem). A packet between two hosts crosses two links
# (sender → switch → receiver), and a round trip four link traversals: each link's one-way delay
# is RTT/4.
# The addresses: 198.18.0.0/15 is the range RFC 2544 sets aside for benchmarking network
# devices (IANA's special-purpose registry, RFC 6890: not forwardable on the Internet). No real
# network this machine may be on uses it, unlike 10/8, 172.16/12 or 192.168/16 (Docker's
# bridge, VPNs, the office), and the documentation ranges (192.0.2/24 ...) are for examples in
# text. The namespaces are private anyway; a clash could only confuse someone reading them.

NETNS_PREFIX=""
NETNS_DIR=""
NETNS_HOSTS=()            # names, in creation order (host N has 198.18.0.N)
NETNS_CREATED=()          # every namespace this run made (deleted by netns_cleanup)
declare -A NETNS_PORT=()  # host name → its switch port
declare -A NETNS_ADDRS=() # host name → address
NETNS_SWITCH_PID=""
NETNS_LINK_DELAY_US=0     # per link, one way (RTT/4)
NETNS_LINK_LOSS=0         # per link and direction, a fraction
NETNS_LINK_RATE_BPS=0     # per link and direction, 0 = unlimited
NETNS_FAULTS_FILE=""

netns_check() {
  local missing=() t
  [ "$(id -u)" -eq 0 ] || missing+=("root (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN)")
  for t in ip perl taskset; do
    command -v "$t" >/dev/null || missing+=("$t ($([ "$t" = ip ] && echo "apt-get install iproute2" || echo "apt-get install ${t/taskset/util-linux}"))")
  done
  [ -c /dev/net/tun ] || missing+=("/dev/net/tun (a kernel with CONFIG_TUN)")
  perl -MTime::HiRes -MNet::Ping -e 1 2>/dev/null || missing+=("Perl's Time::HiRes and Net::Ping (apt-get install perl)")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "$LIB_NAME: --netns needs: ${missing[*]}" >&2
    return "$EXIT_FAILED"
  fi
  # A namespace can be made at all (a container without CAP_SYS_ADMIN cannot).
  local probe="hc$$-probe"
  if ! ip netns add "$probe" 2>"${TMPDIR:-/tmp}/$probe.err"; then
    echo "$LIB_NAME: --netns: cannot create a network namespace: $(cat "${TMPDIR:-/tmp}/$probe.err")" >&2
    rm -f "${TMPDIR:-/tmp}/$probe.err"
    return "$EXIT_FAILED"
  fi
  ip netns del "$probe"
  rm -f "${TMPDIR:-/tmp}/$probe.err"
}

# _netns_us VALUE: a duration (200us, 1.5ms, 2s, 0) in whole µs; fails on anything else.
_netns_us() {
  [[ $1 =~ ^([0-9]+(\.[0-9]+)?)(us|ms|s)?$ ]] || return 1
  awk -v v="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]:-us}" \
    'BEGIN { m = (u == "s") ? 1e6 : (u == "ms") ? 1e3 : 1; printf "%d", v * m + 0.5 }'
}

# _netns_fraction VALUE: 0.1% or 0.001 → 0.001; fails outside 0..1.
_netns_fraction() {
  [[ $1 =~ ^([0-9]+(\.[0-9]+)?)(%)?$ ]] || return 1
  awk -v v="${BASH_REMATCH[1]}" -v pct="${BASH_REMATCH[3]}" \
    'BEGIN { f = (pct == "%") ? v / 100 : v; if (f > 1) exit 1; printf "%.6g", f }'
}

# _netns_bps VALUE: 1gbit, 100mbit, 500kbit, 1000bit or a plain number of bits/s.
_netns_bps() {
  [[ $1 =~ ^([0-9]+(\.[0-9]+)?)([kmg]?)(bit)?$ ]] || return 1
  awk -v v="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" \
    'BEGIN { m = (u == "g") ? 1e9 : (u == "m") ? 1e6 : (u == "k") ? 1e3 : 1; printf "%d", v * m }'
}

# netns_parse_shape RTT LOSS RATE: checks the three values (EXIT_USAGE with the option named).
netns_parse_shape() {
  local rtt_us loss bps
  rtt_us=$(_netns_us "$1") || { echo "$LIB_NAME: --rtt '$1' is not a duration (200us, 1ms, 0)" >&2; return "$EXIT_USAGE"; }
  loss=$(_netns_fraction "$2") || { echo "$LIB_NAME: --loss '$2' is not a loss (0.1%, 0.001, 0)" >&2; return "$EXIT_USAGE"; }
  bps=$(_netns_bps "$3") || { echo "$LIB_NAME: --rate '$3' is not a rate (1gbit, 100mbit, 0 = unlimited)" >&2; return "$EXIT_USAGE"; }
  NETNS_LINK_DELAY_US=$(( (rtt_us + 2) / 4 )) NETNS_LINK_LOSS=$loss NETNS_LINK_RATE_BPS=$bps
}

_netns_control() {
  local fifo=$NETNS_DIR/switch.control
  pid_alive "$NETNS_SWITCH_PID" || { echo "$LIB_NAME: the netns switch is not running (see $NETNS_DIR/switch.log)" >&2; return "$EXIT_FAILED"; }
  # The switch holds the FIFO open for reading: the open and the write do not block (a bound
  # all the same, should it be gone between the check and the write).
  timeout 2 sh -c 'printf "%s\n" "$1" >"$2"' _ "$*" "$fifo"
}

netns_init() {
  NETNS_DIR=$1
  NETNS_PREFIX="hc$$"
  mkdir -p "$NETNS_DIR" || return "$EXIT_OUTPUT"
  : >"$NETNS_DIR/placement.txt"
  at_cleanup netns_cleanup
  local sw=$NETNS_PREFIX-sw fifo=$NETNS_DIR/switch.control
  rm -f "$fifo"
  mkfifo "$fifo" || return "$EXIT_FAILED"
  NETNS_CREATED+=("$sw")
  ip netns add "$sw" || return "$EXIT_FAILED"
  ip -n "$sw" link set lo up
  start_service ip netns exec "$sw" perl "$LIB_ROOT/scripts/netns-switch.pl" "$fifo" >"$NETNS_DIR/switch.log" 2>&1 ||
    return "$EXIT_FAILED"
  NETNS_SWITCH_PID=$BG_PID
  local i
  for i in $(seq 1 100); do
    grep -q 'ready' "$NETNS_DIR/switch.log" 2>/dev/null && break
    pid_alive "$NETNS_SWITCH_PID" || break
    sleep 0.05
  done
  if ! grep -q 'ready' "$NETNS_DIR/switch.log" 2>/dev/null; then
    echo "$LIB_NAME: the netns switch did not start:" >&2
    cat "$NETNS_DIR/switch.log" >&2
    return "$EXIT_FAILED"
  fi
  echo "$sw - - switch $NETNS_SWITCH_PID" >>"$NETNS_DIR/placement.txt"
}

netns_shape() {
  netns_parse_shape "$1" "$2" "$3" || return
  local h
  for h in ${NETNS_HOSTS[@]+"${NETNS_HOSTS[@]}"}; do _netns_link "$h" 0 0 || return; done
}

# _netns_link NAME EXTRA_DELAY_US CUT: NAME's link as shaped, plus EXTRA per direction.
_netns_link() {
  _netns_control "link ${NETNS_PORT[$1]} $((NETNS_LINK_DELAY_US + $2)) $NETNS_LINK_LOSS $NETNS_LINK_RATE_BPS $3"
}

netns_host() {
  local name=$1 n ns port i
  n=$(( ${#NETNS_HOSTS[@]} + 1 ))
  [ "$n" -le 254 ] || { echo "$LIB_NAME: at most 254 hosts" >&2; return "$EXIT_USAGE"; }
  ns=$NETNS_PREFIX-$name port=p$n
  NETNS_CREATED+=("$ns")
  ip netns add "$ns" || return "$EXIT_FAILED"
  ip -n "$ns" link set lo up
  # Router solicitations and DAD would be the only other traffic on the links: IPv4 only.
  ip netns exec "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6; echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6' 2>/dev/null
  _netns_control "add $port" || return
  for i in $(seq 1 100); do
    ip -n "$NETNS_PREFIX-sw" link show "$port" >/dev/null 2>&1 && break
    sleep 0.02
  done
  ip -n "$NETNS_PREFIX-sw" link set "$port" netns "$ns" || { echo "$LIB_NAME: the switch made no port $port (see $NETNS_DIR/switch.log)" >&2; return "$EXIT_FAILED"; }
  ip -n "$ns" link set "$port" name eth0 &&
    ip -n "$ns" link set eth0 mtu "${NETNS_MTU:-9000}" &&
    ip -n "$ns" addr add "198.18.0.$n/24" dev eth0 &&
    ip -n "$ns" link set eth0 up || return "$EXIT_FAILED"
  NETNS_HOSTS+=("$name")
  NETNS_PORT[$name]=$port
  NETNS_ADDRS[$name]=198.18.0.$n
  NETNS_ADDR=198.18.0.$n
  _netns_link "$name" 0 0
}

netns_addr() { echo "${NETNS_ADDRS[$1]}"; }

netns_start() {
  local kind=$1 name=$2 cpus=$3 pin=() allowed
  shift 3
  [ -n "${NETNS_ADDRS[$name]:-}" ] || { echo "$LIB_NAME: no netns host '$name'" >&2; return "$EXIT_FAILED"; }
  [ -z "$cpus" ] || pin=(taskset -c "$cpus")
  if [ "$kind" = service ]; then
    start_service ip netns exec "$NETNS_PREFIX-$name" ${pin[@]+"${pin[@]}"} "$@" || return
  else
    start_bg ip netns exec "$NETNS_PREFIX-$name" ${pin[@]+"${pin[@]}"} "$@" || return
  fi
  # What the kernel allows it, read back once it has exec'd past ip and taskset.
  local exe i
  for i in $(seq 1 50); do
    exe=$(readlink "/proc/$BG_PID/exe" 2>/dev/null) || break
    [ "${exe##*/}" = "${1##*/}" ] && break
    sleep 0.01
  done
  allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$BG_PID/status" 2>/dev/null)
  echo "$NETNS_PREFIX-$name $BG_PID ${allowed:-?} ${1##*/}" >>"$NETNS_DIR/placement.txt"
}

netns_cpus() {
  [ "${NETNS_PIN:-1}" != 0 ] || return 0
  local allowed cpus=() n
  allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
  mapfile -t cpus < <(_lib_cpus "$allowed")
  n=${#cpus[@]}
  if [ "$n" -lt 2 ]; then echo "${cpus[0]:-}"
  elif [ "$1" = server ]; then echo "${cpus[n - 1]}"
  else echo "${cpus[$2 % (n - 1)]}"
  fi
}

netns_wait_tcp() {
  local name=$1 addr=$2 timeout_s=${3:-10} deadline
  deadline=$(( ${EPOCHREALTIME//[!0-9]/} + timeout_s * 1000000 ))
  until ip netns exec "$NETNS_PREFIX-$name" bash -c "exec 3<>/dev/tcp/${addr%:*}/${addr##*:}" 2>/dev/null; do
    if [ "${EPOCHREALTIME//[!0-9]/}" -ge "$deadline" ]; then
      echo "$LIB_NAME: nothing answers on $addr from $NETNS_PREFIX-$name within $timeout_s s" >&2
      return "$EXIT_FAILED"
    fi
    sleep 0.05
  done
}

# The calls of lib.sh's http_get/http_post, from NAME's namespace: a curl there answers the
# script through a file in the script's directory (the namespace shares the file system).
netns_http() {
  local name=$1 method=$2 url=$3 data=${4:-} max_s=${5:-10} dir code=0 args path
  dir=$NETNS_DIR/http
  mkdir -p "$dir"
  HTTP_BODY_FILE=$dir/body
  args=(-sS --max-time "$max_s" -o "$HTTP_BODY_FILE" -w '%{http_code}')
  [ "$method" = POST ] && args+=(-X POST --data "$data")
  path=/${url#*://*/}
  run_bg ip netns exec "$NETNS_PREFIX-$name" curl "${args[@]}" "$url" >"$dir/status" 2>"$dir/curl-error" || code=$?
  HTTP_STATUS=$(cat "$dir/status" 2>/dev/null)
  HTTP_BODY=$(cat "$HTTP_BODY_FILE" 2>/dev/null)
  if [ "$code" != 0 ] || [ "${HTTP_STATUS:-000}" = 000 ]; then
    echo "$LIB_NAME: $method $path (from $NETNS_PREFIX-$name): no answer ($(tr '\n' ' ' <"$dir/curl-error"))" >&2
    return "$EXIT_FAILED"
  fi
  if [[ $HTTP_STATUS != 2?? ]]; then
    echo "$LIB_NAME: $method $path → $HTTP_STATUS: $(head -c 500 "$HTTP_BODY_FILE" | head -5)" >&2
    [ "$HTTP_STATUS" = 400 ] && return "$EXIT_USAGE"
    return "$EXIT_FAILED"
  fi
}

netns_fault() {
  local verb=$1 name=$2 extra=${3:-} extra_us=0
  [ -n "${NETNS_PORT[$name]:-}" ] || { echo "$LIB_NAME: no netns host '$name'" >&2; return "$EXIT_FAILED"; }
  case $verb in
    cut) _netns_link "$name" 0 1 ;;
    delay)
      extra_us=$(_netns_us "$extra") || { echo "$LIB_NAME: delay '$extra' is not a duration" >&2; return "$EXIT_USAGE"; }
      _netns_link "$name" $((extra_us / 2)) 0 ;;  # half each way: the round trip grows by EXTRA
    heal) _netns_link "$name" 0 0 ;;
    *) echo "$LIB_NAME: netns_fault: cut, delay or heal, not '$verb'" >&2; return "$EXIT_USAGE" ;;
  esac || return
  [ -z "$NETNS_FAULTS_FILE" ] || echo "$EPOCHREALTIME $verb $name ${extra:--}" >>"$NETNS_FAULTS_FILE"
}

netns_rtt() {
  local from=$1 to=${NETNS_ADDRS[$2]:-$2} count=${3:-20} out
  out=$(ip netns exec "$NETNS_PREFIX-$from" perl -MNet::Ping -e '
    my ($to, $n) = @ARGV;
    my $p = Net::Ping->new("icmp", 1);
    $p->hires(1);
    my @rtt;
    for (1 .. $n) { my ($ok, $s) = $p->ping($to); push @rtt, $s * 1e6 if $ok; }
    exit 1 unless @rtt;
    @rtt = sort { $a <=> $b } @rtt;
    printf "%d %d %d\n", $rtt[0], $rtt[int(@rtt / 2)], scalar @rtt;' "$to" "$count") || {
    echo "$LIB_NAME: no ICMP echo from $NETNS_PREFIX-$from to $to" >&2
    return "$EXIT_FAILED"
  }
  read -r NETNS_RTT_MIN_US NETNS_RTT_MEDIAN_US NETNS_RTT_ANSWERED <<<"$out"
}

netns_counters() {
  _netns_control "dump $1" || return
  for _ in $(seq 1 100); do [ -s "$1" ] && return 0; sleep 0.02; done
  return "$EXIT_FAILED"
}

netns_topology_start() {
  local nodes=$1 clients=$2 build=$3 threads=$4 logs=$5 i c cpus mc_user=()
  [ "$(id -u)" -eq 0 ] && mc_user=(-u root)
  NETNS_NODES=()
  for i in $(seq 1 "$nodes"); do
    netns_host "mc$i" || return
    NETNS_NODES+=("$NETNS_ADDR:11211")
  done
  netns_host server || return
  NETNS_URL=http://$NETNS_ADDR:8080 NETNS_ADMIN_URL=http://127.0.0.1:8080
  for c in $(seq 1 "$clients"); do netns_host "c$c" || return; done
  for i in $(seq 1 "$nodes"); do
    netns_start service "mc$i" "$(netns_cpus other $((i - 1)))" memcached -l "$(netns_addr "mc$i")" -p 11211 -U 0 \
      -m 256 -t 1 ${mc_user[@]+"${mc_user[@]}"} >>"$logs/memcached-netns-$i.log" 2>&1 || return
  done
  for i in "${NETNS_NODES[@]}"; do netns_wait_tcp server "$i" || return; done
  cpus=$(netns_cpus server 0)
  netns_start service server "$cpus" "$build/server/hitcost-server" --host 0.0.0.0 --port 8080 --threads "$threads" \
    ${cpus:+--cpus "$cpus"} --store "memcached:$(IFS=,; echo "${NETNS_NODES[*]}")" --strategy html \
    >"$logs/server-netns.log" 2>&1 || return
  wait_listening "$logs/server-netns.log" "$BG_PID" || return
  for c in $(seq 1 "$clients"); do netns_wait_tcp "c$c" "${NETNS_URL#http://}" || return; done
}

netns_nodes_table() {
  ip netns exec "$NETNS_PREFIX-server" bash -c 'source "$0/scripts/lib.sh" && memcached_nodes_table "$@"' "$LIB_ROOT" "$@"
}

netns_compare() {
  jq -r -n --slurpfile n "$1" --slurpfile l "$2" '
    def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
                       else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def by_strategy($runs): $runs | group_by(.strategy) | map({key: .[0].strategy, value: {
        hit: (map(.server_cpu_us_per_hit // empty) | median), p50: (map(.latency_us.p50 // empty) | median),
        p99: (map(.latency_us.p99 // empty) | median), errors: (map(.errors.total) | add), runs: length}}) | from_entries;
    def f(x; d): if x == null then "-" else (x * pow(10; d) | round / pow(10; d) | tostring) end;
    def ratio(a; b): if a == null or b == null or b == 0 then "-" else "\(f(a / b; 2))x" end;
    by_strategy($n[0].runs) as $N | by_strategy($l[0].runs) as $L |
    (["strategy", "runs", "errors", "srv_us/hit netns", "loopback", "ratio", "p50us netns", "loopback", "ratio",
      "p99us netns", "loopback", "ratio"] | @tsv),
    ($N | keys_unsorted[] as $s | $N[$s] as $a | ($L[$s] // {}) as $b |
      [$s, "\($a.runs)+\($b.runs // 0)", "\($a.errors)+\($b.errors // "-")", f($a.hit; 2), f($b.hit; 2), ratio($a.hit; $b.hit),
       f($a.p50; 1), f($b.p50; 1), ratio($a.p50; $b.p50), f($a.p99; 1), f($b.p99; 1), ratio($a.p99; $b.p99)] | @tsv)'
}

netns_leftovers() {
  local n=0 name
  while read -r name _; do [[ $name == "$NETNS_PREFIX"-* ]] && n=$((n + 1)); done < <(ip netns list 2>/dev/null)
  echo "$n"
}

netns_cleanup() {
  [ -n "$NETNS_PREFIX" ] || return 0
  # The processes first (a namespace lives on while one runs in it), then the namespaces; each
  # TAP device goes with its namespace, or with the switch that holds its file descriptor.
  stop_started
  local ns left
  for ns in ${NETNS_CREATED[@]+"${NETNS_CREATED[@]}"}; do ip netns del "$ns" 2>/dev/null; done
  left=$(netns_leftovers)
  if [ "$left" != 0 ]; then
    echo "$LIB_NAME: warning: $left network namespaces named $NETNS_PREFIX-* are left: $(ip netns list | grep "^$NETNS_PREFIX-" | tr '\n' ' ')" >&2
  fi
  NETNS_CREATED=()
}
