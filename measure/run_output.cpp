#include "measure/run_output.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "figures/log2_histogram.h"
#include "report/floor_summary.h"
#include "report/slowest.h"

namespace hitcost::client {

namespace {
nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// The server's sampled CPU per request of each outcome, by part, CPU and wall apart (µs).
SamplingRecord sampling_record_of(const ServerDelta& s) {
  SamplingRecord out;
  out.period = s.sample_period;
  out.clock_read_ns = s.clock_read_ns;
  out.clock_reads = s.clock_reads;
  out.overhead_fraction = s.sampling_overhead();
  out.clean_tiles = s.clean_tiles;
  out.unobserved_cpu_us = s.unobserved_cpu_us();
  out.whole_sample_excess_us = s.sample_excess_us();
  for (auto [o, d] :
       {std::pair{&out.hit, &s.sampled_hit}, {&out.miss, &s.sampled_miss}, {&out.other, &s.sampled_other}}) {
    for (const auto& [part, ns] : d->parts_cpu_ns)
      o->parts_cpu_us[part] = d->weight > 0 ? ns / d->weight / 1000.0 : 0.0;
    for (const auto& [part, ns] : d->parts_wall_ns)
      o->parts_wall_us[part] = d->weight > 0 ? ns / d->weight / 1000.0 : 0.0;
    o->whole_samples = d->whole_samples;
    o->samples = d->samples;
    o->cpu_us = d->cpu_us();
    o->unobserved_cpu_us = s.unobserved_cpu_us(*d);
    o->detailed_cpu_us = d->detailed_cpu_us();
  }
  return out;
}

// The cache nodes' CPUs as the server reports them for its host, with null (beside
// placement.cache_local false and hosts.cache[i]) for a node whose process it did not find there:
// not on this host, where the server says "unknown".
nlohmann::json placement_cache_cpus(const RunReport& r) {
  nlohmann::json cpus = r.server->cache_cpus;
  if (!cpus.is_array()) return cpus;
  for (size_t i = 0; i < cpus.size() && i < r.hosts.cache.size(); ++i)
    if (!r.hosts.cache[i].on_server_host) cpus[i] = nullptr;
  return cpus;
}

// What was asked: the plan and the limits.
void describe_request(const RunReport& r, RunRecord& o) {
  static_cast<RunRequest&>(o) = r;
  o.mode = r.mode();
  o.max_error_rate = r.error_limits.wrong_answers;
  o.max_transport_error_rate = r.error_limits.transport;
  o.strategy = r.strategy();
  o.store = r.store();
}

// What the load saw: counts, latency, errors, and this client's side of the CPU.
void describe_outcome(const RunReport& r, RunRecord& o) {
  const LoadResult& l = r.load;
  o.thread_cpus = l.thread_cpus;
  o.requests = l.requests;
  o.ok = l.ok;
  o.duration_s = l.window_s;  // the window that ran: shorter than planned when interrupted
  o.interrupted = r.interrupted();
  o.throughput_rps = r.throughput_rps();
  o.hit_ratio = r.hit_ratio();
  o.latency_us = latency_us_of(l.latency);
  o.hit_latency_us = latency_us_of(l.hit);
  o.miss_latency_us = latency_us_of(l.miss);
  o.service_latency_us = latency_us_of(l.service);
  o.send_lateness_us = latency_us_of(l.send_lateness);
  o.spin_us = double(l.spin_ns) / 1000.0;
  o.client_cpu_us_per_req = r.client_cpu_us_per_req();
  o.errors = l.errors;
  o.errors_total = l.errors.total();
  o.error_samples = l.error_samples;
  o.error_limit_exceeded = r.over_error_limit();
  o.unfinished = l.unfinished;
  o.unsent = l.unsent;
  o.reconnects = l.reconnects;
  o.started_unix_ns = l.started_unix_ns;
  o.contamination_retries = r.contamination_retries;
  if (!r.rows_mix.empty()) {
    o.rows_mix.emplace();
    for (size_t i = 0; i < r.rows_mix.size(); ++i)
      o.rows_mix->push_back(
          {r.rows_mix[i].rows, r.rows_mix[i].weight, i < l.rows_requests.size() ? l.rows_requests[i] : 0});
  }
  // Where each party ran: CPU figures from a shared core are not comparable to pinned ones.
  o.client_thread_cpus = l.thread_cpus;
  o.client_cpus = proc::format_cpu_list(r.client_cpus);
  o.server_local = r.server_local;
  o.cache_local = r.cache_local;
  o.hosts = r.hosts;
  o.response_bytes_per_req = l.requests ? double(l.bytes_read) / double(l.requests) : 0.0;
  o.body_bytes_per_req = l.requests ? double(l.body_bytes) / double(l.requests) : 0.0;
  o.client_cpu_s = r.client_cpu_s;
  o.snapshot_window_s = r.snapshot_window_s;
}

// The server's side: its /stats delta, the CPU accounting of all parties, its sampling.
void describe_server(const RunReport& r, RunRecord& o) {
  o.server_cpu_us_per_req = r.server_cpu_us_per_req();
  o.cache_cpu_us_per_req = r.cache_cpu_us_per_req();
  if (!r.server) {
    o.phases_us_per_req = nullptr;
    o.server.reset();
    if (!r.server_error.empty()) o.server_error = r.server_error;
    return;
  }
  const ServerDelta& s = *r.server;
  o.server_cpus = s.server_cpus;
  o.cache_cpus = placement_cache_cpus(r);
  o.phases_us_per_req = nlohmann::json::object();
  for (const auto& p : s.phases)
    o.phases_us_per_req[p.name] = s.requests ? double(p.sum_ns) / 1000.0 / double(s.requests) : 0.0;
  o.cache_read_bytes_per_req = s.requests ? double(s.cache_bytes_read) / double(s.requests) : 0.0;
  o.cache_written_bytes_per_req = s.requests ? double(s.cache_bytes_written) / double(s.requests) : 0.0;
  o.server = static_cast<const ServerRecord&>(s);  // what a run keeps of the delta
  const std::optional<CpuFigures> cpu = r.cpu();
  // The headline: the server's CPU per hit, sampled, net of idle, in cpu.attribution.
  if (cpu) o.server_cpu_us_per_hit = cpu->server_hit_us;
  if (cpu) o.cpu = cpu_record_of(*cpu, s.requests);
  o.contaminated = r.contaminated();
  o.server_sampling = sampling_record_of(s);
  // Figures that cannot be right, judged on what was just written (figures/cpu_accounting.h).
  if (o.cpu) o.cpu->flags = o.cpu_flags();
  // The server's memory at the window's end: its own (anon + shmem) apart from mapped file
  // pages (RSS counts an mmap store's whole cached file).
  o.server_memory_kb = s.memory;
}
}  // namespace

// The measurement becomes the record every reporter reads: the one place where a RunReport's
// raw parts (histograms, /stats delta, CPU readings) turn into the run's figures.
RunRecord record_of(const RunReport& r) {
  RunRecord o;
  describe_request(r, o);
  describe_outcome(r, o);
  describe_server(r, o);
  o.histogram = histogram_to_json(r.load.latency);
  o.histogram_hit = histogram_to_json(r.load.hit);
  o.histogram_miss = histogram_to_json(r.load.miss);
  o.histogram_service = histogram_to_json(r.load.service);
  o.histogram_send_lateness = histogram_to_json(r.load.send_lateness);
  o.series = series_json(r.load.series, r.load.window_s);
  o.floor = r.floor;
  o.slowest = r.slowest;
  if (!r.floor_error.empty()) o.floor_error = r.floor_error;
  if (!r.idle_error.empty()) o.idle_error = r.idle_error;
  if (r.start_at_unix_ns) {
    o.start_at_unix_ns = r.start_at_unix_ns;
    o.start_late_ms = r.start_late_ms;
  }
  if (!r.sweep_store.empty() || r.repeat_index >= 0) o.repeat = r.repeat_index;
  return o;
}

nlohmann::json to_json(const RunReport& r) { return record_of(r); }

namespace {
void appendf(std::string& out, const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  out += buf;
}
std::string cpus_text(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(cpus[i]);  // appended separately: GCC 12 -Wrestrict false positive on "," + str
  }
  return s.empty() ? "?" : s;
}
// ["0-1"] or "unknown" or [0,1] as plain text; a null entry (a node not on the server's host,
// placement_cache_cpus) is "not on this host"
std::string placement_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return v.dump();
  bool elsewhere = false;
  for (const auto& e : v) elsewhere = elsewhere || e.is_null();
  std::string s;
  for (const auto& e : v) {  // appended piecewise: GCC 12 -Wrestrict false positive on "x" + str
    if (!s.empty()) s += elsewhere ? ", " : " ";
    s += e.is_string() ? e.get<std::string>() : e.is_null() ? std::string(kNotOnThisHost) : e.dump();
  }
  return s.empty() ? "unknown" : s;
}

