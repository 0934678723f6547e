#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on (bash's /dev/tcp, no extra tools).
# It is picked below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999
# by default): a port in that range may be the local end of an outgoing connection, or of one
# in TIME_WAIT after a test that churned connections, and then a listener cannot bind it
# even with SO_REUSEADDR (memcached failed to start five times in a row right after the soak
# test that way). The caller must still handle losing a race for it (retry when the bind fails).
low=32768 high=60999
read -r low high </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
if [ "$low" -gt 11000 ]; then first=10000 last=$(( low - 1 ))           # below the range
elif [ "$high" -lt 64000 ]; then first=$(( high + 1 )) last=65000      # a low range: above it
else first=10000 last=65000; fi                                          # no port is safe: any
for _ in $(seq 1 200); do
  port=$(( first + RANDOM % (last - first + 1) ))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "$port"; exit 0
  fi
done
echo "free-port: no free port found in $first-$last" >&2
exit 1
