#include "proc/proc.h"

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

namespace hitcost::proc {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
double ticks_per_second() { return double(::sysconf(_SC_CLK_TCK)); }

// CpuTimes's fields in /proc/stat's column order: the parser, minus and over walk this list.
constexpr double CpuTimes::*kCpuFields[] = {&CpuTimes::user,   &CpuTimes::nice, &CpuTimes::system,  &CpuTimes::idle,
                                            &CpuTimes::iowait, &CpuTimes::irq,  &CpuTimes::softirq, &CpuTimes::steal};
static_assert(sizeof(CpuTimes) == sizeof(double) * std::size(kCpuFields), "a CpuTimes field is not in kCpuFields");
}  // namespace

CpuTimes CpuTimes::minus(const CpuTimes& b) const noexcept {
  CpuTimes d;
  for (double CpuTimes::*f : kCpuFields) d.*f = this->*f - b.*f;
  return d;
}

MachineCpu MachineCpu::minus(const MachineCpu& base) const {
  MachineCpu d;
  d.all = all.minus(base.all);
  d.cpus.resize(cpus.size());
  for (size_t i = 0; i < cpus.size(); ++i)
    if (cpus[i] && i < base.cpus.size() && base.cpus[i]) d.cpus[i] = cpus[i]->minus(*base.cpus[i]);
  return d;
}

CpuTimes MachineCpu::over(const std::vector<int>& numbers) const {
  CpuTimes s;
  for (int n : numbers) {
    if (n < 0 || size_t(n) >= cpus.size() || !cpus[size_t(n)]) continue;
    const CpuTimes& c = *cpus[size_t(n)];
    for (double CpuTimes::*f : kCpuFields) s.*f += c.*f;
  }
  return s;
}

std::optional<MachineCpu> parse_machine_cpu(std::string_view text, double hz) {
  MachineCpu m;
  bool have_all = false;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0) break;  // the cpu lines come first
    std::istringstream l(line);
    std::string label;
    l >> label;
    CpuTimes t;
    for (double CpuTimes::*f : kCpuFields) {
      unsigned long long ticks = 0;
      l >> ticks;
      t.*f = double(ticks) / hz;
    }
    if (!l) return std::nullopt;
    if (label == "cpu") {
      m.all = t;
      have_all = true;
      continue;
    }
    int n = -1;
    auto [p, ec] = std::from_chars(label.data() + 3, label.data() + label.size(), n);
    if (ec != std::errc() || p != label.data() + label.size() || n < 0 || n >= 1024) return std::nullopt;
    if (m.cpus.size() <= size_t(n)) m.cpus.resize(size_t(n) + 1);
    m.cpus[size_t(n)] = t;
  }
  if (!have_all) return std::nullopt;
  return m;
}

std::optional<MachineCpu> read_machine_cpu() { return parse_machine_cpu(slurp("/proc/stat"), ticks_per_second()); }

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
    while (!item.empty() && blank(item.front())) item.remove_prefix(1);
    while (!item.empty() && blank(item.back())) item.remove_suffix(1);
    if (item.empty()) continue;
    const size_t dash = item.find('-');
    const std::string_view first = item.substr(0, dash);
    int a = 0, b = 0;
    auto [p, ec] = std::from_chars(first.data(), first.data() + first.size(), a);
    if (ec != std::errc() || p != first.data() + first.size() || a < 0 || a >= 1024) return std::nullopt;
    b = a;
    if (dash != std::string_view::npos) {
      const std::string_view second = item.substr(dash + 1);
      auto [q, ec2] = std::from_chars(second.data(), second.data() + second.size(), b);
      if (ec2 != std::errc() || q != second.data() + second.size() || b < a || b >= 1024) return std::nullopt;
    }
    for (int c = a; c <= b; ++c) cpus.push_back(c);
  }
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus[i]);
    if (j > i) {
      s += '-';
      s += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return s;
}

std::vector<int> online_cpus() {
  auto cpus = parse_cpu_list(slurp("/sys/devices/system/cpu/online"));
  if (cpus) return *cpus;
  std::vector<int> all;
  for (long i = 0; i < ::sysconf(_SC_NPROCESSORS_ONLN); ++i) all.push_back(int(i));
  return all;
}

