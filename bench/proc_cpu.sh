# Sourced by bench scripts. CPU time of processes from /proc/PID/stat, in microseconds.
# utime+stime are fields 14 and 15, in clock ticks (USER_HZ, usually 100/s): fine over
# a run of seconds, useless per request.
hz=$(getconf CLK_TCK)
cpu_us() {  # cpu_us PID... -> total user+system CPU of those processes, µs
  local total=0 p f
  for p in "$@"; do
    f=$(cut -d')' -f2- "/proc/$p/stat" 2>/dev/null) || continue
    set -- $f
    # after "pid (comm)": field 3 is state, so utime/stime are words 12 and 13
    total=$(( total + ${12} + ${13} ))
  done
  echo $(( total * 1000000 / hz ))
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
