#include "trace/trace_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

namespace hitcost::trace {
namespace {

constexpr size_t kZipfMaxRanks = 10'000;

Percentiles percentiles(std::vector<uint64_t>& v) {
  Percentiles p;
  if (v.empty()) return p;
  auto at = [&](double q) {
    const size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
    std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(i), v.end());
    return v[i];
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  p.max = *std::max_element(v.begin(), v.end());
  return p;
}

std::string fmt(const char* format, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

std::string seconds_text(uint64_t us) {
  if (us < 1000) return fmt("%llu us", static_cast<unsigned long long>(us));
  if (us < 1'000'000) return fmt("%.1f ms", static_cast<double>(us) / 1e3);
  return fmt("%.1f s", static_cast<double>(us) / 1e6);
}

nlohmann::json percentiles_json(const Percentiles& p) {
  return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
}

}  // namespace

std::map<std::pair<std::string, std::string>, uint64_t> count_by_op_outcome(std::span<const TraceEvent> events) {
  uint64_t counts[kOpCount + 1][kOutcomeCount + 1] = {};
  for (const TraceEvent& e : events)
    ++counts[std::min<size_t>(e.op, kOpCount)][std::min<size_t>(e.outcome, kOutcomeCount)];
  std::map<std::pair<std::string, std::string>, uint64_t> out;
  for (size_t op = 0; op <= kOpCount; ++op)
    for (size_t oc = 0; oc <= kOutcomeCount; ++oc)
      if (counts[op][oc] > 0)
        out[{to_string(static_cast<Op>(op)), to_string(static_cast<Outcome>(oc))}] = counts[op][oc];
  return out;
}

TraceSummary summarize(const TraceReader& trace) {
  TraceSummary s;
  s.info = trace.info();
  const auto events = trace.events();
  s.events = events.size();
  s.duration_us = trace.header().duration_us;
  if (s.duration_us > 0) s.requests_per_s = static_cast<double>(s.events) * 1e6 / static_cast<double>(s.duration_us);
  s.by_op_outcome = count_by_op_outcome(events);

  std::unordered_map<uint64_t, uint32_t> per_key;
  per_key.reserve(events.size() / 4 + 16);
  std::vector<uint64_t> sizes, gaps, per_second;
  uint64_t reads_known = 0, read_misses = 0, first_reads = 0, max_client = 0;
  uint64_t second = 0, in_second = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    const auto op = static_cast<Op>(e.op);
    const auto outcome = static_cast<Outcome>(e.outcome);
    const bool first = per_key[e.key]++ == 0;
    max_client = std::max<uint64_t>(max_client, e.client);
    if (is_read(op)) {
      ++s.reads;
      if (first) ++first_reads;
      if (outcome == Outcome::found || outcome == Outcome::not_found) ++reads_known;
      if (outcome == Outcome::not_found) ++read_misses;
      if (e.value_size > 0) sizes.push_back(e.value_size);
    } else if (is_write(op)) {
      ++s.writes;
      sizes.push_back(e.value_size);
    } else {
      ++s.others;
    }
    if (i > 0) gaps.push_back(e.time_us - events[i - 1].time_us);
    if (e.time_us / 1'000'000 != second) {
      per_second.push_back(in_second);
      // Seconds with no request count too.
      for (uint64_t empty = second + 1; empty < e.time_us / 1'000'000; ++empty) per_second.push_back(0);
      second = e.time_us / 1'000'000;
      in_second = 0;
    }
    ++in_second;
  }
  if (!events.empty()) per_second.push_back(in_second);
  s.keys = per_key.size();
  s.clients = events.empty() ? 0 : max_client + 1;
  if (reads_known > 0) s.recorded_miss_ratio = static_cast<double>(read_misses) / static_cast<double>(reads_known);
  if (s.reads > 0) s.compulsory_miss_ratio = static_cast<double>(first_reads) / static_cast<double>(s.reads);
  s.value_bytes = percentiles(sizes);
  s.interarrival_us = percentiles(gaps);
  s.per_second = percentiles(per_second);