// "client load-2 · server hitcost-server-0 (another host) · cache mc-0.mc:11211, mc-1.mc:11211 (another host)"
std::string hosts_text(const HostsRecord& h) {
  std::string o = "  hosts         client ";
  for (size_t i = 0; i < h.clients.size(); ++i) {
    if (i) o += ", ";
    o += h.clients[i].hostname.empty() ? "?" : h.clients[i].hostname;
  }
  if (h.server) {
    o += " · server ";
    o += h.server->hostname.empty() ? "?" : h.server->hostname;
    o += h.server->local ? " (this host)" : " (another host)";
  }
  auto where = [](const CacheNodeHostRecord& n) {
    return n.local ? "this host" : n.on_server_host ? "the server's host" : "another host";
  };
  bool same = true;
  for (const CacheNodeHostRecord& n : h.cache) same = same && std::string_view(where(n)) == where(h.cache.front());
  for (size_t i = 0; i < h.cache.size(); ++i) {
    o += i ? ", " : " · cache ";
    o += h.cache[i].node;
    if (!same || i + 1 == h.cache.size()) {
      o += " (";
      o += where(h.cache[i]);
      o += ")";
    }
  }
  return o + "\n";
}
std::string us_or_dash(const std::optional<double>& v) {
  char buf[32];
  if (!v) return "-";
  std::snprintf(buf, sizeof buf, "%.2f", *v);
  return buf;
}
// Flagged figures (figures/cpu_accounting.h check_cpu_figures) as the terminal shows them:
// the number, then "(!k)"; the CPU block ends with a line per flag k saying why.
class FlaggedFigures {
 public:
  explicit FlaggedFigures(std::vector<CpuFlag> flags) : flags_(std::move(flags)) {}
  // `v` formatted with `f`, marked when the figure at `pointer` is flagged.
  std::string num(std::string_view pointer, double v, const char* f = "%.2f") const {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf + mark(pointer);
  }
  std::string num(std::string_view pointer, const std::optional<double>& v, const char* f = "%.2f") const {
    return v ? num(pointer, *v, f) : "-";
  }
  std::string mark(std::string_view pointer) const {
    for (size_t i = 0; i < flags_.size(); ++i)
      if (flags_[i].figure == pointer) return " (!" + std::to_string(i + 1) + ")";
    return "";
  }
  std::string lines() const {
    std::string o;
    for (size_t i = 0; i < flags_.size(); ++i)
      o += "  FLAGGED (!" + std::to_string(i + 1) + ")  " + flags_[i].figure + ": " + flags_[i].why + "\n";
    return o;
  }

