#include "figures/cpu_accounting.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string_view>

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
  char buf[640];  // the longest flag's reason with its numbers
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}
}  // namespace

bool part_has_wall(std::string_view part) noexcept { return part != "receive" && part != "other"; }

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
    c.why = "the server runs on another host; its CPU cannot be told apart from other work here";
    return c;
  }
  if (has_cache && !r.cache_local) {
    c.why = "a cache node runs on another host; its CPU cannot be told apart from other work here";
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
  c.steal_cores = t.steal / w;
  // The kernel's work, placed on CPUs by their softirq + irq time (see the header).
  auto kernel_on = [&](const std::vector<int>& cpus) -> double {
    if (!r.census) return 0;
    const double everyone = r.census->user_s + r.census->kernel_threads_s;
    const double kernel = std::max(0.0, r.machine->all.busy() - everyone) + r.census->kernel_threads_s;
    const proc::CpuTimes all = r.machine->all, here = r.machine->over(cpus);
    const double interrupts = all.softirq + all.irq;
    return interrupts > 0 ? kernel * (here.softirq + here.irq) / interrupts : 0;
  };
  c.other_cores = (t.busy() - own.total() - kernel_on(c.cpus)) / w;
  if (r.census) {
    c.kernel_cores = kernel_on(c.cpus) / w;
    for (int cpu : c.cpus) {
      const proc::CpuTimes one = r.machine->over({cpu});
      c.kernel_where += fmt("%sCPU %d softirq %.3f", c.kernel_where.empty() ? "" : ", ", cpu, one.softirq / w);
    }
  }
  const std::vector<int> peers = union_of({&r.cache_cpus, &r.client_cpus});
  if (disjoint(r.server_cpus, peers)) {
    c.other_server_cores = (r.machine->over(r.server_cpus).busy() - own.server - kernel_on(r.server_cpus)) / w;
    c.other_peer_cores = (r.machine->over(peers).busy() - own.peers() - kernel_on(peers)) / w;
  }
  const double limit = std::max(r.contamination_threshold * c.own_cores, tick_noise_cores(c.cpus.size(), w));
  const bool bad = c.other_cores + c.steal_cores > limit;
  c.state = bad ? Contamination::State::contaminated : Contamination::State::clean;
  c.why = fmt("on CPUs %s: %.3f cores of other work and %.3f of steal next to %.3f of our own (limit %.3f)",
              proc::format_cpu_list(c.cpus).c_str(), c.other_cores, c.steal_cores, c.own_cores, limit);
  if (c.other_server_cores)
    c.why +=
        fmt("; other work on the server's CPUs %.3f, on its peers' %.3f", *c.other_server_cores, *c.other_peer_cores);
  if (c.kernel_cores)
    c.why += fmt("; kernel work billed to none of ours %.3f cores, not counted (%s)", *c.kernel_cores,
                 c.kernel_where.c_str());
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
  if (!r.server_local || (has_cache && !r.cache_local))
    return "a measured process is on another machine (not on this host)";
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
  // No figures in the note (they are softirq_*_cpus_s): one note per placement, the same in
  // every run of a sweep, so a report can name it once.
  f.receiver_pays_note = "softirq on the server's CPUs " + proc::format_cpu_list(r.server_cpus) +
                         " billed to its peers and on theirs " + proc::format_cpu_list(peers) +
                         " to the server; peers " + split;
}

// A hit's and a miss's share of a window total (4. Per hit): c_k / Σ_j n_j·c_j, an outcome
// without samples counted at the sampled mean; 1/n each where nothing was sampled.
struct Shares {
  bool by_cost = false;
  double hit = 0, miss = 0;
};
Shares outcome_shares(const CpuReadings& r) {
  Shares s;
  const uint64_t n = r.server_requests;
  if (n == 0) return s;
  const uint64_t hits = std::min(r.server_hits, n), misses = std::min(r.server_misses, n - hits),
                 other = n - hits - misses;
  double known_us = 0, known_n = 0;
  for (auto [count, cpu] :
       {std::pair{hits, r.sampled_hit_us}, {misses, r.sampled_miss_us}, {other, r.sampled_other_us}})
    if (count > 0 && cpu) {
      known_us += double(count) * *cpu;
      known_n += double(count);
    }
  if (known_n <= 0 || known_us <= 0) {
    s.hit = s.miss = 1.0 / double(n);
    return s;
  }
  const double mean = known_us / known_n, total = mean * double(n);
  s.by_cost = true;
  s.hit = r.sampled_hit_us.value_or(mean) / total;
  s.miss = r.sampled_miss_us.value_or(mean) / total;
  return s;
}

}  // namespace