namespace {
// The listed CPUs not in `pool`, sorted and without repeats, as a cpu-list ("" when none).
// Negative numbers are kept apart because format_cpu_list would join -1 and 0 into a range.
std::string missing_from(std::vector<int> cpus, std::vector<int> pool, size_t& count) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::sort(pool.begin(), pool.end());
  std::vector<int> missing, negative;
  for (int c : cpus) {
    if (c < 0)
      negative.push_back(c);
    else if (!std::binary_search(pool.begin(), pool.end(), c))
      missing.push_back(c);
  }
  count = negative.size() + missing.size();
  std::string s;
  // Appended apart: GCC 12's -Wrestrict false positive on "," + std::string&&.
  for (int c : negative) {
    if (!s.empty()) s += ',';
    s += std::to_string(c);
  }
  if (!missing.empty()) {
    if (!s.empty()) s += ',';
    s += format_cpu_list(missing);
  }
  return s;
}
std::string sorted_list(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus.empty() ? "none" : format_cpu_list(cpus);
}
}  // namespace

std::optional<std::string> cpus_not_online_error(const std::vector<int>& cpus, const std::vector<int>& online,
                                                 const std::function<bool(int)>& can_pin) {
  size_t count = 0;
  std::string offline = missing_from(cpus, online, count);
  if (count > 0) {
    return std::string(count == 1 ? "CPU " : "CPUs ") + offline + (count == 1 ? " is" : " are") +
           " not online (online: " + sorted_list(online) + ")";
  }
  std::vector<int> refused, usable;
  for (int c : cpus)
    if (!can_pin(c)) refused.push_back(c);
  if (refused.empty()) return std::nullopt;
  for (int c : online)  // the list for the message: only on the way to an error
    if (can_pin(c)) usable.push_back(c);
  std::sort(refused.begin(), refused.end());
  refused.erase(std::unique(refused.begin(), refused.end()), refused.end());
  return std::string(refused.size() == 1 ? "CPU " : "CPUs ") + format_cpu_list(refused) +
         (refused.size() == 1 ? " is" : " are") + " online but this process may not run there (it may run on " +
         sorted_list(usable) + "; a cgroup cpuset, e.g. docker --cpuset-cpus, sets that)";
}

std::optional<std::string> cpus_not_online_error(const std::vector<int>& cpus) {
  // Tried on the calling thread and put back: the kernel's answer is the only complete one
  // (cgroup v1 or v2 cpusets, isolated CPUs). A narrower affinity mask (taskset) is no
  // obstacle: a thread may widen its own mask within its cpuset.
  cpu_set_t saved;
  CPU_ZERO(&saved);
  const bool have_saved = ::sched_getaffinity(0, sizeof saved, &saved) == 0;
  auto can_pin = [&](int cpu) {
    if (!have_saved) return true;  // cannot put the mask back: do not try, do not refuse
    if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    const bool ok = ::sched_setaffinity(0, sizeof one, &one) == 0;
    ::sched_setaffinity(0, sizeof saved, &saved);
    return ok;
  };
  return cpus_not_online_error(cpus, online_cpus(), can_pin);
}

