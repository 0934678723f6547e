#include "measure/server_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace hitcost::client {

Result<nlohmann::json> fetch_stats(const Endpoint& ep) {
  const auto body = http_ok_body(ep, "GET", "/stats");
  if (!body) return Error{body.error().code, "GET /stats: " + body.error().message};
  auto j = nlohmann::json::parse(*body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{Errc::parse_error, "GET /stats: answer is not a JSON object"};
  return j;
}

namespace {
// Numeric field at a JSON pointer, 0 when absent or not a number.
double num(const nlohmann::json& j, const char* pointer) {
  const auto p = nlohmann::json::json_pointer(pointer);
  if (!j.contains(p)) return 0.0;
  const auto& v = j.at(p);
  return v.is_number() ? v.get<double>() : 0.0;
}
uint64_t counter_delta(const nlohmann::json& a, const nlohmann::json& b, const char* pointer, bool* reset) {
  const double x = num(a, pointer), y = num(b, pointer);
  if (y < x) {
    *reset = true;
    return uint64_t(y);  // counters were zeroed in between: the after value is a lower bound
  }
  return uint64_t(y - x);
}
}  // namespace

bool ServerIdentity::is_local() const {
  if (boot_id.empty() || boot_id != proc::boot_id()) return false;
  const auto p = proc::read_process(pid);
  return p && p->start_ticks == start_ticks;
}

namespace {
// ["0", "1-2"] or "0-1" or [0, 1] → CPU numbers; empty when any entry is unknown.
std::vector<int> cpu_list_of(const nlohmann::json& v) {
  std::vector<int> out;
  auto add = [&](const nlohmann::json& e) {
    if (e.is_number_integer()) {
      out.push_back(e.get<int>());
      return true;
    }
    if (!e.is_string()) return false;
    auto cpus = proc::parse_cpu_list(e.get<std::string>());
    if (!cpus) return false;
    out.insert(out.end(), cpus->begin(), cpus->end());
    return true;
  };
  if (v.is_array()) {
    for (const auto& e : v)
      if (!add(e)) return {};
  } else if (!add(v)) {
    return {};
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}
}  // namespace

std::vector<int> ServerDelta::server_cpu_list() const { return cpu_list_of(server_cpus); }
std::vector<int> ServerDelta::cache_cpu_list() const { return cpu_list_of(cache_cpus); }

std::optional<double> ServerDelta::sampling_overhead() const noexcept {
  if (cpu_s <= 0 || clock_reads == 0) return std::nullopt;
  return double(clock_reads) * clock_read_ns / (cpu_s * 1e9);
}

std::optional<double> ServerDelta::whole_sampled_cpu_us() const noexcept {
  double weight = 0, cpu_ns = 0;
  for (const SampledDelta* d : {&sampled_hit, &sampled_miss, &sampled_other}) {
    weight += d->whole_weight;
    cpu_ns += d->whole_cpu_ns;
  }
  if (weight <= 0) return std::nullopt;
  return cpu_ns / weight / 1000.0;
}

std::optional<double> ServerDelta::unobserved_cpu_us() const noexcept {
  const auto whole_us = whole_sampled_cpu_us();
  if (clean_tiles < kMinCleanTiles || clean_tile_requests <= clean_tiles || !whole_us) return std::nullopt;
  const double k = double(clean_tile_requests) / double(clean_tiles);  // requests per tile
  const double tile_us = clean_tile_cpu_ns / double(clean_tile_requests) / 1000.0;
  return (k * tile_us - *whole_us) / (k - 1);
}

std::optional<double> ServerDelta::sample_excess_us() const noexcept {
  const auto x = unobserved_cpu_us();
  if (!x) return std::nullopt;
  return *whole_sampled_cpu_us() - *x;
}

std::optional<double> ServerDelta::unobserved_cpu_us(const SampledDelta& d) const noexcept {
  const auto sampled = d.cpu_us();
  const auto excess = sample_excess_us();
  if (!sampled || !excess || d.whole_weight <= 0) return sampled;
  return *sampled - *excess;
}

double ServerDelta::hit_ratio() const noexcept {
  const uint64_t n = hits + misses;
  return n ? double(hits) / double(n) : 0.0;
}

std::vector<std::string> memcached_nodes(std::string_view describe) {
  constexpr std::string_view kPrefix = "memcached:";
  if (!describe.starts_with(kPrefix)) return {};
  describe.remove_prefix(kPrefix.size());
  describe = describe.substr(0, describe.find('?'));
  std::vector<std::string> out;
  while (!describe.empty()) {
    const size_t comma = describe.find(',');
    if (std::string_view node = describe.substr(0, comma); !node.empty()) out.emplace_back(node);
    describe = comma == std::string_view::npos ? std::string_view{} : describe.substr(comma + 1);
  }
  return out;
}

namespace {
// The counters of the table (wire/server_counters.h) and the CPU of the server and the cache.
void counters_delta(const nlohmann::json& a, const nlohmann::json& b, ServerDelta& d, bool* reset) {
  d.interval_s = num(b, "/uptime_s") - num(a, "/uptime_s");
  for (size_t i = 0; i < wire::kServerCounterCount; ++i) {
    const wire::ServerCounterRow& c = wire::kServerCounterRows[i];
    const std::string at = c.pointer();
    d.*c.value = counter_delta(a, b, at.c_str(), reset);
    if (!b.contains(nlohmann::json::json_pointer(at))) d.unreported.set(i);
  }
  d.bad_requests = counter_delta(a, b, "/bad_requests", reset);
  d.cpu_s = (num(b, "/cpu/user_s") + num(b, "/cpu/system_s")) - (num(a, "/cpu/user_s") + num(a, "/cpu/system_s"));
  const auto extra = nlohmann::json::json_pointer("/store/extra/rusage_user_s");
  if (b.contains(extra)) {
    d.cache_cpu_s = (num(b, "/store/extra/rusage_user_s") + num(b, "/store/extra/rusage_system_s")) -
                    (num(a, "/store/extra/rusage_user_s") + num(a, "/store/extra/rusage_system_s"));
  }
  if (b.contains(nlohmann::json::json_pointer("/store/extra/bytes_read"))) {
    d.cache_net_bytes_read = num(b, "/store/extra/bytes_read") - num(a, "/store/extra/bytes_read");
    d.cache_net_bytes_written = num(b, "/store/extra/bytes_written") - num(a, "/store/extra/bytes_written");
  }
}

// The server's sampled CPU ("cpu_sampled"): per outcome, its parts, the clean tiles.
void sampled_delta(const nlohmann::json& a, const nlohmann::json& b, ServerDelta& d) {
  if (!b.contains("cpu_sampled") || !b["cpu_sampled"].is_object()) return;
  // Signed sums that wrap: differences as int64, not as counters that must grow.
  auto diff = [&](const std::string& ptr) {
    const auto p = nlohmann::json::json_pointer(ptr);
    auto get = [&](const nlohmann::json& j) -> int64_t {
      return j.contains(p) && j.at(p).is_number_integer() ? j.at(p).get<int64_t>() : 0;
    };
    return double(get(b) - get(a));
  };
  for (auto [name, out] : {std::pair{"hit", &d.sampled_hit}, {"miss", &d.sampled_miss}, {"other", &d.sampled_other}}) {
    const std::string base = std::string("/cpu_sampled/") + name;
    out->whole_samples = uint64_t(diff(base + "/whole/samples"));
    out->whole_weight = diff(base + "/whole/weight");
    out->whole_cpu_ns = diff(base + "/whole/cpu_ns");
    out->samples = uint64_t(diff(base + "/samples"));
    out->weight = diff(base + "/weight");
    out->cpu_ns = diff(base + "/cpu_ns");
    const auto parts = nlohmann::json::json_pointer(base + "/parts_cpu_ns");
    if (!b.contains(parts) || !b.at(parts).is_object()) continue;
    for (const auto& [part, v] : b.at(parts).items()) {
      out->parts_cpu_ns.emplace_back(part, diff(base + "/parts_cpu_ns/" + part));
      out->parts_wall_ns.emplace_back(part, diff(base + "/parts_wall_ns/" + part));
    }
  }
  d.clock_reads = uint64_t(diff("/cpu_sampled/clock_reads"));
  d.clean_tiles = uint64_t(diff("/cpu_sampled/clean_tiles/tiles"));
  d.clean_tile_requests = uint64_t(diff("/cpu_sampled/clean_tiles/requests"));
  d.clean_tile_cpu_ns = diff("/cpu_sampled/clean_tiles/cpu_ns");
  d.clock_read_ns = num(b, "/cpu_sampled/clock_read_ns");
  d.sample_period = uint64_t(num(b, "/cpu_sampled/period"));
}

// The time spent in each phase of a request ("phases_ns").
void phases_delta(const nlohmann::json& a, const nlohmann::json& b, ServerDelta& d, bool* reset) {
  if (!b.contains("phases_ns") || !b["phases_ns"].is_object()) return;
  for (const auto& [name, v] : b["phases_ns"].items()) {
    const std::string base = "/phases_ns/" + name;
    PhaseDelta p;
    p.name = name;
    p.count = counter_delta(a, b, (base + "/count").c_str(), reset);
    p.sum_ns = counter_delta(a, b, (base + "/sum").c_str(), reset);
    d.phases.push_back(std::move(p));
  }
}

// What the window's end says of the server: memory, identity, config, log, threads, CPUs.
void server_state(const nlohmann::json& b, ServerDelta& d) {
  d.memory = b.contains("memory") && b["memory"].is_object() ? b["memory"] : nlohmann::json(nullptr);
  if (b.contains("host") && b["host"].is_object()) {
    ServerIdentity id;
    id.boot_id = b["host"].value("boot_id", std::string());
    id.hostname = b["host"].value("hostname", std::string());
    id.pid = b["host"].value("pid", int64_t{0});
    id.start_ticks = b["host"].value("start_ticks", uint64_t{0});
    d.identity = id;
  }
  if (b.contains("config")) d.config = b["config"];
  if (b.contains("log") && b["log"].is_object()) {
    ServerRecord::Log log;
    const auto config_log = nlohmann::json::json_pointer("/config/log");
    if (b["log"].contains("mode") && b["log"]["mode"].is_string())
      log.mode = b["log"]["mode"].get<std::string>();
    else if (b.contains(config_log) && b.at(config_log).is_string())
      log.mode = b.at(config_log).get<std::string>();
    if (b["log"].contains("path") && b["log"]["path"].is_string()) log.path = b["log"]["path"].get<std::string>();
    d.log = std::move(log);
  }
  d.threads = int(num(b, "/threads"));
  if (b.contains("cpus"))
    d.server_cpus = b["cpus"];
  else if (b.contains("config") && b["config"].is_object() && b["config"].contains("cpus"))
    d.server_cpus = b["config"]["cpus"];
  else if (b.contains("thread_cpus"))
    d.server_cpus = b["thread_cpus"];
  const auto cache_cpus = nlohmann::json::json_pointer("/store/extra/cpus");
  if (b.contains(cache_cpus)) d.cache_cpus = b.at(cache_cpus);
  const auto describe = nlohmann::json::json_pointer("/store/describe");
  if (b.contains(describe) && b.at(describe).is_string())
    d.cache_nodes = memcached_nodes(b.at(describe).get<std::string>());
}
}  // namespace

ServerDelta stats_delta(const nlohmann::json& a, const nlohmann::json& b) {
  ServerDelta d;
  bool reset = false;
  d.backend = b.value("backend", std::string(ServerDelta::kHitcostServer));
  counters_delta(a, b, d, &reset);
  sampled_delta(a, b, d);
  phases_delta(a, b, d, &reset);
  server_state(b, d);
  d.counters_reset = reset;
  return d;
}

double self_cpu_s() noexcept {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

std::string namespace_token(std::string_view text) {
  std::string out;
  for (const char ch : text) {
    const char c = char(std::tolower(static_cast<unsigned char>(ch)));
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace hitcost::client