CpuFigures account(const CpuReadings& r, Attribution want) {
  CpuFigures f;
  const bool has_cache = r.cache_cpu_s.has_value();
  f.has_cache = has_cache;
  f.local = r.server_local && (!has_cache || r.cache_local);
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
  // The window's totals (µs), shared among the outcomes by what each costs.
  const Shares share = outcome_shares(r);
  const double idle_us = (f.raw.server - f.net.server) * 1e6, shift_us = (f.attributed.server - f.net.server) * 1e6;
  f.shared_by_cost = share.by_cost;
  f.idle_server_us_per_hit = idle_us * share.hit;
  f.server_shift_us_per_hit = shift_us * share.hit;
  f.idle_server_us_per_miss = idle_us * share.miss;
  f.server_shift_us_per_miss = shift_us * share.miss;
  f.server_hit_sampled_us = r.sampled_hit_us;
  if (r.sampled_hit_us) {
    const double sender = *r.sampled_hit_us - f.idle_server_us_per_hit;
    f.server_hit_sender_us = sender;
    if (f.receiver_pays) f.server_hit_receiver_us = sender + (f.receiver_pays->server - f.net.server) * 1e6 * share.hit;
    f.server_hit_us = sender + f.server_shift_us_per_hit;
  }
  if (r.sampled_miss_us) f.server_miss_us = *r.sampled_miss_us - f.idle_server_us_per_miss + f.server_shift_us_per_miss;
  // The parts, each by its share of their sum: they add up to the headline.
  double parts_us = 0;
  for (const SampledPart& p : r.hit_parts) parts_us += p.cpu_us;
  if (f.server_hit_us && parts_us > 0)
    for (SampledPart p : r.hit_parts) {
      p.cpu_us *= *f.server_hit_us / parts_us;
      f.server_hit_parts.push_back(std::move(p));
    }
  return f;
}

