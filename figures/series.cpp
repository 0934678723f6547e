#include "figures/series.h"

#include <algorithm>
#include <cstdio>

namespace hitcost::client {

uint64_t CoarseHistogram::slot_high(size_t slot) noexcept {
  if (slot < 32) return slot;
  const int shift = int((slot - 32) / 32);  // = exponent - kSubBits
  const uint64_t sub = (slot - 32) % 32;
  return ((32 + sub) << shift) + (uint64_t{1} << shift) - 1;
}

void CoarseHistogram::merge(const CoarseHistogram& o) noexcept {
  for (size_t i = 0; i < kSlots; ++i) counts_[i] += o.counts_[i];
  total_ += o.total_;
  max_ = std::max(max_, o.max_);
}

uint64_t CoarseHistogram::value_at_percentile(double percent) const noexcept {
  if (total_ == 0) return 0;
  uint64_t rank = uint64_t(std::clamp(percent, 0.0, 100.0) / 100.0 * double(total_) + 0.5);
  rank = std::clamp<uint64_t>(rank, 1, total_);
  uint64_t seen = 0;
  for (size_t i = 0; i < kSlots; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(slot_high(i), max_);
  }
  return max_;
}

nlohmann::json CoarseHistogram::sparse_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < kSlots; ++i)
    if (counts_[i]) out.push_back({i, counts_[i]});
  return out;
}

bool CoarseHistogram::restore(const nlohmann::json& sparse, uint64_t max) {
  counts_.fill(0);
  total_ = 0;
  max_ = max;
  if (!sparse.is_array()) return false;
  for (const auto& pair : sparse) {
    if (!pair.is_array() || pair.size() != 2) return false;
    const size_t i = pair[0].get<size_t>();
    if (i >= kSlots) return false;
    counts_[i] += pair[1].get<uint32_t>();
    total_ += pair[1].get<uint64_t>();
  }
  return true;
}

void SeriesPoint::merge(const SeriesPoint& o) noexcept {
  requests += o.requests;
  ok += o.ok;
  errors += o.errors;
  hits += o.hits;
  misses += o.misses;
  latency.merge(o.latency);
}

void Series::merge(const Series& o, size_t offset) {
  if (o.points.size() + offset > points.size()) points.resize(o.points.size() + offset);
  for (size_t i = 0; i < o.points.size(); ++i) points[i + offset].merge(o.points[i]);
}

namespace {
double interval_len(size_t i, size_t n, double window_s) {
  if (i + 1 < n || window_s <= 0) return 1.0;
  const double rest = window_s - double(i);
  return rest > 0 && rest < 1.0 ? rest : 1.0;
}
}  // namespace

nlohmann::json series_json(const Series& s, double window_s) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < s.points.size(); ++i) {
    const SeriesPoint& p = s.points[i];
    const double len = interval_len(i, s.points.size(), window_s);
    out.push_back({{"t_s", double(i)},
                   {"len_s", len},
                   {"requests", p.requests},
                   {"throughput_rps", double(p.requests) / len},
                   {"ok", p.ok},
                   {"errors", p.errors},
                   {"hits", p.hits},
                   {"misses", p.misses},
                   {"p50_us", double(p.latency.value_at_percentile(50)) / 1000.0},
                   {"p99_us", double(p.latency.value_at_percentile(99)) / 1000.0},
                   {"max_us", double(p.latency.max()) / 1000.0},
                   {"max_ns", p.latency.max()},
                   {"h", p.latency.sparse_json()}});
  }
  return out;
}

bool series_from_json(const nlohmann::json& j, Series* s) {
  s->points.clear();
  if (!j.is_array()) return false;
  try {
    for (const auto& e : j) {
      SeriesPoint p;
      p.requests = e.at("requests").get<uint64_t>();
      p.ok = e.value("ok", uint64_t{0});
      p.errors = e.value("errors", uint64_t{0});
      p.hits = e.value("hits", uint64_t{0});
      p.misses = e.value("misses", uint64_t{0});
      if (!p.latency.restore(e.at("h"), e.value("max_ns", uint64_t{0}))) return false;
      s->points.push_back(p);
    }
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

std::string format_series(const Series& s, double window_s) {
  std::string out = "    t(s)      req/s      p50 us      p99 us      max us   errors     hits   misses   hit %\n";
  char line[176];
  for (size_t i = 0; i < s.points.size(); ++i) {
    const SeriesPoint& p = s.points[i];
    const double len = interval_len(i, s.points.size(), window_s);
    char ratio[16] = "      -";  // no answer tagged hit or miss in that second
    if (p.hits + p.misses > 0)
      std::snprintf(ratio, sizeof ratio, "%7.1f", 100.0 * double(p.hits) / double(p.hits + p.misses));
    std::snprintf(line, sizeof line, "  %6zu %10.0f %11.1f %11.1f %11.1f %8llu %8llu %8llu %s\n", i,
                  double(p.requests) / len, double(p.latency.value_at_percentile(50)) / 1000.0,
                  double(p.latency.value_at_percentile(99)) / 1000.0, double(p.latency.max()) / 1000.0,
                  static_cast<unsigned long long>(p.errors), static_cast<unsigned long long>(p.hits),
                  static_cast<unsigned long long>(p.misses), ratio);
    out += line;
  }
  return out;
}

ProgressSnapshot read_progress(const std::vector<const LiveProgress*>& parts, double elapsed_s, uint64_t prev_requests,
                               double tick_s) {
  ProgressSnapshot p;
  p.elapsed_s = elapsed_s;
  std::vector<uint64_t> counts(CoarseHistogram::kSlots, 0);
  for (const LiveProgress* part : parts) {
    p.requests += part->requests.load(std::memory_order_relaxed);
    p.errors += part->errors.load(std::memory_order_relaxed);
    for (size_t i = 0; i < CoarseHistogram::kSlots; ++i) counts[i] += part->latency[i].load(std::memory_order_relaxed);
  }
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  if (total) {
    const uint64_t rank = std::max<uint64_t>(1, uint64_t(0.99 * double(total) + 0.5));
    uint64_t seen = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      seen += counts[i];
      if (seen >= rank) {
        p.p99_us = double(CoarseHistogram::slot_high(i)) / 1000.0;
        break;
      }
    }
  }
  p.rps = tick_s > 0 && p.requests >= prev_requests ? double(p.requests - prev_requests) / tick_s : 0.0;
  return p;
}

std::string format_progress(const ProgressSnapshot& p) {
  char line[160];
  std::snprintf(line, sizeof line, "  %5.0f s  %9.0f req/s  p99 %9.1f us  errors %llu  (%llu requests)", p.elapsed_s,
                p.rps, p.p99_us, static_cast<unsigned long long>(p.errors),
                static_cast<unsigned long long>(p.requests));
  return line;
}

}  // namespace hitcost::client