std::string boot_id() {
  std::string id = slurp("/proc/sys/kernel/random/boot_id");
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

std::string hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::optional<ProcessInfo> read_process(int64_t pid) {
  if (pid <= 0) return std::nullopt;
  const std::string base = "/proc/" + std::to_string(pid);
  const std::string stat = slurp(base + "/stat");
  // "pid (comm) state ppid ..." — comm may hold spaces and parentheses: split at the last ')'.
  const size_t open = stat.find('('), close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcessInfo p;
  p.comm = stat.substr(open + 1, close - open - 1);
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  // Fields from 3 (state) on; utime and stime are 14 and 15, starttime 22.
  unsigned long long utime = 0, stime = 0, start = 0;
  for (int k = 3; k <= 22 && rest >> field; ++k) {
    if (k == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (k == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
    if (k == 22) start = std::strtoull(field.c_str(), nullptr, 10);
  }
  if (start == 0) return std::nullopt;
  p.cpu_s = double(utime + stime) / ticks_per_second();
  p.start_ticks = start;
  const std::string status = slurp(base + "/status");
  const size_t at = status.find("Cpus_allowed_list:");
  if (at != std::string::npos) {
    const size_t from = at + 18, eol = status.find('\n', from);
    if (auto c = parse_cpu_list(std::string_view(status).substr(from, eol - from))) p.allowed_cpus = *c;
  }
  return p;
}

namespace {

// Numeric entries of a /proc directory (pids in /proc, tids in /proc/PID/task).
std::vector<int64_t> numeric_entries(const std::string& dir) {
  std::vector<int64_t> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    int64_t n = 0;
    const char* end = e->d_name + std::char_traits<char>::length(e->d_name);
    auto r = std::from_chars(e->d_name, end, n);
    if (r.ec == std::errc() && r.ptr == end && n > 0) out.push_back(n);
  }
  ::closedir(d);
  return out;
}

// Field 4 of /proc/PID/stat; 0 when unreadable.
int64_t parent_of(int64_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string state;
  int64_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

}  // namespace

std::optional<ProcessCensus::Entry> parse_census_entry(std::string_view stat, double ticks_per_s) {
  // "pid (comm) state ppid ..." — split at the last ')': comm may hold anything.
  const size_t close = stat.rfind(')');
  if (close == std::string_view::npos || close + 2 >= stat.size()) return std::nullopt;
  std::istringstream rest{std::string(stat.substr(close + 2))};
  std::string field;
  // Fields from 3 (state): flags 9, utime 14, stime 15, cutime 16, cstime 17, starttime 22.
  unsigned long long flags = 0, utime = 0, stime = 0, cutime = 0, cstime = 0, start = 0;
  int k = 3;
  for (; k <= 22 && rest >> field; ++k) {
    const unsigned long long v = std::strtoull(field.c_str(), nullptr, 10);
    if (k == 9) flags = v;
    if (k == 14) utime = v;
    if (k == 15) stime = v;
    if (k == 16) cutime = v;
    if (k == 17) cstime = v;
    if (k == 22) start = v;
  }
  if (k <= 22) return std::nullopt;
  constexpr unsigned long long kPfKthread = 0x00200000;  // include/linux/sched.h
  ProcessCensus::Entry e;
  e.start_ticks = start;
  e.cpu_s = double(utime + stime) / ticks_per_s;
  e.children_s = double(cutime + cstime) / ticks_per_s;
  e.kernel_thread = (flags & kPfKthread) != 0;
  return e;
}

ProcessCensus read_process_census() {
  ProcessCensus c;
  const double hz = ticks_per_second();
  std::vector<int64_t> pids = numeric_entries("/proc");
  std::sort(pids.begin(), pids.end());
  for (int64_t pid : pids) {
    const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    if (auto e = parse_census_entry(stat, hz)) c.by_pid.emplace_back(pid, *e);  // gone meanwhile: skipped
  }
  return c;
}

CensusCpu census_cpu(const ProcessCensus& before, const ProcessCensus& after) {
  CensusCpu out;
  auto b = before.by_pid.begin();
  for (const auto& [pid, e] : after.by_pid) {
    while (b != before.by_pid.end() && b->first < pid) ++b;
    const bool same = b != before.by_pid.end() && b->first == pid && b->second.start_ticks == e.start_ticks;
    const double used =
        same ? std::max(0.0, e.cpu_s - b->second.cpu_s) + std::max(0.0, e.children_s - b->second.children_s)
             : e.cpu_s + e.children_s;
    (e.kernel_thread ? out.kernel_threads_s : out.user_s) += used;
    ++out.processes;
  }
  return out;
}

std::optional<uint64_t> read_runtime_ns(int64_t pid) {
  if (pid <= 0) return std::nullopt;
  const std::string base = "/proc/" + std::to_string(pid) + "/task/";
  const std::vector<int64_t> tids = numeric_entries(base);
  if (tids.empty()) return std::nullopt;
  uint64_t total = 0;
  for (int64_t tid : tids) {
    const std::string text = slurp(base + std::to_string(tid) + "/schedstat");
    uint64_t ns = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), ns);
    if (r.ec != std::errc()) {
      if (text.empty()) continue;  // the thread exited between the listing and the read
      return std::nullopt;
    }
    total += ns;
  }
  return total;
}

std::vector<int64_t> process_trees(const std::vector<int64_t>& roots) {
  std::vector<int64_t> tree;
  for (int64_t root : roots) {
    if (root > 0 && read_process(root)) tree.push_back(root);
  }
  if (tree.empty()) return tree;
  std::vector<std::pair<int64_t, int64_t>> parent;  // (pid, ppid) of every process now
  for (int64_t pid : numeric_entries("/proc")) parent.emplace_back(pid, parent_of(pid));
  for (size_t i = 0; i < tree.size(); ++i) {  // breadth first: each found pid's children
    for (const auto& [pid, ppid] : parent) {
      if (ppid == tree[i]) tree.push_back(pid);
    }
  }
  return tree;
}

std::vector<int64_t> process_tree(int64_t root) { return process_trees({root}); }

}  // namespace hitcost::proc