  std::vector<uint32_t> counts;
  counts.reserve(per_key.size());
  uint64_t once = 0;
  for (const auto& [key, n] : per_key) {
    counts.push_back(n);
    if (n == 1) ++once;
  }
  std::sort(counts.begin(), counts.end(), std::greater<>());
  if (!counts.empty()) {
    s.one_hit_wonder_ratio = static_cast<double>(once) / static_cast<double>(counts.size());
    const size_t top = std::max<size_t>(1, counts.size() / 100);
    uint64_t top_requests = 0;
    for (size_t i = 0; i < top; ++i) top_requests += counts[i];
    s.top1pct_share = static_cast<double>(top_requests) / static_cast<double>(s.events);
    // Least squares of log(count) on log(rank) over the ranks asked more than once.
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    size_t n = 0;
    for (size_t i = 0; i < counts.size() && i < kZipfMaxRanks && counts[i] > 1; ++i, ++n) {
      const double x = std::log(static_cast<double>(i + 1)), y = std::log(static_cast<double>(counts[i]));
      sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
    }
    s.zipf_ranks_fitted = n;
    if (n >= 3) {
      const double dn = static_cast<double>(n);
      const double vx = sxx - sx * sx / dn, vy = syy - sy * sy / dn, cxy = sxy - sx * sy / dn;
      if (vx > 0) s.zipf_alpha = -cxy / vx;
      if (vx > 0 && vy > 0) s.zipf_r2 = cxy * cxy / (vx * vy);
    }
  }
  return s;
}

std::string one_line(const TraceSummary& s) {
  std::string line =
      fmt("%llu requests over %s (%.0f/s), %llu keys, %.0f %% reads", static_cast<unsigned long long>(s.events),
          seconds_text(s.duration_us).c_str(), s.requests_per_s, static_cast<unsigned long long>(s.keys),
          s.events == 0 ? 0.0 : 100.0 * static_cast<double>(s.reads) / static_cast<double>(s.events));
  if (s.recorded_miss_ratio >= 0) line += fmt(", recorded miss ratio %.3f", s.recorded_miss_ratio);
  line += fmt(", compulsory %.3f, zipf alpha %.2f", s.compulsory_miss_ratio, s.zipf_alpha);
  return line;
}

std::string to_text(const TraceSummary& s) {
  std::string t;
  t += fmt("source        %s (%s)\n", to_string(s.info.source), s.info.origin.c_str());
  t += fmt("keys          %s\n", (s.info.flags & kKeysKept) != 0 ? "hashed, kept in clear in the file (--keep-keys)"
                                                                 : "hashed with a secret that was not kept");
  t += fmt(
      "time          resolution %s%s\n", seconds_text(s.info.time_resolution_us).c_str(),
      s.info.time_resolution_us >= 1'000'000 ? " (whole seconds: a replay spreads each second's requests evenly)" : "");
  t += fmt("requests      %llu over %s: %.1f/s; %llu clients\n", static_cast<unsigned long long>(s.events),
           seconds_text(s.duration_us).c_str(), s.requests_per_s, static_cast<unsigned long long>(s.clients));
  t += fmt("lost          %llu dropped by the source, %llu missing by sequence number, %llu malformed\n",
           static_cast<unsigned long long>(s.info.dropped_events),
           static_cast<unsigned long long>(s.info.missing_events), static_cast<unsigned long long>(s.info.malformed));
  t += fmt("mix           %llu reads, %llu writes, %llu other (delete, incr, decr, touch)\n",
           static_cast<unsigned long long>(s.reads), static_cast<unsigned long long>(s.writes),
           static_cast<unsigned long long>(s.others));
  for (const auto& [k, n] : s.by_op_outcome)
    t += fmt("  %-9s %-11s %12llu  %5.1f %%\n", k.first.c_str(), k.second.c_str(), static_cast<unsigned long long>(n),
             100.0 * static_cast<double>(n) / static_cast<double>(std::max<uint64_t>(1, s.events)));
  if (s.recorded_miss_ratio >= 0)
    t += fmt("miss ratio    %.4f recorded (reads not found); %.4f compulsory (first requests: an infinite cache's)\n",
             s.recorded_miss_ratio, s.compulsory_miss_ratio);
  else
    t += fmt("miss ratio    not recorded by this source; %.4f compulsory (first requests: an infinite cache's)\n",
             s.compulsory_miss_ratio);
  t += fmt("keys          %llu distinct; %.1f %% asked once; the top 1 %% get %.1f %% of requests\n",
           static_cast<unsigned long long>(s.keys), 100 * s.one_hit_wonder_ratio, 100 * s.top1pct_share);
  if (s.zipf_ranks_fitted >= 3)
    t += fmt("popularity    zipf alpha %.3f (R^2 %.3f over the top %llu ranks asked more than once)\n", s.zipf_alpha,
             s.zipf_r2, static_cast<unsigned long long>(s.zipf_ranks_fitted));
  else
    t += "popularity    too few keys asked more than once for a zipf fit\n";
  auto pct = [&](const char* name, const Percentiles& p, const char* unit) {
    t += fmt("%-13s p50 %llu, p90 %llu, p99 %llu, max %llu %s\n", name, static_cast<unsigned long long>(p.p50),
             static_cast<unsigned long long>(p.p90), static_cast<unsigned long long>(p.p99),
             static_cast<unsigned long long>(p.max), unit);
  };
  pct("value size", s.value_bytes, "bytes");
  pct("inter-arrival", s.interarrival_us, "us");
  pct("per second", s.per_second, "requests");
  t += "summary       " + one_line(s) + "\n";
  return t;
}

void to_json(nlohmann::json& j, const TraceSummary& s) {
  nlohmann::json mix = nlohmann::json::array();
  for (const auto& [k, n] : s.by_op_outcome) mix.push_back({{"op", k.first}, {"outcome", k.second}, {"events", n}});
  j = {{"source", to_string(s.info.source)},
       {"origin", s.info.origin},
       {"keys_kept", (s.info.flags & kKeysKept) != 0},
       {"start_unix_us", s.info.start_unix_us},
       {"time_resolution_us", s.info.time_resolution_us},
       {"events", s.events},
       {"duration_us", s.duration_us},
       {"requests_per_s", s.requests_per_s},
       {"clients", s.clients},
       {"dropped_events", s.info.dropped_events},
       {"missing_events", s.info.missing_events},
       {"malformed", s.info.malformed},
       {"reads", s.reads},
       {"writes", s.writes},
       {"others", s.others},
       {"mix", mix},
       {"recorded_miss_ratio", s.recorded_miss_ratio < 0 ? nlohmann::json() : nlohmann::json(s.recorded_miss_ratio)},
       {"compulsory_miss_ratio", s.compulsory_miss_ratio},
       {"keys", s.keys},
       {"one_hit_wonder_ratio", s.one_hit_wonder_ratio},
       {"top1pct_share", s.top1pct_share},
       {"zipf_alpha", s.zipf_alpha},
       {"zipf_r2", s.zipf_r2},
       {"zipf_ranks_fitted", s.zipf_ranks_fitted},
       {"value_bytes", percentiles_json(s.value_bytes)},
       {"interarrival_us", percentiles_json(s.interarrival_us)},
       {"per_second", percentiles_json(s.per_second)},
       {"summary", one_line(s)}};
}

}  // namespace hitcost::trace
