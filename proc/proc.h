#pragma once
// hitcost::proc — what /proc says about this machine and its processes, for the CPU
// accounting of both programs: per-CPU times (/proc/stat), a process's CPU and identity
// (/proc/PID/stat, /proc/PID/status) and the machine's identity (boot id).
//
// Units: seconds (from USER_HZ ticks, 10 ms here) unless a name says otherwise. /proc/stat's
// per-CPU figures come from the scheduler tick (250 Hz on this kernel): over a 1 s window a
// CPU's busy time is known to about ±4 ms, and its softirq share to a few ticks.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hitcost::proc {

// One line of /proc/stat ("cpu" or "cpuN"), in seconds. guest/guest_nice are already in
// user/nice, so they are not kept apart.
struct CpuTimes {
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  // Work done on the CPU by anyone (processes, interrupts, softirqs), steal excluded.
  double busy() const noexcept { return user + nice + system + irq + softirq; }
  CpuTimes minus(const CpuTimes& base) const noexcept;
};

struct MachineCpu {
  CpuTimes all;
  std::vector<std::optional<CpuTimes>> cpus;  // by CPU number; nullopt for an absent CPU
  MachineCpu minus(const MachineCpu& base) const;
  // Sum over the listed CPUs (absent ones count 0).
  CpuTimes over(const std::vector<int>& cpu_numbers) const;
};
std::optional<MachineCpu> read_machine_cpu();
std::optional<MachineCpu> parse_machine_cpu(std::string_view proc_stat_text, double ticks_per_s);

// "0,1,4-7" → {0,1,4,5,6,7} (the kernel's cpu-list format, as in Cpus_allowed_list);
// nullopt when malformed or empty. CPU numbers 0..1023.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);
std::string format_cpu_list(const std::vector<int>& cpus);  // {0,1,2,5} → "0-2,5"
std::vector<int> online_cpus();                             // /sys/devices/system/cpu/online

// Why a --cpus list cannot be honoured, for both programs' start-up checks: nullopt when a
// thread can be pinned to every listed CPU. Otherwise one sentence that names the offending
// CPUs and the usable ones: "CPU 7 is not online (online: 0-1)", or, for an online CPU outside
// the process's cgroup cpuset (docker --cpuset-cpus), "CPU 3 is online but this process may
// not run there (it may run on 0-1; ...)". Tries each listed CPU with sched_setaffinity on the
// calling thread and puts its mask back; a narrower mask (taskset) is no obstacle, since a
// thread may widen its own mask within its cpuset.
std::optional<std::string> cpus_not_online_error(const std::vector<int>& cpus);
// The same with the online list and the pinning trial given, for tests.
std::optional<std::string> cpus_not_online_error(const std::vector<int>& cpus, const std::vector<int>& online,
                                                 const std::function<bool(int)>& can_pin);

// This kernel's boot id: the same for every process of one machine (containers included),
// different on another machine. Empty when unreadable.
std::string boot_id();
// This machine's name as the kernel has it (gethostname: in a container or a pod, the pod's
// name). Empty when unreadable.
std::string hostname();

struct ProcessInfo {
  std::string comm;               // the process's name
  double cpu_s = 0;               // user + system, all threads
  uint64_t start_ticks = 0;       // start time since boot, in clock ticks: with the pid, an identity
  std::vector<int> allowed_cpus;  // Cpus_allowed_list
};
// nullopt when the process is not visible here (another machine, another pid namespace, gone).
std::optional<ProcessInfo> read_process(int64_t pid);

// Every process on the machine and the CPU it has used, at one instant (/proc/PID/stat):
// for telling other work on the machine from the kernel's own. Kernel threads (ksoftirqd,
// kworker: PF_KTHREAD) are kept apart from processes of users.
struct ProcessCensus {
  struct Entry {
    uint64_t start_ticks = 0;  // with the pid, an identity (pids are reused)
    double cpu_s = 0;          // utime + stime, all threads
    double children_s = 0;     // cutime + cstime: reaped children
    bool kernel_thread = false;
  };
  std::vector<std::pair<int64_t, Entry>> by_pid;  // sorted by pid
};
ProcessCensus read_process_census();
// CPU used between two censuses, seconds: by user processes and by kernel threads. A process
// alive at both counts its difference; one born since counts all it used; one reaped since is
// in its parent's children time (counted whole: what it used before `before` too, a small
// over-count of short-lived processes' start).
struct CensusCpu {
  double user_s = 0, kernel_threads_s = 0;
  size_t processes = 0;  // seen in `after`
};
CensusCpu census_cpu(const ProcessCensus& before, const ProcessCensus& after);
// Parses one /proc/PID/stat line into an entry; nullopt when malformed. For tests.
std::optional<ProcessCensus::Entry> parse_census_entry(std::string_view stat_line, double ticks_per_s);

// The process's CPU time in ns: sum_exec_runtime of each of its live threads
// (/proc/PID/task/*/schedstat). Scheduler-precise where /proc/PID/stat counts 10 ms ticks,
// but a thread that has exited is no longer in it: for processes whose threads live as
// long as they do (php-fpm and nginx workers). nullopt without schedstat or when gone.
std::optional<uint64_t> read_runtime_ns(int64_t pid);

// `root` and every process descended from it, as /proc shows them now (root first; empty
// when root is gone). A snapshot: children forked or reaped after it are not in it.
std::vector<int64_t> process_tree(int64_t root);
// The same for several roots from one pass over /proc (roots that are gone are skipped).
std::vector<int64_t> process_trees(const std::vector<int64_t>& roots);

}  // namespace hitcost::proc
