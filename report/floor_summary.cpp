#include "report/floor_summary.h"

#include <cstdio>

namespace hitcost::client {
namespace {

// Below this a floor part is nothing (other: 0): a ratio over it would mean nothing.
constexpr double kNoFloorUs = 0.05;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ratio_text(const std::optional<Range>& r) {
  if (!r) return "-";
  return fmt("%.2f", r->median) + "x [" + fmt("%.2f", r->min) + ".." + fmt("%.2f", r->max) + "]";
}

nlohmann::json range_json(const std::optional<Range>& r) {
  if (!r) return nullptr;
  return {{"min", r->min}, {"median", r->median}, {"max", r->max}};
}

std::string cell(const std::optional<Range>& r, double Range::*which) { return r ? fmt("%.6g", (*r).*which) : ""; }

}  // namespace

const std::vector<std::string>& hit_parts() {
  static const std::vector<std::string> parts = {"receive", "fetch", "unwrap", "decode", "render", "write", "other"};
  return parts;
}

void FloorFigures::take(const RunRecord& r) {
  const std::optional<double> total = r.floor_us("total");
  if (!total || *total <= 0) return;
  total_.push_back(*total);
  const bool measured = r.server_cpu_us_per_hit && !r.flag_of(r.server_cpu_us_per_hit);
  if (measured) ratio_.push_back(*r.server_cpu_us_per_hit / *total);
  if (const std::optional<double> composed = r.composed_us()) {
    composed_.push_back(*composed);
    if (measured) composed_ratio_.push_back(*r.server_cpu_us_per_hit / *composed);
  }
  const auto* parts = r.cpu && r.cpu->server_hit_parts_us ? &*r.cpu->server_hit_parts_us : nullptr;
  for (size_t i = 0; i < hit_parts().size(); ++i) {
    const std::optional<double> floor = r.floor_us(hit_parts()[i]);
    if (floor) floor_[i].push_back(*floor);
    if (!parts) continue;
    const auto it = parts->find(hit_parts()[i]);
    if (it == parts->end()) continue;
    measured_[i].push_back(it->second);
    if (floor && *floor > kNoFloorUs) part_ratio_[i].push_back(it->second / *floor);
  }
}

void FloorFigures::into(SweepRow& row) const {
  row.floor_hit = Range::of(total_);
  row.floor_ratio = Range::of(ratio_);
  row.composed_hit = Range::of(composed_);
  row.composed_ratio = Range::of(composed_ratio_);
  row.floor_parts.clear();
  if (total_.empty()) return;
  for (size_t i = 0; i < hit_parts().size(); ++i) {
    row.floor_parts.push_back(
        {hit_parts()[i], Range::of(measured_[i]), Range::of(floor_[i]), Range::of(part_ratio_[i])});
  }
}

nlohmann::json floor_json(const SweepRow& r) {
  nlohmann::json parts = nlohmann::json::object();
  for (const FloorPart& p : r.floor_parts) {
    parts[p.part] = {{"measured_us", range_json(p.measured_us)},
                     {"floor_us", range_json(p.floor_us)},
                     {"ratio", range_json(p.ratio)}};
  }
  return {{"us_per_hit", range_json(r.floor_hit)},
          {"ratio", range_json(r.floor_ratio)},
          {"composed_us_per_hit", range_json(r.composed_hit)},
          {"composed_ratio", range_json(r.composed_ratio)},
          {"parts", std::move(parts)}};
}

std::string floor_csv_header() {
  std::string h =
      "floor_us_per_hit_median,cpu_over_floor_min,cpu_over_floor_median,cpu_over_floor_max,"
      "composed_us_per_hit_median,cpu_over_composed_median";
  for (const std::string& p : hit_parts()) h += "," + p + "_over_floor_median";
  return h;
}

std::string floor_csv_cells(const SweepRow& r) {
  std::string c = cell(r.floor_hit, &Range::median) + "," + cell(r.floor_ratio, &Range::min) + "," +
                  cell(r.floor_ratio, &Range::median) + "," + cell(r.floor_ratio, &Range::max) + "," +
                  cell(r.composed_hit, &Range::median) + "," + cell(r.composed_ratio, &Range::median);
  for (const std::string& p : hit_parts()) {
    std::optional<Range> ratio;
    for (const FloorPart& fp : r.floor_parts)
      if (fp.part == p) ratio = fp.ratio;
    c += ',';  // appended apart: GCC 12's -Wrestrict false positive on "," + std::string&&
    c += cell(ratio, &Range::median);
  }
  return c;
}

std::string floor_table(const Summary& s, int label_width, int store_width) {
  bool any = false;
  for (const SweepRow& r : s.rows) any = any || r.floor_hit.has_value();
  if (!any) return "";
  std::string out =
      "\nfloor: server CPU per hit against the floor calibrated on the server before each run (every step of the "
      "hit on the run's own bytes, the fastest library this host has for them, no glue); composed: the whole hit in "
      "one loop with the libraries in force (its steps evicting each other's cache lines as in a hit), so measured / "
      "composed is what the server adds (event loop, HTTP, routing, its sampler); ratios per run, median "
      "[min..max]; per part: measured / floor us, ratio\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %-*s %-10s %-10s %-22s %-10s %-8s", label_width, s.options.row_label.c_str(),
                store_width, s.options.group_label.c_str(), "us/hit", "floor", "ratio", "composed", "ratio");
  out += line;
  for (const std::string& p : hit_parts()) {
    std::snprintf(line, sizeof line, " %-20s", p.c_str());
    out += line;
  }
  out += "\n";
  for (const SweepRow& r : s.rows) {
    if (!r.floor_hit) continue;
    std::snprintf(line, sizeof line, "%-*s %-*s %-10s %-10s %-22s %-10s %-8s", label_width, r.strategy.c_str(),
                  store_width, r.store.empty() ? "-" : r.store.c_str(),
                  r.server_hit ? fmt("%.2f", r.server_hit->median).c_str() : "-",
                  fmt("%.2f", r.floor_hit->median).c_str(), ratio_text(r.floor_ratio).c_str(),
                  r.composed_hit ? fmt("%.2f", r.composed_hit->median).c_str() : "-",
                  r.composed_ratio ? (fmt("%.2f", r.composed_ratio->median) + "x").c_str() : "-");
    out += line;
    for (const FloorPart& p : r.floor_parts) {
      std::string c = (p.measured_us ? fmt("%.1f", p.measured_us->median) : std::string("-")) + "/" +
                      (p.floor_us ? fmt("%.1f", p.floor_us->median) : std::string("-"));
      if (p.ratio) (c += ' ').append(fmt("%.2f", p.ratio->median)) += 'x';
      std::snprintf(line, sizeof line, " %-20s", c.c_str());
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace hitcost::client
