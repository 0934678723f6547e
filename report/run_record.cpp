#include "report/run_record.h"

#include <cstdio>
#include <set>
#include <type_traits>

namespace hitcost::client {

using nlohmann::json;

LatencyUs latency_us_of(const Histogram& h) {
  auto us = [&](double p) { return double(h.value_at_percentile(p)) / 1000.0; };
  LatencyUs l;
  l.count = h.count();
  l.min = double(h.min()) / 1000.0;
  l.mean = h.mean() / 1000.0;
  l.p50 = us(50);
  l.p90 = us(90);
  l.p99 = us(99);
  l.p999 = us(99.9);
  l.p9999 = us(99.99);
  l.max = double(h.max()) / 1000.0;
  return l;
}

namespace {

using fields::omit;

// The run's latency percentiles under `base` ("/latency_us"); `csv` names the columns of the
// headline latency (p50_us ...), the other latencies are JSON only.
template <class L, class F>
void latency_fields(const char* base, L& l, bool csv, F&& f) {
  const std::string b = base;
  f(b + "/p50", csv ? "p50_us" : "", l.p50);
  f(b + "/p90", csv ? "p90_us" : "", l.p90);
  f(b + "/p99", csv ? "p99_us" : "", l.p99);
  f(b + "/p999", csv ? "p999_us" : "", l.p999);
  f(b + "/max", csv ? "max_us" : "", l.max);
  f(b + "/count", "", l.count);
  f(b + "/min", "", l.min);
  f(b + "/mean", "", l.mean);
  f(b + "/p9999", "", l.p9999);
}

// A server counter as a CSV column: the run's server part holds it (written and read there, with
// the rest of that part), so the cell only shows it, empty for a run without server figures or
// from a server that did not count it.
struct ServerCounterCell {
  const std::optional<ServerRecord>& server;
  size_t row;  // of wire/server_counters.h
  bool empty() const { return !server || server->unreported[row]; }
};
template <class R, class F>
void server_counter_columns(R& r, F&& f) {
  for (size_t i = 0; i < wire::kServerCounterCount; ++i) {
    const wire::ServerCounterRow& c = wire::kServerCounterRows[i];
    if (c.csv.empty()) continue;
    ServerCounterCell cell{r.server, i};
    f("/server" + c.pointer(), c.csv.data(), omit(cell));
  }
}

// THE table: every field of a run, once, with its JSON pointer and its CSV column ("" = not
// in the CSV), by part of the record. The CSV columns come first, in the CSV's order; the
// JSON's key order is its own (sorted), so the order here changes no JSON. R is RunRecord or
// const RunRecord.
template <class R, class F>
void for_each_field(R& r, F&& f) {
  // The CSV columns, in the CSV's order: the headline of every part.
  f("/mode", "mode", r.mode);
  f("/strategy", "strategy", r.strategy);
  f("/store", "store", r.store);
  f("/connections", "connections", r.connections);
  f("/threads", "threads", r.threads);
  f("/rate_rps", "rate_rps", r.rate_rps);
  f("/requests", "requests", r.requests);
  f("/errors/total", "errors", r.errors_total);
  f("/duration_s", "duration_s", r.duration_s);
  f("/throughput_rps", "throughput_rps", r.throughput_rps);
  f("/hit_ratio", "hit_ratio", r.hit_ratio);
  latency_fields("/latency_us", r.latency_us, true, f);
  f("/server_cpu_us_per_req", "server_cpu_us_per_req", r.server_cpu_us_per_req);
  f("/cache_cpu_us_per_req", "cache_cpu_us_per_req", r.cache_cpu_us_per_req);
  f("/client_cpu_us_per_req", "client_cpu_us_per_req", r.client_cpu_us_per_req);
  f("/unsent", "unsent", r.unsent);
  f("/unfinished", "unfinished", r.unfinished);
  f("/contaminated", "contaminated", r.contaminated);
  f("/contamination_retries", "contamination_retries", r.contamination_retries);
  f("/started_unix_ns", "started_unix_ns", r.started_unix_ns);
  f("/interrupted", "interrupted", r.interrupted);
  // Last of the CSV columns, so the older columns keep their places; empty (and no JSON key)
  // unless a sweep set an axis (--axis, --log-modes).
  f("/axes", "axes", omit(r.axes));
  server_counter_columns(r, f);  // the server counters with a CSV column (wire/server_counters.h)
  // JSON only from here. What was asked (besides the CSV's).
  f("/url", "", r.url);
  f("/url_address", "", omit(r.url_address));
  f("/path_template", "", r.path_template);
  f("/cpus", "", r.cpus);
  f("/thread_cpus", "", r.thread_cpus);
  f("/keys", "", r.keys);
  f("/key_dist", "", r.key_dist);
  f("/target_hit_ratio", "", r.target_hit_ratio);
  f("/rows", "", r.rows);
  f("/warmup_s", "", r.warmup_s);
  f("/planned_duration_s", "", r.planned_duration_s);
  // The latencies besides the headline's, and the open loop's spin.
  latency_fields("/hit_latency_us", r.hit_latency_us, false, f);
  latency_fields("/miss_latency_us", r.miss_latency_us, false, f);
  latency_fields("/service_latency_us", r.service_latency_us, false, f);
  latency_fields("/send_lateness_us", r.send_lateness_us, false, f);  // open loop; empty in closed loop
  f("/spin_us", "", r.spin_us);                                       // open loop: the spin before each send at the end
  // What happened on the client's side: errors, limits, placement.
  f("/ok", "", r.ok);
  f("/errors/connect", "", r.errors.connect);
  f("/errors/read", "", r.errors.read);
  f("/errors/write", "", r.errors.write);
  f("/errors/timeout", "", r.errors.timeout);
  f("/errors/status", "", r.errors.status);
  f("/errors/parse", "", r.errors.parse);
  f("/errors/validation", "", r.errors.validation);
  f("/error_samples", "", r.error_samples);  // the first error of each kind with its reason
  f("/error_limit/max_error_rate", "", r.max_error_rate);
  f("/error_limit/max_transport_error_rate", "", r.max_transport_error_rate);
  f("/error_limit/exceeded", "", r.error_limit_exceeded);
  f("/reconnects", "", r.reconnects);
  f("/rows_mix", "", omit(r.rows_mix));
  f("/replay", "", omit(r.replay));
  f("/placement/client_pinned", "", r.cpus);
  f("/placement/client_thread_cpus", "", r.client_thread_cpus);
  f("/placement/client_cpus", "", r.client_cpus);
  f("/placement/server_cpus", "", r.server_cpus);
  f("/placement/cache_cpus", "", r.cache_cpus);
  f("/placement/server_local", "", r.server_local);
  f("/placement/cache_local", "", r.cache_local);
  f("/hosts", "", omit(r.hosts));
  // The server's side and the CPU accounting of every party.
  f("/server_cpu_us_per_hit", "", r.server_cpu_us_per_hit);
  f("/server", "", r.server);
  f("/server_error", "", omit(r.server_error));
  f("/phases_us_per_req", "", r.phases_us_per_req);
  f("/bytes_per_req/response", "", r.response_bytes_per_req);
  f("/bytes_per_req/body", "", r.body_bytes_per_req);
  f("/bytes_per_req/cache_read", "", omit(r.cache_read_bytes_per_req));
  f("/bytes_per_req/cache_written", "", omit(r.cache_written_bytes_per_req));
  f("/system/client_cpu_s", "", r.client_cpu_s);
  f("/system/window_s", "", r.snapshot_window_s);
  f("/cpu", "", r.cpu);
  f("/server_sampling", "", r.server_sampling);
  f("/server_memory_kb", "", r.server_memory_kb);
  f("/floor", "", omit(r.floor));
  f("/floor_error", "", omit(r.floor_error));
  f("/idle_error", "", omit(r.idle_error));
  f("/start_at/unix_ns", "", omit(r.start_at_unix_ns));
  f("/start_at/late_ms", "", omit(r.start_late_ms));
  f("/slowest", "", omit(r.slowest));
  // Raw data for exact merges, and the sweep's and merge's context.
  f("/histogram", "", omit(r.histogram));
  f("/histogram_hit", "", omit(r.histogram_hit));
  f("/histogram_miss", "", omit(r.histogram_miss));
  f("/histogram_service", "", omit(r.histogram_service));
  f("/histogram_send_lateness", "", omit(r.histogram_send_lateness));
  f("/series", "", omit(r.series));
  f("/repeat", "", omit(r.repeat));
  f("/sweep_store", "", omit(r.sweep_store));
  f("/role", "", omit(r.role));
  f("/round", "", omit(r.round));
  f("/merged", "", omit(r.merged));
}

}  // namespace

// The run's own JSON forms: the error samples and rows mix as lists of objects, a server counter
// cell from the server part (read there, with the rest of that part, not here).
template <>
struct fields::Codec<std::vector<ErrorSample>> {
  static json write(const std::vector<ErrorSample>& v) {
    json out = json::array();
    for (const ErrorSample& x : v) out.push_back({{"kind", x.kind}, {"first", x.detail}});
    return out;
  }
  static void read(const json& j, std::vector<ErrorSample>& v) {
    v.clear();
    if (!j.is_array()) return;
    for (const json& e : j)
      if (e.is_object()) v.push_back({e.value("kind", std::string()), e.value("first", std::string())});
  }
  static bool empty(const std::vector<ErrorSample>& v) { return v.empty(); }
};
template <>
struct fields::Codec<std::vector<RowsMixRecord>> {
  static json write(const std::vector<RowsMixRecord>& v) {
    json out = json::array();
    for (const RowsMixRecord& x : v) out.push_back({{"rows", x.rows}, {"weight", x.weight}, {"requests", x.requests}});
    return out;
  }
  static void read(const json& j, std::vector<RowsMixRecord>& v) {
    v.clear();
    if (!j.is_array()) return;
    for (const json& e : j)
      if (e.is_object()) v.push_back({e.value("rows", 0), e.value("weight", 0.0), e.value("requests", uint64_t{0})});
  }
  static bool empty(const std::vector<RowsMixRecord>& v) { return v.empty(); }
};
template <>
struct fields::Codec<HostsRecord> {
  static json host(const HostRecord& h) { return {{"hostname", h.hostname}, {"boot_id", h.boot_id}}; }
  static HostRecord host_of(const json& j) {
    return {j.value("hostname", std::string()), j.value("boot_id", std::string())};
  }
  static json write(const HostsRecord& h) {
    json out = json::object();
    if (h.clients_listed) {
      out["client"] = json::array();
      for (const HostRecord& c : h.clients) out["client"].push_back(host(c));
    } else {
      out["client"] = h.clients.empty() ? json(nullptr) : host(h.clients.front());
    }
    out["server"] =
        h.server ? json{{"hostname", h.server->hostname}, {"boot_id", h.server->boot_id}, {"local", h.server->local}}
                 : json(nullptr);
    out["cache"] = json::array();
    for (const CacheNodeHostRecord& n : h.cache)
      out["cache"].push_back({{"node", n.node}, {"on_server_host", n.on_server_host}, {"local", n.local}});
    return out;
  }
  static void read(const json& j, HostsRecord& h) {
    h = HostsRecord{};
    if (!j.is_object()) return;
    if (const auto c = j.find("client"); c != j.end()) {
      if (c->is_array()) {
        h.clients_listed = true;
        for (const json& e : *c)
          if (e.is_object()) h.clients.push_back(host_of(e));
      } else if (c->is_object()) {
        h.clients.push_back(host_of(*c));
      }
    }
    if (const auto s = j.find("server"); s != j.end() && s->is_object())
      h.server = ServerHostRecord{s->value("hostname", std::string()), s->value("boot_id", std::string()),
                                  s->value("local", false)};
    if (const auto c = j.find("cache"); c != j.end() && c->is_array())
      for (const json& e : *c)
        if (e.is_object())
          h.cache.push_back(
              {e.value("node", std::string()), e.value("on_server_host", false), e.value("local", false)});
  }
  static bool empty(const HostsRecord&) { return false; }
};
template <>
struct fields::Codec<ServerCounterCell> {
  static json write(const ServerCounterCell& c) {
    return c.empty() ? json(nullptr) : json((*c.server).*wire::kServerCounterRows[c.row].value);
  }
  static void read(const json&, ServerCounterCell&) {}
  static bool empty(const ServerCounterCell& c) { return c.empty(); }
};

namespace {

using fields::Reader;
using fields::Writer;

// A CSV cell as RFC 4180 wants it: quoted only when needed; booleans 1/0; null empty.
std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q(1, '"');
    for (char c : s) {
      q += c;
      if (c == '"') q += c;  // a quote inside is doubled
    }
    q += '"';
    return q;
  }
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.dump();
}

