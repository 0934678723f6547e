#include "report/floor_html.h"

#include <set>
#include <sstream>

#include "report/floor_summary.h"
#include "report/html_charts.h"

namespace hitcost::client::html {
namespace {

std::string cell(const std::optional<Range>& r, const char* suffix = "") {
  return "<td>" + (r ? range_text(*r) + suffix : std::string("-")) + "</td>";
}

// The calibration of the first run of `row` that has one: its steps as the server timed them.
std::string steps_table(const SweepRow& row, const std::vector<RunRecord>& runs) {
  const RunRecord* first = nullptr;
  for (const RunRecord& r : runs)
    if (!first && r.row_label() == row.strategy && r.group_store() == row.store && r.floor.is_object()) first = &r;
  if (!first || !first->floor.contains("steps")) return "";
  std::ostringstream h;
  h << "<details><summary>" << esc(row.strategy) << ": the calibration of one run (CPU "
    << esc(first->floor.value("cpu", -1) >= 0 ? std::to_string(first->floor.value("cpu", -1)) : "?") << ", peer CPU "
    << esc(first->floor.value("peer_cpu", -1) >= 0 ? std::to_string(first->floor.value("peer_cpu", -1)) : "any") << ", "
    << first->floor.value("repeats", 0) << " interleaved repeats, thread CPU)</summary><table><tr><th>part</th>"
    << "<th>step</th><th>library</th><th>bytes in → out</th><th>ns per call, median [min..max]</th><th>MB/s</th>"
    << "<th></th></tr>";
  for (const nlohmann::json& s : first->floor["steps"]) {
    h << "<tr><td>" << esc(s.value("part", "")) << "</td><td>" << esc(s.value("step", "")) << "</td><td>"
      << esc(s.value("library", "")) << "</td><td>" << s.value("bytes_in", 0) << " → " << s.value("bytes_out", 0)
      << "</td>";
    if (s.contains("error")) {
      h << "<td colspan=\"3\">not timed: " << esc(s.value("error", "")) << "</td></tr>";
      continue;
    }
    const nlohmann::json& ns = s["ns"];
    h << "<td>" << range_text({ns.value("min", 0.0), ns.value("median", 0.0), ns.value("max", 0.0)}) << "</td><td>"
      << sig(s.value("mb_per_s", 0.0), 3) << "</td><td>" << (s.value("fastest", false) ? "fastest" : "")
      << (s.value("fastest", false) && s.value("in_force", false) ? ", " : "")
      << (s.value("in_force", false) ? "in force" : "") << "</td></tr>";
  }
  h << "</table></details>";
  return h.str();
}

}  // namespace

std::string floor_section(const Summary& summary, const std::vector<RunRecord>& runs) {
  std::vector<const SweepRow*> rows;
  std::set<std::string> stores;
  for (const SweepRow& r : summary.rows)
    if (r.floor_hit) rows.push_back(&r), stores.insert(r.store);
  if (rows.empty()) return "";
  // A row's name in the parts table: its label, with its store when the sweep had several.
  auto name = [&](const SweepRow& r) { return stores.size() > 1 ? r.strategy + " [" + r.store + "]" : r.strategy; };
  std::ostringstream h;
  h << "<h2>How close to the floor</h2><p class=\"note\">The floor of a hit was calibrated on the server just before "
       "each run: every step of the hit on the run's own bytes, with every library this host has for them, timed "
       "in interleaved repeats of thread CPU; per part the fastest library and no glue (routing and headers, "
       "“other”, have floor 0). “Composed” is the whole hit in one loop with the libraries in force: its steps "
       "evict each other's cache lines as in a hit, so measured ÷ composed is what the server itself adds (event "
       "loop, HTTP, routing, its sampler). Ratios are per run, median [min..max].</p>"
       "<table><tr><th>strategy</th><th>store</th><th>server µs/hit</th><th>floor µs/hit</th><th>÷ floor</th>"
       "<th>composed µs/hit</th><th>÷ composed</th></tr>";
  for (const SweepRow* r : rows) {
    h << "<tr><td>" << breakable(r->strategy) << "</td><td>" << breakable(r->store) << "</td>" << cell(r->server_hit)
      << cell(r->floor_hit) << cell(r->floor_ratio, "×") << cell(r->composed_hit) << cell(r->composed_ratio, "×")
      << "</tr>";
  }
  // The parts, a column per row: µs measured / floor, and the ratio.
  h << "</table><h3>By part: µs measured / floor (ratio)</h3><table><tr><th>part</th>";
  for (const SweepRow* r : rows) h << "<th>" << breakable(name(*r)) << "</th>";
  h << "</tr>";
  for (size_t i = 0; i < hit_parts().size(); ++i) {
    h << "<tr><td>" << esc(hit_parts()[i]) << "</td>";
    for (const SweepRow* r : rows) {
      const FloorPart* p = i < r->floor_parts.size() ? &r->floor_parts[i] : nullptr;
      h << "<td>";
      if (p) {
        h << (p->measured_us ? sig(p->measured_us->median, 3) : "-") << " / "
          << (p->floor_us ? sig(p->floor_us->median, 3) : "-");
        if (p->ratio) h << " (" << sig(p->ratio->median, 3) << "×)";
      }
      h << "</td>";
    }
    h << "</tr>";
  }
  h << "</table>";
  for (const SweepRow* r : rows) h << steps_table(*r, runs);
  return h.str();
}

}  // namespace hitcost::client::html