 private:
  std::vector<CpuFlag> flags_;
};

// One outcome's sampled parts (µs per request of it), CPU or wall, as "  fetch 4.11 (!2)".
std::string parts_text(const FlaggedFigures& flagged, const char* outcome, const char* kind,
                       const std::vector<std::pair<std::string, double>>& parts, double weight) {
  std::string o;
  for (const auto& [part, ns] : parts)
    if (ns != 0)
      o += "  " + part + " " +
           flagged.num(std::string("/server_sampling/") + outcome + "/" + kind + "/" + part, ns / weight / 1000.0);
  return o;
}

// What every line of the CPU block reads: the figures, the server's delta and the flags.
struct CpuBlock {
  const RunReport& r;
  const CpuFigures& f;
  const ServerDelta& s;
  uint64_t n;        // the server's requests
  const char* mode;  // the attribution's name
  FlaggedFigures flagged;
  // `seconds` per request in µs, marked when the figure at `pointer` is flagged.
  std::string per_req(const char* pointer, double seconds) const {
    return flagged.num(pointer, f.per_request_us(seconds, n));
  }
};

// CPU per hit (the headline, with the other attribution's) and per miss.
std::string per_outcome_lines(const CpuBlock& c) {
  std::string o;
  const CpuFigures& f = c.f;
  if (f.server_hit_us) {
    appendf(o,
            "  CPU per hit   server %s us  (net of idle, %s: %s %.2f, a hit's share of the idle %+.2f and of the "
            "receive work moved %+.2f%s)",
            c.flagged.num("/cpu/server_hit_us", *f.server_hit_us).c_str(), c.mode,
            c.s.read_from_proc() ? "per request, all hits" : "sampled", f.server_hit_sampled_us.value_or(0),
            -f.idle_server_us_per_hit, f.server_shift_us_per_hit,
            f.shared_by_cost ? ", shared by the sampled CPU of hits and misses" : "");
    if (f.attribution == Attribution::sender_pays && f.server_hit_receiver_us)
      o += "; receiver-pays " + c.flagged.num("/cpu/server_hit_receiver_pays_us", *f.server_hit_receiver_us);
    if (f.attribution == Attribution::receiver_pays && f.server_hit_sender_us)
      o += "; sender-pays " + c.flagged.num("/cpu/server_hit_sender_pays_us", *f.server_hit_sender_us);
    o += "\n";
  } else if (c.s.read_from_proc()) {
    o += "  CPU per hit   - (a server read from /proc gives CPU per hit only when every answer is an X-Cache hit)\n";
  } else
    o += "  CPU per hit   - (the server did not sample its CPU: --no-metrics, or an older server)\n";
  if (f.server_miss_us)
    appendf(o, "  CPU per miss  server %s us  (net of idle, %s)\n",
            c.flagged.num("/cpu/server_miss_us", *f.server_miss_us).c_str(), c.mode);
  return o;
}

