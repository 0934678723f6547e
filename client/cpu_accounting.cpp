#include "client/cpu_accounting.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace hitcost::client {

namespace {
// /proc/stat's busy time is sampled by the scheduler tick (CONFIG_HZ, 250 here) and printed in
// 10 ms units: over a window of w s on n CPUs it is known to about
// sqrt(n · p(1−p) / (HZ · w)) cores (p = busy fraction, at worst 1/2) plus n · 10 ms / w.
// Three times that is the least "other work" a run can be blamed for.
constexpr double kTickHz = 250, kUnitS = 0.01;
double tick_noise_cores(size_t cpus, double window_s) {
  if (window_s <= 0) return 0;
  return 3 * std::sqrt(double(cpus) * 0.25 / (kTickHz * window_s)) + double(cpus) * kUnitS / window_s;
}

std::vector<int> union_of(std::initializer_list<const std::vector<int>*> lists) {
  std::set<int> s;
  for (const auto* l : lists) s.insert(l->begin(), l->end());
  return {s.begin(), s.end()};
}
bool disjoint(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return false;
  return true;
}
std::string fmt(const char* f, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}
}  // namespace

const char* to_string(Attribution a) noexcept {
  return a == Attribution::receiver_pays ? "receiver-pays" : "sender-pays";
}

const char* to_string(Contamination::State s) noexcept {
  switch (s) {
    case Contamination::State::clean: return "clean";
    case Contamination::State::contaminated: return "contaminated";
    case Contamination::State::unknown: break;
  }
  return "unknown";
}

namespace {

Contamination judge_contamination(const CpuReadings& r, const PartyCpu& own) {
  Contamination c;
  const bool has_cache = r.cache_cpu_s.has_value();
  if (!r.machine) {
    c.why = "no per-CPU times (/proc/stat) for the window";
    return c;
  }
  if (!r.server_local) {
    c.why = "the server is not on this machine: its CPU cannot be told apart from other work here";
    return c;
  }
  if (has_cache && !r.cache_local) {
    c.why = "a cache node is not on this machine: its CPU cannot be told apart from other work here";
    return c;
  }
  if (r.server_cpus.empty() || r.client_cpus.empty() || (has_cache && r.cache_cpus.empty())) {
    c.why = "where a measured process may run is unknown";
    return c;
  }
  c.cpus = union_of({&r.server_cpus, &r.cache_cpus, &r.client_cpus});
  const proc::CpuTimes t = r.machine->over(c.cpus);
  const double w = r.window_s > 0 ? r.window_s : 1;
  c.own_cores = own.total() / w;
  c.other_cores = (t.busy() - own.total()) / w;
  c.steal_cores = t.steal / w;
  const double limit = std::max(r.contamination_threshold * c.own_cores, tick_noise_cores(c.cpus.size(), w));
  const bool bad = c.other_cores + c.steal_cores > limit;
  c.state = bad ? Contamination::State::contaminated : Contamination::State::clean;
  c.why = fmt("on CPUs %s: %.3f cores of other work and %.3f of steal next to %.3f of our own (limit %.3f)",
              proc::format_cpu_list(c.cpus).c_str(), c.other_cores, c.steal_cores, c.own_cores, limit);
  return c;
}

// Softirq seconds on `cpus` over the window, net of the idle rate there.
double softirq_net(const CpuReadings& r, const std::vector<int>& cpus) {
  double s = r.machine->over(cpus).softirq;
  if (r.idle_machine && r.idle_window_s > 0) s -= r.idle_machine->over(cpus).softirq / r.idle_window_s * r.window_s;
  return s;
}

// Why receive work cannot be moved to the receiver for this run; empty when it can.
std::string cannot_move(const CpuReadings& r) {
  const bool has_cache = r.cache_cpu_s.has_value();
  if (!r.machine) return "no per-CPU times (/proc/stat)";
  if (!r.server_local || (has_cache && !r.cache_local)) return "a measured process is on another machine";
  if (r.server_cpus.empty() || r.client_cpus.empty() || (has_cache && r.cache_cpus.empty()))
    return "where a measured process may run is unknown";
  const std::vector<int> peers = union_of({&r.cache_cpus, &r.client_cpus});
  if (!disjoint(r.server_cpus, peers))
    return "the server shares CPUs " + proc::format_cpu_list(r.server_cpus) + " with its peers (" +
           proc::format_cpu_list(peers) + "): pin it apart (hitcost-server --cpus, hitcost-load --cpus)";
  return {};
}

// The receiver-pays split of the net figures, and a note saying what was moved.
void move_receive_work(const CpuReadings& r, CpuFigures& f) {
  PartyCpu moved = f.net;
  const bool has_cache = r.cache_cpu_s.has_value();
  const std::vector<int> peers = union_of({&r.cache_cpus, &r.client_cpus});
  const double on_server = softirq_net(r, r.server_cpus);  // peers receiving what the server sent
  const double on_peers = softirq_net(r, peers);           // the server receiving what peers sent
  f.softirq_server_cpus_s = on_server;
  f.softirq_peer_cpus_s = on_peers;
  // The peers' receive work done on the server's CPUs, split by the bytes each received.
  const double got_client = r.bytes_client_received, got_cache = has_cache ? r.bytes_cache_received : 0;
  const double client_in = got_client + got_cache > 0 ? on_server * got_client / (got_client + got_cache) : on_server;
  const double cache_in = on_server - client_in;
  // The server's receive work done on the peers' CPUs, taken from whoever sent it: exact per
  // CPU when the cache and the client have CPUs of their own; otherwise only their sum is known.
  moved.server = f.net.server - on_server + on_peers;
  std::string split = "by CPU for what they sent, by bytes for what they received";
  if (has_cache && !disjoint(r.cache_cpus, r.client_cpus)) {
    moved.cache = f.net.cache;  // kept so that the total stays conserved; not reported alone
    moved.client = f.net.client + on_server - on_peers;
    moved.peers_split = false;
    split = "not split between cache and client (they share CPUs; only their sum is known)";
  } else {
    const double cache_out = has_cache ? softirq_net(r, r.cache_cpus) : 0;
    moved.cache = f.net.cache + cache_in - cache_out;
    moved.client = f.net.client + client_in - (on_peers - cache_out);
  }
  f.receiver_pays = moved;
  f.receiver_pays_note =
      fmt("softirq on the server's CPUs %s (%.1f ms) billed to its peers and on theirs %s "
          "(%.1f ms) to the server; peers %s",
          proc::format_cpu_list(r.server_cpus).c_str(), on_server * 1e3, proc::format_cpu_list(peers).c_str(),
          on_peers * 1e3, split.c_str());
}

}  // namespace

