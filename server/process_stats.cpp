#include "server/process_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>

#include "proc/proc.h"

namespace hitcost::server {

namespace {
double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6; }
}  // namespace

ProcessCpu process_cpu() {
  rusage ru{};
  ProcessCpu c;
  if (::getrusage(RUSAGE_SELF, &ru) != 0) return c;
  c.user_s = seconds(ru.ru_utime);
  c.system_s = seconds(ru.ru_stime);
  c.voluntary_switches = static_cast<uint64_t>(ru.ru_nvcsw);
  c.involuntary_switches = static_cast<uint64_t>(ru.ru_nivcsw);
  c.max_rss_kb = static_cast<uint64_t>(ru.ru_maxrss);
  return c;
}

ProcessIo process_io() {
  ProcessIo io;
  std::FILE* f = std::fopen("/proc/self/io", "re");
  if (!f) return io;
  char name[64];
  unsigned long long v = 0;
  while (std::fscanf(f, "%63[^:]: %llu\n", name, &v) == 2) {
    if (!std::strcmp(name, "rchar"))
      io.rchar = v;
    else if (!std::strcmp(name, "wchar"))
      io.wchar = v;
    else if (!std::strcmp(name, "syscr"))
      io.syscr = v;
    else if (!std::strcmp(name, "syscw"))
      io.syscw = v;
    else if (!std::strcmp(name, "read_bytes"))
      io.read_bytes = v;
    else if (!std::strcmp(name, "write_bytes"))
      io.write_bytes = v;
  }
  std::fclose(f);
  io.ok = true;
  return io;
}

uint64_t process_rss_kb() {
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) / 1024;
}

ProcessMemory parse_smaps_rollup(std::string_view text) {
  ProcessMemory m;
  // Lines are "Name:   <value> kB"; the first line is the [rollup] mapping header. Names
  // are matched whole: "Pss_Dirty" (Linux 6.0) must not be read as "Pss".
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view l = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    const size_t colon = l.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = l.substr(0, colon);
    std::optional<uint64_t>* field = name == "Pss"         ? &m.pss_kb
                                     : name == "Pss_Anon"  ? &m.pss_anon_kb
                                     : name == "Pss_File"  ? &m.pss_file_kb
                                     : name == "Pss_Shmem" ? &m.pss_shmem_kb
                                                           : nullptr;
    if (!field) continue;
    std::string_view rest = l.substr(colon + 1);
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    // Only "<digits> kB" is understood; anything else leaves the field unknown.
    if (ec != std::errc() || end == rest.data() || std::string_view(end, rest.data() + rest.size() - end) != " kB")
      continue;
    *field = v;
  }
  return m;
}

ProcessMemory process_memory() {
  std::FILE* f = std::fopen("/proc/self/smaps_rollup", "re");
  if (!f) return {};
  std::string text;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return parse_smaps_rollup(text);
}

std::string local_process_cpus(int64_t pid, const std::string& comm) {
  const auto p = proc::read_process(pid);
  if (!p || p->comm != comm || p->allowed_cpus.empty()) return "unknown";
  return proc::format_cpu_list(p->allowed_cpus);
}

}  // namespace hitcost::server