// CPU per request of every party at the run's hit ratio: net of idle, then raw.
std::string per_request_lines(const CpuBlock& c) {
  std::string o;
  const CpuFigures& f = c.f;
  const uint64_t n = c.n;
  const char* net_set = f.attribution == Attribution::receiver_pays ? "attributed" : "net";
  auto party = [&](const char* set, const char* who) { return std::string("/cpu/per_request_us/") + set + "/" + who; };
  appendf(o, "  CPU us/req    at hit ratio %.3f, net of idle, %s: server %s  ", c.r.hit_ratio(), c.mode,
          c.per_req(party(net_set, "server").c_str(), f.attributed.server).c_str());
  if (!f.attributed.peers_split)
    appendf(o, "cache+client %s", c.per_req(party(net_set, "peers").c_str(), f.attributed.peers()).c_str());
  else
    appendf(o, "cache %s  client %s",
            f.has_cache ? c.per_req(party(net_set, "cache").c_str(), f.attributed.cache).c_str() : "-",
            c.per_req(party(net_set, "client").c_str(), f.attributed.client).c_str());
  appendf(o, "  total %s", c.per_req(party(net_set, "total").c_str(), f.attributed.total()).c_str());
  const std::string judged = proc::format_cpu_list(f.contamination.cpus);  // /proc/stat's busy time on them
  if (f.machine_busy_net_s)
    appendf(o, "  CPUs %s busy %s", judged.c_str(),
            c.per_req("/cpu/machine_busy_us_per_req/net", *f.machine_busy_net_s).c_str());
  else if (!f.local)
    o += "  CPUs busy " + std::string(kNotOnThisHost);
  o += "\n";
  appendf(
      o,
      "                raw (as measured: sender-pays, idle included): server %.2f  cache %s  client %.2f  total %.2f",
      f.per_request_us(f.raw.server, n), f.has_cache ? us_or_dash(f.per_request_us(f.raw.cache, n)).c_str() : "-",
      f.per_request_us(f.raw.client, n), f.per_request_us(f.raw.total(), n));
  if (f.machine_busy_s) appendf(o, "  CPUs %s busy %.2f", judged.c_str(), f.per_request_us(*f.machine_busy_s, n));
  o += "\n";
  return o;
}

// The server's sampled parts of hits and misses, CPU (raw, then corrected for hits) and wall.
std::string sampled_parts_lines(const CpuBlock& c) {
  std::string o;
  const CpuFigures& f = c.f;
  const ServerDelta& s = c.s;
  for (auto [name, d] : {std::pair{"hit", &s.sampled_hit}, {"miss", &s.sampled_miss}}) {
    if (!d->cpu_us() || d->samples == 0) continue;
    appendf(o,
            "  server %-5s  CPU us, sampled (raw: %llu detailed samples, %.2f us in all, %+.2f from their extra "
            "clock reads)\n               ",
            name, static_cast<unsigned long long>(d->samples), d->detailed_cpu_us().value_or(0),
            d->detailed_cpu_us().value_or(0) - d->cpu_us().value_or(0));
    o += parts_text(c.flagged, name, "parts_cpu_us", d->parts_cpu_ns, d->weight);
    if (d == &s.sampled_hit && !f.server_hit_parts.empty()) {
      appendf(
          o,
          "\n                CPU us, corrected like CPU per hit (net of idle, %s; they add up to %s)\n               ",
          c.mode, c.flagged.num("/cpu/server_hit_us", f.server_hit_us.value_or(0)).c_str());
      for (const SampledPart& p : f.server_hit_parts)
        if (p.cpu_us != 0) o += "  " + p.name + " " + c.flagged.num("/cpu/server_hit_parts_us/" + p.name, p.cpu_us);
    }
    o += "\n                wall us\n               ";
    o += parts_text(c.flagged, name, "parts_wall_us", d->parts_wall_ns, d->weight);
    o += "\n";
  }
  return o;
}

