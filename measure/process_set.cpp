#include "measure/process_set.h"

#include <algorithm>
#include <map>
#include <set>

#include "proc/proc.h"

namespace hitcost::client {

std::string ProcessSetSpec::describe() const {
  auto list = [](const std::vector<int64_t>& v) {
    std::string s;
    for (int64_t p : v) {
      if (!s.empty()) s += ',';  // appended apart: GCC 12's -Wrestrict false positive on "," + std::string&&
      s += std::to_string(p);
    }
    return s;
  };
  std::string out;
  if (!pids.empty()) out += "pids " + list(pids);
  if (!trees.empty()) out += std::string(out.empty() ? "" : "; ") + "tree " + list(trees);
  return out;
}

std::vector<Member> read_members(const ProcessSetSpec& spec) {
  std::set<int64_t> pids(spec.pids.begin(), spec.pids.end());
  for (int64_t p : proc::process_trees(spec.trees)) pids.insert(p);
  std::vector<Member> out;
  for (int64_t pid : pids) {
    auto info = proc::read_process(pid);
    if (!info) continue;  // gone since it was listed
    Member m;
    m.pid = pid;
    m.start_ticks = info->start_ticks;
    m.comm = info->comm;
    const auto ns = proc::read_runtime_ns(pid);
    m.cpu_s = ns ? double(*ns) / 1e9 : info->cpu_s;
    m.allowed_cpus = info->allowed_cpus;
    out.push_back(std::move(m));
  }
  return out;
}

MemberDelta member_delta(const std::vector<Member>& before, const std::vector<Member>& after) {
  std::map<std::pair<int64_t, uint64_t>, double> then;
  for (const Member& m : before) then[{m.pid, m.start_ticks}] = m.cpu_s;
  MemberDelta d;
  for (const Member& m : after) {
    auto it = then.find({m.pid, m.start_ticks});
    if (it == then.end()) {
      d.cpu_s += m.cpu_s;  // born in the window
      ++d.changed;
      continue;
    }
    d.cpu_s += m.cpu_s - it->second;
    then.erase(it);
  }
  d.changed += int(then.size());  // left in the window: their CPU since `before` is lost
  return d;
}

namespace {

nlohmann::json members_json(const std::vector<Member>& members) {
  nlohmann::json out = nlohmann::json::array();
  for (const Member& m : members) {
    out.push_back({{"pid", m.pid},
                   {"start_ticks", m.start_ticks},
                   {"comm", m.comm},
                   {"cpu_s", m.cpu_s},
                   {"cpus", proc::format_cpu_list(m.allowed_cpus)}});
  }
  return out;
}

double total_cpu_s(const std::vector<Member>& members) {
  double s = 0;
  for (const Member& m : members) s += m.cpu_s;
  return s;
}

// The CPUs any member may run on, as "0-1".
std::string union_cpus(const std::vector<Member>& members) {
  std::vector<int> all;
  for (const Member& m : members) all.insert(all.end(), m.allowed_cpus.begin(), m.allowed_cpus.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return proc::format_cpu_list(all);
}

}  // namespace

Result<nlohmann::json> process_set_stats(const ProcessSetSpec& server, const ProcessSetSpec& cache, double uptime_s) {
  const std::vector<Member> members = read_members(server);
  if (members.empty()) return Error{Errc::not_found, "no live process in the server set (" + server.describe() + ")"};
  const Member& first = members.front();
  nlohmann::json j = {{"uptime_s", uptime_s},
                      {"backend", "processes: " + server.describe()},
                      {"cpu", {{"user_s", total_cpu_s(members)}, {"system_s", 0.0}}},
                      {"cpus", union_cpus(members)},
                      {"host",
                       {{"boot_id", proc::boot_id()},
                        {"hostname", proc::hostname()},
                        {"pid", first.pid},
                        {"start_ticks", first.start_ticks}}},
                      {"processes", members_json(members)}};
  if (!cache.empty()) {
    const std::vector<Member> nodes = read_members(cache);
    j["store"]["extra"] = {{"rusage_user_s", total_cpu_s(nodes)}, {"rusage_system_s", 0.0}};
    // One "cpus" entry per node, as hitcost-server reports its memcached nodes.
    nlohmann::json cpus = nlohmann::json::array();
    for (const Member& m : nodes) cpus.push_back(proc::format_cpu_list(m.allowed_cpus));
    j["store"]["extra"]["cpus"] = nodes.empty() ? nlohmann::json("unknown") : cpus;
    j["cache_processes"] = members_json(nodes);
  }
  return j;
}

std::vector<Member> members_of(const nlohmann::json& snapshot, const char* field) {
  std::vector<Member> out;
  if (!snapshot.contains(field) || !snapshot[field].is_array()) return out;
  for (const auto& e : snapshot[field]) {
    Member m;
    m.pid = e.value("pid", int64_t{0});
    m.start_ticks = e.value("start_ticks", uint64_t{0});
    m.comm = e.value("comm", std::string());
    m.cpu_s = e.value("cpu_s", 0.0);
    if (auto c = proc::parse_cpu_list(e.value("cpus", std::string()))) m.allowed_cpus = *c;
    out.push_back(std::move(m));
  }
  return out;
}

void complete_process_delta(ServerDelta& d, const nlohmann::json& before, const nlohmann::json& after,
                            uint64_t requests, uint64_t hits, uint64_t misses) {
  const MemberDelta server = member_delta(members_of(before, "processes"), members_of(after, "processes"));
  d.cpu_s = server.cpu_s;
  d.members_changed = server.changed;
  if (after.contains("cache_processes")) {
    const MemberDelta cache = member_delta(members_of(before, "cache_processes"), members_of(after, "cache_processes"));
    d.cache_cpu_s = cache.cpu_s;
    d.members_changed += cache.changed;
  }
  d.requests = d.pages = requests;
  d.hits = hits;
  d.misses = misses;
  // Counted by the client, so reported; the server's other counters are nobody's here.
  for (auto counter : {&ServerDelta::requests, &ServerDelta::pages, &ServerDelta::hits, &ServerDelta::misses})
    d.unreported.reset(wire::counter_row(counter));
}

}  // namespace hitcost::client