// A field's CSV cell: its JSON value's, or its own text.
template <class T>
std::string csv_text(const T& v) {
  return csv_cell(fields::Codec<T>::write(v));
}
std::string csv_text(const AxisSettings& v) { return axes_text(v); }

struct CsvCells {
  std::vector<std::pair<std::string, std::string>>& out;
  template <class T>
  void operator()(const std::string&, const char* csv, const T& v) const {
    if (*csv) out.emplace_back(csv, csv_text(v));
  }
  template <class T>
  void operator()(const std::string&, const char* csv, fields::Omit<T> v) const {
    (*this)(std::string(), csv, v.v);
  }
};

// The top-level keys the table covers; the rest of a document goes to `extra`.
const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> k;
    for (const RunFieldName& f : run_fields()) k.insert(f.pointer.substr(1, f.pointer.find('/', 1) - 1));
    return k;
  }();
  return keys;
}

}  // namespace

std::string axes_text(const AxisSettings& axes) {
  std::string out;
  for (const auto& [name, value] : axes) {
    if (!out.empty()) out += ' ';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

std::string sweep_row_label(const std::string& strategy, const AxisSettings& axes) {
  return axes.empty() ? strategy : strategy + " " + axes_text(axes);
}

std::string RunRecord::row_label() const { return sweep_row_label(strategy, axes); }

std::string RunRecord::attribution() const { return cpu ? cpu->attribution : "sender-pays"; }

std::optional<double> RunRecord::composed_us() const {
  if (!floor.is_object()) return std::nullopt;
  const auto it = floor.find("composed_us");
  if (it == floor.end() || !it->is_number() || it->get<double>() <= 0) return std::nullopt;
  return it->get<double>();
}

std::optional<double> RunRecord::floor_us(std::string_view part) const {
  if (!floor.is_object()) return std::nullopt;
  const auto parts = floor.find("floor_us");
  if (parts == floor.end() || !parts->is_object()) return std::nullopt;
  const auto it = parts->find(std::string(part));
  if (it == parts->end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Every field of the run and of its parts, with its run JSON pointer.
template <class F>
void each_field_deep(const RunRecord& r, F&& f) {
  for_each_field(r, [&](const std::string& pointer, const char*, const auto& v) {
    if constexpr (requires { v.v; })
      fields::each_value(pointer, v.v, f);
    else
      fields::each_value(pointer, v, f);
  });
}

std::optional<double> RunRecord::figure(std::string_view pointer) const {
  std::optional<double> out;
  bool found = false;
  each_field_deep(*this, [&](const std::string& p, const auto& v) {
    if (!found && p == pointer) {
      found = true;
      out = fields::number_of(v);
    }
  });
  return out;
}

std::string RunRecord::pointer_at(const void* member, const std::type_info& type) const {
  std::string out;
  each_field_deep(*this, [&](const std::string& p, const auto& v) {
    if (out.empty() && static_cast<const void*>(&v) == member && typeid(v) == type) out = p;
  });
  return out;
}

json RunRecord::cpu_figures_doc() const {
  return {{"cpu", fields::Codec<std::optional<CpuRecord>>::write(cpu)},
          {"server_sampling", fields::Codec<std::optional<SamplingRecord>>::write(server_sampling)},
          {"server_cpu_us_per_hit", fields::Codec<std::optional<double>>::write(server_cpu_us_per_hit)}};
}

// Judged anew from the figures rather than read from cpu.flags: the same for a run saved before
// the checks existed, and never stale where a figure was replaced (merge's contamination).
std::vector<CpuFlag> RunRecord::cpu_flags() const { return check_cpu_figures(cpu_figures_doc()); }

std::optional<std::string> RunRecord::flag_of(std::string_view pointer) const {
  for (const CpuFlag& f : cpu_flags())
    if (f.figure == pointer) return f.why;
  return std::nullopt;
}

void to_json(json& j, const RunRecord& r) {
  j = json::object();
  for_each_field(r, Writer{j});
  for (const auto& [key, v] : r.extra.items()) j[key] = v;
}

void from_json(const json& j, RunRecord& r) {
  r = RunRecord{};
  if (!j.is_object()) return;
  for_each_field(r, Reader{j});
  if (!j.contains(json::json_pointer("/errors/total"))) r.errors_total = r.errors.total();
  for (const auto& [key, v] : j.items())
    if (!known_keys().count(key)) r.extra[key] = v;
  // Saved before the axes: the logging axis was "log_mode".
  if (const auto it = j.find("log_mode"); r.axes.empty() && it != j.end() && it->is_string()) {
    r.axes["log"] = it->get<std::string>();
    r.extra.erase("log_mode");
  }
}

json to_json(const LatencyUs& l) {
  json j = json::object();
  latency_fields("", l, false, Writer{j});
  return j;
}

std::vector<RunRecord> records_of(const json& doc) {
  std::vector<RunRecord> out;
  if (doc.contains("runs") && doc["runs"].is_array()) {
    for (const json& r : doc["runs"]) out.push_back(r.get<RunRecord>());
  } else if (doc.is_object()) {
    out.push_back(doc.get<RunRecord>());
  }
  return out;
}

std::vector<RunFieldName> run_fields() {
  std::vector<RunFieldName> out;
  const RunRecord r;
  for_each_field(r, [&](const std::string& pointer, const char* csv, const auto&) { out.push_back({pointer, csv}); });
  return out;
}

std::vector<std::pair<std::string, std::string>> csv_run_cells(const RunRecord& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for_each_field(r, CsvCells{out});
  return out;
}

std::string csv_run_header() {
  std::string out;
  for (const RunFieldName& f : run_fields()) {
    if (f.csv.empty()) continue;
    if (!out.empty()) out += ',';
    out += f.csv;
  }
  return out + "\n";
}

std::string csv_run_row(const RunRecord& r) {
  std::string out;
  bool first = true;
  for (const auto& [column, text] : csv_run_cells(r)) {
    if (!first) out += ',';
    first = false;
    out += text;
  }
  return out + "\n";
}

std::string csv_run_row(const json& run) { return csv_run_row(run.get<RunRecord>()); }

json histogram_to_json(const Histogram& h) {
  json counts = json::array();
  const auto& c = h.counts();
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i]) counts.push_back({i, c[i]});
  return {{"unit", "ns"},
          {"layout", "hdr-log-linear"},
          {"sub_bucket_half_count_magnitude", Histogram::kSubBucketHalfCountMagnitude},
          {"bucket_count", Histogram::kBucketCount},
          {"count", h.count()},
          {"min", h.min()},
          {"max", h.max()},
          {"sum", h.sum()},
          {"clamped", h.clamped()},
          {"counts", counts}};
}

bool histogram_from_json(const json& j, Histogram* h) {
  try {
    if (j.at("sub_bucket_half_count_magnitude").get<int>() != Histogram::kSubBucketHalfCountMagnitude ||
        j.at("bucket_count").get<int>() != Histogram::kBucketCount)
      return false;
    std::vector<std::pair<size_t, uint64_t>> sparse;
    for (const auto& pair : j.at("counts")) sparse.emplace_back(pair.at(0).get<size_t>(), pair.at(1).get<uint64_t>());
    return h->restore(sparse, j.at("min").get<uint64_t>(), j.at("max").get<uint64_t>(), j.at("sum").get<uint64_t>(),
                      j.value("clamped", uint64_t{0}));
  } catch (const json::exception&) {
    return false;
  }
}

json latency_json(const Histogram& h) { return to_json(latency_us_of(h)); }

}  // namespace hitcost::client