// The sampling's own cost and the whole sample's excess taken out.
std::string sampling_lines(const CpuBlock& c) {
  std::string o;
  const ServerDelta& s = c.s;
  if (const auto overhead = s.sampling_overhead())
    appendf(o, "  sampling      about 1 in %llu requests, %.0f ns a clock read, %.2f %% of the server's CPU\n",
            static_cast<unsigned long long>(s.sample_period), s.clock_read_ns, *overhead * 100);
  if (const auto excess = s.sample_excess_us())
    appendf(o,
            "                a whole sample's reads add %+.2f us to the request they time (against %llu clean tiles: "
            "%s us/req unobserved); taken out of CPU per hit and per miss\n",
            *excess, static_cast<unsigned long long>(s.clean_tiles),
            c.flagged.num("/server_sampling/unobserved_cpu_us", *s.unobserved_cpu_us()).c_str());
  else if (s.clock_reads)
    appendf(o,
            "                too few clean tiles (%llu < %llu): CPU per hit as sampled, the reads' own disturbance "
            "left in\n",
            static_cast<unsigned long long>(s.clean_tiles),
            static_cast<unsigned long long>(ServerDelta::kMinCleanTiles));
  return o;
}

// The idle baseline, the attribution, the receive work moved and the contamination.
std::string context_lines(const CpuBlock& c) {
  std::string o;
  const CpuFigures& f = c.f;
  if (f.idle_cores)
    appendf(o, "  idle          server %.4f  cache %.4f  client %.4f cores (%.1f s before the run, no load)\n",
            f.idle_cores->server, f.idle_cores->cache, f.idle_cores->client, c.r.idle ? c.r.idle->window_s : 0.0);
  else if (!c.r.idle_error.empty())
    o += "  idle          none: " + c.r.idle_error + "\n";
  appendf(o, "  attribution   %s\n", f.attribution_note.c_str());
  if (f.attribution == Attribution::sender_pays)
    appendf(o, "                receiver-pays: %s\n", f.receiver_pays_note.c_str());
  if (f.softirq_server_cpus_s)
    appendf(o,
            "  receive work  softirq, net of idle: on the server's CPUs %s us/req (its peers receiving), on the "
            "peers' CPUs %s (the server receiving)\n",
            c.per_req("/cpu/softirq_us_per_req/server_cpus", *f.softirq_server_cpus_s).c_str(),
            c.per_req("/cpu/softirq_us_per_req/peer_cpus", f.softirq_peer_cpus_s.value_or(0)).c_str());
  appendf(o, "  contamination %s: %s%s\n",
          f.local ? to_string(f.contamination.state) : std::string(kNotOnThisHost).c_str(), f.contamination.why.c_str(),
          c.flagged.mark("/cpu/contamination/other_cores").c_str());
  return o;
}

// The CPU block: the headline per hit, per request at the run's hit ratio in every accounting,
// the server's sampled parts, the idle baseline, attribution and contamination. Every figure
// says whether it is raw (as measured) or net (idle taken off) and in which attribution; a
// figure that cannot be right is marked and its reason printed at the end of the block.
std::string format_cpu(const RunReport& r) {
  std::string o;
  const std::optional<CpuFigures> f = r.cpu();
  if (!f) {
    appendf(o, "  CPU us/req    client %.2f raw (no server stats: no server or cache figures)\n",
            r.client_cpu_us_per_req());
    return o;
  }
  const ServerDelta& s = *r.server;
  const uint64_t n = s.requests;
  const CpuBlock c{r,
                   *f,
                   s,
                   n,
                   to_string(f->attribution),
                   FlaggedFigures(check_cpu_figures({{"cpu", cpu_record_of(*f, n)},
                                                     {"server_sampling", sampling_record_of(s)},
                                                     {"server_cpu_us_per_hit", opt(f->server_hit_us)}}))};
  return per_outcome_lines(c) + per_request_lines(c) + sampled_parts_lines(c) + sampling_lines(c) + context_lines(c) +
         c.flagged.lines();
}
}  // namespace