namespace {

// What is wrong with a figure that fails its check, by what it was computed from.
enum class Rule {
  net_of_idle,     // below zero: `against` is the raw figure the idle baseline was taken off
  idle_rate,       // below zero: an idle rate taken off a figure with no raw counterpart here
  attributed,      // below zero: `against` is the raw figure; idle off, receive work moved
  moved,           // below zero: `against` is the figure before receive work was moved
  shared,          // below zero: `against` is the sampled figure the idle and moved shares came off
  excess,          // below zero: `against` is the figure as sampled, the reads' excess came off
  clock_cost,      // below zero: a clock read's calibrated cost came off each part
  above_wall,      // above `against`, the part's wall time
  own_above_busy,  // below zero: our own CPU (getrusage) above the busy time /proc/stat shows
  clean_tiles,     // below zero: the clean tiles' estimate of the CPU nobody observes
};

// THE checks: every figure of a run JSON that can come out impossible, once. `figure` and
// `against` are JSON pointers in the run; '*' stands for every key at that level, and the
// same keys fill the '*'s of `against`. Absent or null figures are skipped.
struct Check {
  const char* figure;
  Rule rule;
  const char* against;  // nullptr: nothing to compare with
  const char* unit;
};
constexpr Check kChecks[] = {
    {"/server_cpu_us_per_hit", Rule::shared, "/cpu/server_hit_sampled_us", "us"},
    {"/cpu/server_hit_us", Rule::shared, "/cpu/server_hit_sampled_us", "us"},
    {"/cpu/server_hit_sender_pays_us", Rule::shared, "/cpu/server_hit_sampled_us", "us"},
    {"/cpu/server_hit_receiver_pays_us", Rule::shared, "/cpu/server_hit_sampled_us", "us"},
    {"/cpu/server_miss_us", Rule::shared, "/server_sampling/miss/unobserved_cpu_us", "us"},
    {"/cpu/server_hit_parts_us/*", Rule::shared, "/server_sampling/hit/parts_cpu_us/*", "us"},
    {"/cpu/server_hit_sampled_us", Rule::excess, "/server_sampling/hit/cpu_us", "us"},
    {"/server_sampling/*/unobserved_cpu_us", Rule::excess, "/server_sampling/*/cpu_us", "us"},
    {"/server_sampling/*/cpu_us", Rule::clock_cost, nullptr, "us"},
    {"/server_sampling/*/detailed_cpu_us", Rule::clock_cost, nullptr, "us"},
    {"/server_sampling/unobserved_cpu_us", Rule::clean_tiles, nullptr, "us/req"},
    {"/server_sampling/*/parts_cpu_us/*", Rule::clock_cost, nullptr, "us"},
    {"/server_sampling/*/parts_cpu_us/*", Rule::above_wall, "/server_sampling/*/parts_wall_us/*", "us"},
    {"/cpu/per_request_us/net/*", Rule::net_of_idle, "/cpu/per_request_us/raw/*", "us/req"},
    {"/cpu/per_request_us/receiver_pays/*", Rule::moved, "/cpu/per_request_us/net/*", "us/req"},
    {"/cpu/per_request_us/attributed/*", Rule::attributed, "/cpu/per_request_us/raw/*", "us/req"},
    {"/cpu/machine_busy_us_per_req/net", Rule::net_of_idle, "/cpu/machine_busy_us_per_req/raw", "us/req"},
    {"/cpu/softirq_us_per_req/*", Rule::idle_rate, nullptr, "us/req"},
    {"/cpu/cpus_busy_us_per_req/*", Rule::idle_rate, nullptr, "us/req"},
    {"/cpu/contamination/other_cores", Rule::own_above_busy, nullptr, "cores"},
    {"/cpu/contamination/other_server_cores", Rule::own_above_busy, nullptr, "cores"},
    {"/cpu/contamination/other_peer_cores", Rule::own_above_busy, nullptr, "cores"},
    {"/cpu/contamination/kernel_cores", Rule::own_above_busy, nullptr, "cores"},
    {"/cpu/contamination/fraction", Rule::own_above_busy, nullptr, "of our own"},
};

std::string pointer_token(const std::string& key) {
  std::string t;
  for (char c : key) t += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return t;
}

// Calls f(pointer, value, stars) for every number at `pattern` under `j`.
template <class F>
void each_number(const nlohmann::json& j, std::string_view pattern, const std::string& at,
                 std::vector<std::string>& stars, F&& f) {
  if (pattern.empty()) {
    if (j.is_number()) f(at, j.get<double>(), stars);
    return;
  }
  pattern.remove_prefix(1);  // the '/'
  const size_t end = pattern.find('/');
  const std::string_view seg = pattern.substr(0, end), rest = end == std::string_view::npos ? "" : pattern.substr(end);
  if (!j.is_object()) return;
  if (seg == "*") {
    for (const auto& [key, v] : j.items()) {
      stars.push_back(key);
      each_number(v, rest, at + "/" + pointer_token(key), stars, f);
      stars.pop_back();
    }
  } else if (const auto it = j.find(std::string(seg)); it != j.end()) {
    each_number(*it, rest, at + "/" + std::string(seg), stars, f);
  }
}

// `pattern` with its '*'s replaced by `stars`, looked up in `run`.
std::optional<double> number_at(const nlohmann::json& run, const char* pattern, const std::vector<std::string>& stars) {
  if (!pattern) return std::nullopt;
  std::string p;
  size_t star = 0;
  for (const char* c = pattern; *c; ++c)
    p += *c == '*' && star < stars.size() ? pointer_token(stars[star++]) : std::string(1, *c);
  const nlohmann::json::json_pointer ptr(p);
  if (!run.contains(ptr) || !run.at(ptr).is_number()) return std::nullopt;
  return run.at(ptr).get<double>();
}

// Below zero by less than this (in the figure's unit) is rounding of the arithmetic, not a
// figure: 0.1 + 0.2 − 0.3 is not "other work below zero".
constexpr double kRounding = 1e-9;

// Three significant digits (or `digits`), never in exponent form: "-4500", "3.62", "0.0123".
std::string n3(double v, int digits = 3) {
  if (v == 0 || !std::isfinite(v)) return fmt("%g", v);
  const int decimals = std::clamp(digits - 1 - int(std::floor(std::log10(std::abs(v)))), 0, 9);
  return fmt("%.*f", decimals, v);
}

// Why a figure of `value` fails its check; "" when it passes.
std::string failure(const Check& c, double value, std::optional<double> against, const std::string& last_key) {
  const std::string v = n3(value) + " " + c.unit;
  if (c.rule == Rule::above_wall) {
    if (!part_has_wall(last_key) || !against || value <= *against) return {};
    return "CPU " + v + " above its wall time " + n3(*against) + " " + c.unit +
           ": a part's CPU is counted from the previous clock read (work between phases lands in it, less a "
           "calibrated read's cost), its wall time over the phase alone";
  }
  if (value >= -kRounding) return {};
  // What was taken off and what it was taken from, to as many digits as tell them apart.
  std::string was = "?", off = "?";
  for (int digits = 3; against && digits <= 6 && was == off; ++digits) {
    was = n3(*against, digits);
    off = n3(*against - value, digits);
  }
  switch (c.rule) {
    case Rule::net_of_idle:
      if (against)
        return v + ", below zero: the idle baseline taken off (" + off + ") is above the run's own raw " + was +
               " (a noisy baseline, or too few requests in the window)";
      [[fallthrough]];
    case Rule::idle_rate:
      return v +
             ", below zero: the idle rate of this work, measured before the run, is above the run's own (a noisy "
             "baseline, or too few requests in the window)";
    case Rule::attributed:
      return v + ", below zero: the idle baseline and the receive work moved take " + off + " off the run's own raw " +
             was;
    case Rule::moved: return v + ", below zero after moving receive work: " + was + " before the move";
    case Rule::shared:
      return v + ", below zero: the shares of the idle baseline and of the receive work moved (" + off +
             ") are above the sampled " + was;
    case Rule::excess:
      return v + ", below zero: the sampling reads' measured excess (" + off + ") is above the figure as sampled (" +
             was + ")";
    case Rule::clock_cost:
      return v + ", below zero: the calibrated cost of the clock reads taken off is above the CPU measured";
    case Rule::own_above_busy:
      return v +
             ", below zero: our processes' own CPU (getrusage) is above the busy time /proc/stat counted on their "
             "CPUs (it samples at the scheduler tick)";
    case Rule::clean_tiles:
      return v +
             ", below zero: the clean tiles' estimate of the CPU per request nobody observes failed (too few "
             "tiles, or too much noise between them and the whole samples)";
    case Rule::above_wall: break;
  }
  return {};
}

}  // namespace

std::vector<CpuFlag> check_cpu_figures(const nlohmann::json& run) {
  std::vector<CpuFlag> flags;
  std::vector<std::string> stars;
  for (const Check& c : kChecks)
    each_number(run, c.figure, "", stars, [&](const std::string& at, double v, const std::vector<std::string>& keys) {
      std::string why = failure(c, v, number_at(run, c.against, keys), keys.empty() ? "" : keys.back());
      if (!why.empty()) flags.push_back({at, std::move(why)});
    });
  return flags;
}

nlohmann::json cpu_flags_json(const std::vector<CpuFlag>& flags) {
  nlohmann::json out = nlohmann::json::array();
  for (const CpuFlag& f : flags) out.push_back({{"figure", f.figure}, {"why", f.why}});
  return out;
}

}  // namespace hitcost::client