CpuFigures account(const CpuReadings& r, Attribution want) {
  CpuFigures f;
  const bool has_cache = r.cache_cpu_s.has_value();
  f.has_cache = has_cache;
  f.raw = {r.server_cpu_s, r.cache_cpu_s.value_or(0), r.client_cpu_s};
  f.net = f.raw;
  if (r.idle_window_s > 0) {
    const double iw = r.idle_window_s;
    PartyCpu rate{r.idle_server_cpu_s / iw, has_cache ? r.idle_cache_cpu_s.value_or(0) / iw : 0,
                  r.idle_client_cpu_s / iw};
    f.idle_cores = rate;
    f.net.server -= rate.server * r.window_s;
    f.net.cache -= rate.cache * r.window_s;
    f.net.client -= rate.client * r.window_s;
  }
  f.contamination = judge_contamination(r, f.raw);
  if (!f.contamination.cpus.empty()) {
    f.machine_busy_s = r.machine->over(f.contamination.cpus).busy();
    f.machine_busy_net_s = *f.machine_busy_s;
    if (r.idle_machine && r.idle_window_s > 0)
      *f.machine_busy_net_s -= r.idle_machine->over(f.contamination.cpus).busy() / r.idle_window_s * r.window_s;
  }
  if (r.machine && !r.server_cpus.empty() && r.server_local) {
    const std::vector<int> peers = union_of({&r.cache_cpus, &r.client_cpus});
    if (disjoint(r.server_cpus, peers)) {
      auto busy_net = [&](const std::vector<int>& cpus) {
        double b = r.machine->over(cpus).busy();
        if (r.idle_machine && r.idle_window_s > 0)
          b -= r.idle_machine->over(cpus).busy() / r.idle_window_s * r.window_s;
        return b;
      };
      f.busy_server_cpus_s = busy_net(r.server_cpus);
      f.busy_peer_cpus_s = busy_net(peers);
    }
  }
  // Both splits from the same run; the headline uses the one asked for, when it can be had.
  const std::string why = cannot_move(r);
  if (why.empty())
    move_receive_work(r, f);
  else
    f.receiver_pays_note = "cannot move receive work to the receiver: " + why;
  f.attributed = f.net;
  if (want == Attribution::receiver_pays && f.receiver_pays) {
    f.attribution = Attribution::receiver_pays;
    f.attributed = *f.receiver_pays;
    f.attribution_note = "receiver-pays: " + f.receiver_pays_note;
  } else {
    f.attribution_note = want == Attribution::receiver_pays
                             ? "sender-pays (receiver-pays was asked, but " + why + ")"
                             : "sender-pays: each process is billed for the kernel's receive work of what it sent";
  }
  const uint64_t n = r.server_requests;
  f.idle_server_us_per_req = f.per_request_us(f.raw.server - f.net.server, n);
  f.server_shift_us_per_req = f.per_request_us(f.attributed.server - f.net.server, n);
  f.server_hit_sampled_us = r.sampled_hit_us;
  if (r.sampled_hit_us) {
    const double sender = *r.sampled_hit_us - f.idle_server_us_per_req;
    f.server_hit_sender_us = sender;
    if (f.receiver_pays)
      f.server_hit_receiver_us = sender + f.per_request_us(f.receiver_pays->server - f.net.server, n);
    f.server_hit_us = sender + f.server_shift_us_per_req;
  }
  if (r.sampled_miss_us) f.server_miss_us = *r.sampled_miss_us - f.idle_server_us_per_req + f.server_shift_us_per_req;
  return f;
}