std::string format_error_lines(const RunReport& r) {
  std::string o;
  for (const ErrorSample& x : r.load.error_samples)
    appendf(o, "  first %-12s %s\n", x.kind.c_str(), x.detail.empty() ? "(no reason given)" : x.detail.c_str());
  if (const auto over = r.over_error_limit()) appendf(o, "  ERRORS        %s\n", over->c_str());
  return o;
}

namespace {
double us_at(const Histogram& x, double p) { return double(x.value_at_percentile(p)) / 1000.0; }

// -q: one line per run.
std::string format_quiet(const RunReport& r) {
  std::string o;
  const Histogram& h = r.load.latency;
  appendf(o, "%s %s: %.0f req/s, p50 %.1f us, p99 %.1f us, server %s us/req, client %.2f us/req, errors %llu%s\n",
          r.mode().c_str(), r.strategy().c_str(), r.throughput_rps(), us_at(h, 50), us_at(h, 99),
          us_or_dash(r.server_cpu_us_per_req()).c_str(), r.client_cpu_us_per_req(),
          static_cast<unsigned long long>(r.load.errors.total()), r.interrupted() ? " INTERRUPTED" : "");
  return o;
}

// What was asked: mode, window, target, strategy and store.
std::string format_plan(const RunReport& r) {
  std::string o;
  appendf(o, "hitcost-load: %s, %d connections, %d thread%s, %.2f s window after %.2f s warmup\n", r.mode().c_str(),
          r.connections, r.threads, r.threads == 1 ? "" : "s", r.load.window_s, r.warmup_s);
  if (r.interrupted())
    appendf(o, "  INTERRUPTED   after %.2f s of the %.2f s planned: every figure is over the %.2f s that ran\n",
            r.load.window_s, r.planned_duration_s, r.load.window_s);
  if (r.rate_rps > 0)
    appendf(o, "  open loop at %.0f req/s; latency from the intended send time\n", r.rate_rps);
  else
    appendf(o, "  closed loop: latency from the actual send (stalls are under-represented)\n");
  // A host name, resolved once at start: which address was loaded.
  const std::string at =
      r.url_address.empty() || r.url == "http://" + r.url_address ? std::string() : "  at " + r.url_address;
  if (r.replay.is_object()) {  // the trace chose the keys and their route, and its hit ratio is the target
    appendf(o, "  %s%s%s  replay of %s at %gx, %llu keys", r.url.c_str(),
            r.replay.value("route", std::string("/page/{id}")).c_str(), at.c_str(),
            r.replay.value("trace", std::string("?")).c_str(), r.replay.value("speed", 1.0),
            static_cast<unsigned long long>(r.replay.value("keys", uint64_t{0})));
    if (r.replay.contains("values_corpus"))
      appendf(o, " as values of %s", r.replay["values_corpus"].get<std::string>().c_str());
    if (r.target_hit_ratio) appendf(o, "  the trace's hit ratio %.3f", *r.target_hit_ratio);
  } else {
    appendf(o, "  %s%s%s  keys %llu %s", r.url.c_str(), r.path_template.c_str(), at.c_str(),
            static_cast<unsigned long long>(r.keys), r.key_dist.c_str());
    if (r.target_hit_ratio) appendf(o, "  target hit ratio %.3f", *r.target_hit_ratio);
  }
  if (r.rows) appendf(o, "  rows %d", *r.rows);
  appendf(o, "\n  strategy %s  store %s\n\n", r.strategy().empty() ? "?" : r.strategy().c_str(),
          r.store().empty() ? "?" : r.store().c_str());
  return o;
}

// Requests and errors by kind, overload, the rows mix, the hit ratio.
std::string format_counts(const RunReport& r) {
  std::string o;
  const auto& e = r.load.errors;
  appendf(o,
          "  requests      %-10llu %.1f req/s   errors %llu (connect %llu, read %llu, write %llu, timeout %llu, "
          "status %llu, parse %llu, validation %llu)\n",
          static_cast<unsigned long long>(r.load.requests), r.throughput_rps(),
          static_cast<unsigned long long>(e.total()), static_cast<unsigned long long>(e.connect),
          static_cast<unsigned long long>(e.read), static_cast<unsigned long long>(e.write),
          static_cast<unsigned long long>(e.timeout), static_cast<unsigned long long>(e.status),
          static_cast<unsigned long long>(e.parse), static_cast<unsigned long long>(e.validation));
  o += format_error_lines(r);
  if (r.load.unfinished || r.load.unsent)
    appendf(o,
            "  OVERLOAD      %llu requests due in the window were never sent and %llu not answered; both are in "
            "the latency as (window end - intended time)\n",
            static_cast<unsigned long long>(r.load.unsent), static_cast<unsigned long long>(r.load.unfinished));
  if (!r.rows_mix.empty()) {
    o += "  rows mix     ";
    for (size_t i = 0; i < r.rows_mix.size(); ++i)
      appendf(o, "  %d rows: %llu", r.rows_mix[i].rows,
              static_cast<unsigned long long>(i < r.load.rows_requests.size() ? r.load.rows_requests[i] : 0));
    o += "\n";
  }
  const uint64_t tagged = r.load.hit.count() + r.load.miss.count();
  appendf(o, "  hit ratio     %.4f %s", r.hit_ratio(), r.server ? "(server counters)" : "(X-Cache)");
  if (r.server && tagged) appendf(o, "  %.4f (X-Cache)", double(r.load.hit.count()) / double(tagged));
  o += "\n";
  return o;
}

// Latency percentiles: all, hits, misses; in open loop the service time and the send lateness.
std::string format_latency(const RunReport& r) {
  std::string o;
  const Histogram& h = r.load.latency;
  appendf(o, "  latency us    p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f  max %.1f  mean %.1f\n",
          us_at(h, 50), us_at(h, 90), us_at(h, 99), us_at(h, 99.9), us_at(h, 99.99), double(h.max()) / 1000.0,
          h.mean() / 1000.0);
  if (r.load.hit.count())
    appendf(o, "  hits   us     p50 %.1f  p99 %.1f  (n=%llu)\n", us_at(r.load.hit, 50), us_at(r.load.hit, 99),
            static_cast<unsigned long long>(r.load.hit.count()));
  if (r.load.miss.count())
    appendf(o, "  misses us     p50 %.1f  p99 %.1f  (n=%llu)\n", us_at(r.load.miss, 50), us_at(r.load.miss, 99),
            static_cast<unsigned long long>(r.load.miss.count()));
  if (r.rate_rps > 0) {
    appendf(o, "  service us    p50 %.1f  p99 %.1f  (from the actual send)\n", us_at(r.load.service, 50),
            us_at(r.load.service, 99));
    appendf(o,
            "  send lateness us  p50 %.1f  p99 %.1f  max %.1f  (actual send - intended; the tool's own delay; "
            "spin %.0f us)\n",
            us_at(r.load.send_lateness, 50), us_at(r.load.send_lateness, 99),
            double(r.load.send_lateness.max()) / 1000.0, double(r.load.spin_ns) / 1000.0);
  }
  return o;
}

// The server's phases, bytes, errors and memory; or why there are no server figures.
std::string format_server(const RunReport& r) {
  std::string o;
  const double response = r.load.requests ? double(r.load.bytes_read) / double(r.load.requests) : 0.0;
  if (!r.server) {
    appendf(o, "  bytes/req     response %.0f\n", response);
    if (!r.server_error.empty()) appendf(o, "  server stats  unavailable: %s\n", r.server_error.c_str());
    return o;
  }
  const ServerDelta& s = *r.server;
  o += "  phases us/req";
  for (const auto& p : s.phases)
    appendf(o, "  %s %.2f", p.name.c_str(), s.requests ? double(p.sum_ns) / 1000.0 / double(s.requests) : 0.0);
  o += "\n";
  appendf(o, "  bytes/req     response %.0f  cache read %.0f  cache written %.0f\n", response,
          s.requests ? double(s.cache_bytes_read) / double(s.requests) : 0.0,
          s.requests ? double(s.cache_bytes_written) / double(s.requests) : 0.0);
  if (s.decode_errors || s.store_errors || s.bad_requests)
    appendf(o, "  server errors decode %llu  store %llu  bad requests %llu\n",
            static_cast<unsigned long long>(s.decode_errors), static_cast<unsigned long long>(s.store_errors),
            static_cast<unsigned long long>(s.bad_requests));
  if (s.memory.is_object()) {
    auto kb = [&](const char* k) {
      return s.memory.contains(k) && s.memory[k].is_number()
                 ? std::to_string(s.memory[k].get<uint64_t>() / 1024) + " MiB"
                 : std::string("-");
    };
    appendf(o, "  server memory own %s (anon + shmem), PSS %s, RSS %s; store file in page cache %s\n",
            kb("process_own_kb").c_str(), kb("pss_kb").c_str(), kb("rss_kb").c_str(),
            kb("store_file_resident_kb").c_str());
  }
  if (s.counters_reset) o += "  WARNING: server counters were reset during the run; server figures are wrong\n";
  return o;
}

// Where the threads, the server and the cache ran; retries for contamination.
std::string format_placement(const RunReport& r) {
  std::string o = "  threads ran on";
  for (size_t i = 0; i < r.load.thread_cpus.size(); ++i)
    appendf(o, "  t%zu: cpu %s", i, cpus_text(r.load.thread_cpus[i]).c_str());
  o += r.cpus.empty() ? "  (not pinned)\n" : "  (pinned)\n";
  if (r.server && r.server->read_from_proc()) {
    appendf(o, "  backend       %s, read from /proc%s\n", r.server->backend.c_str(),
            r.server->members_changed ? " (processes came or went in the window: CPU incomplete)" : "");
  }
  if (r.server) {
    std::string server = placement_text(r.server->server_cpus);
    if (!r.server_local) server += " (on its host, not this one)";
    appendf(o, "  server cpus %s  cache cpus %s\n", server.c_str(), placement_text(placement_cache_cpus(r)).c_str());
  }
  o += hosts_text(r.hosts);
  if (r.start_at_unix_ns) {
    const time_t secs = time_t(*r.start_at_unix_ns / 1'000'000'000);
    tm utc{};
    gmtime_r(&secs, &utc);
    char when[32];
    std::strftime(when, sizeof when, "%FT%T", &utc);
    appendf(o, "  start         --start-at %s.%03lluZ, the load began %.1f ms past it%s\n", when,
            static_cast<unsigned long long>(*r.start_at_unix_ns / 1'000'000 % 1000), r.start_late_ms,
            r.start_late_ms > 100 ? " (late: the windows of the other clients overlap less)" : "");
  }
  if (r.contamination_retries)
    appendf(o, "  re-run %d time%s because the machine was busy with other work; the cleanest attempt is shown\n",
            r.contamination_retries, r.contamination_retries == 1 ? "" : "s");
  return o;
}

std::string format_distribution(const RunReport& r) {
  const Histogram& h = r.load.latency;
  // Without X-Cache tags (another path) the shape alone names the peaks.
  const bool misses_seen = r.load.miss.count() > 0 || r.load.hit.count() == 0;
  return "\n  latency distribution (log2)\n" + format_log2(Log2Histogram::from_ns(h), h.mean() / 1000.0, misses_seen);
}
}  // namespace

// The run's hit against its floor (calibrated before it, measure/floor_request.h): total and parts.
std::string format_floor(const RunReport& r) {
  if (!r.floor.is_object()) return r.floor_error.empty() ? "" : "  floor         none: " + r.floor_error + "\n";
  const RunRecord rec = record_of(r);
  const std::optional<double> total = rec.floor_us("total");
  if (!total) return "";
  std::string o;
  appendf(o,
          "  floor         %.2f us per hit (calibrated on the server before the run: each step at its fastest "
          "library, no glue)",
          *total);
  if (rec.server_cpu_us_per_hit && *total > 0)
    appendf(o, "; measured %.2f = %.2fx", *rec.server_cpu_us_per_hit, *rec.server_cpu_us_per_hit / *total);
  o += "\n                ";
  const auto* parts = rec.cpu && rec.cpu->server_hit_parts_us ? &*rec.cpu->server_hit_parts_us : nullptr;
  for (const std::string& p : hit_parts()) {
    const std::optional<double> f = rec.floor_us(p);
    const auto m = parts ? parts->find(p) : decltype(parts->end()){};
    if (parts && m != parts->end())
      appendf(o, "%s %.1f/%.1f  ", p.c_str(), m->second, f.value_or(0));
    else
      appendf(o, "%s -/%.1f  ", p.c_str(), f.value_or(0));
  }
  o += "(us: measured/floor)\n";
  return o;
}

std::string format_terminal(const RunReport& r, bool quiet) {
  if (quiet) return format_quiet(r);
  return format_plan(r) + format_counts(r) + format_latency(r) + format_cpu(r) + format_floor(r) + format_server(r) +
         slowest_text(r.slowest) + format_placement(r) + format_distribution(r);
}

}  // namespace hitcost::client