nlohmann::json cpu_figures_json(const CpuFigures& f, uint64_t requests) {
  using nlohmann::json;
  auto per_req = [&](const PartyCpu& p) {
    auto part = [&](double s) { return p.peers_split ? json(f.per_request_us(s, requests)) : json(nullptr); };
    return json{{"server", f.per_request_us(p.server, requests)},
                {"cache", f.has_cache ? part(p.cache) : json(nullptr)},
                {"client", part(p.client)},
                {"peers", f.per_request_us(p.peers(), requests)},
                {"total", f.per_request_us(p.total(), requests)}};
  };
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  auto opt_us = [&](const std::optional<double>& s) {
    return s ? json(f.per_request_us(*s, requests)) : json(nullptr);
  };
  const Contamination& c = f.contamination;
  return {{"attribution", to_string(f.attribution)},
          {"attribution_note", f.attribution_note},
          {"requests", requests},
          {"receiver_pays_note", f.receiver_pays_note},
          {"per_request_us",
           {{"raw", per_req(f.raw)},
            {"net", per_req(f.net)},
            {"receiver_pays", f.receiver_pays ? per_req(*f.receiver_pays) : json(nullptr)},
            {"attributed", per_req(f.attributed)}}},
          {"machine_busy_us_per_req", {{"raw", opt_us(f.machine_busy_s)}, {"net", opt_us(f.machine_busy_net_s)}}},
          {"idle_cores", f.idle_cores ? json{{"server", f.idle_cores->server},
                                             {"cache", f.idle_cores->cache},
                                             {"client", f.idle_cores->client}}
                                      : json(nullptr)},
          {"softirq_us_per_req",
           {{"server_cpus", opt_us(f.softirq_server_cpus_s)}, {"peer_cpus", opt_us(f.softirq_peer_cpus_s)}}},
          {"cpus_busy_us_per_req",
           {{"server_cpus", opt_us(f.busy_server_cpus_s)}, {"peer_cpus", opt_us(f.busy_peer_cpus_s)}}},
          {"server_hit_us", opt(f.server_hit_us)},
          {"server_hit_sampled_us", opt(f.server_hit_sampled_us)},
          {"server_hit_sender_pays_us", opt(f.server_hit_sender_us)},
          {"server_hit_receiver_pays_us", opt(f.server_hit_receiver_us)},
          {"server_miss_us", opt(f.server_miss_us)},
          {"idle_server_us_per_req", f.idle_server_us_per_req},
          {"server_shift_us_per_req", f.server_shift_us_per_req},
          {"contamination",
           {{"state", to_string(c.state)},
            {"why", c.why},
            {"cpus", proc::format_cpu_list(c.cpus)},
            {"own_cores", c.own_cores},
            {"other_cores", c.other_cores},
            {"steal_cores", c.steal_cores},
            {"fraction", c.fraction()}}}};
}

}  // namespace hitcost::client
