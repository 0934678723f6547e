#pragma once
// The pieces report/html_report.cpp builds its page from: how a number is written (rounded to
// what its spread resolves, a flagged figure marked), the runs grouped by row, and the inline
// SVG charts. Internal to the HTML report; nothing else includes it.
//
// Charts draw only what the run JSON holds, so the numbers in a picture are those of the JSON.
// Every text of a chart must fit in its chart and clear every other text: the page's script
// checks it after layout (html_report.h), so a label that would be cut fails the test.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/run_record.h"
#include "report/summary.h"

namespace hitcost::client::html {

std::string esc(const std::string& s);
// esc(s) with a line break allowed after each ',', '+' and '/': a store of several nodes, a
// strategy, a JSON pointer wrap in a narrow cell instead of widening the table.
std::string breakable(const std::string& s);

// `v` to `digits` significant digits, never in exponent form: "0.0123", "48.1", "12346".
std::string sig(double v, int digits = 3);
// "median [min..max]" (HTML), each to the decimal the spread resolves (and the median to two
// significant digits at least); one value alone to three significant digits.
std::string range_text(const Range& r);

// The figures of every run that cannot be right (figures/cpu_accounting.h), judged once.
class FlagIndex {
 public:
  explicit FlagIndex(const std::vector<RunRecord>& runs);
  // Why the figure at `pointer` (a run JSON pointer) of `r` is flagged; nullopt when it is not.
  std::optional<std::string> why(const RunRecord& r, std::string_view pointer) const;
  // Why the figure `field` of `r` (a member of it) is flagged: its pointer from the tables.
  std::optional<std::string> why(const RunRecord& r, const std::optional<double>& field) const {
    return why(r, r.pointer_of(field));
  }
  std::optional<std::string> why(const RunRecord& r, const double& field) const { return why(r, r.pointer_of(field)); }
  const std::vector<CpuFlag>& of(const RunRecord& r) const;

 private:
  std::map<const RunRecord*, std::vector<CpuFlag>> flags_;
};
// `text` marked as a figure that cannot be right, with its reason as a tooltip.
std::string flagged_html(const std::string& text, const std::string& why);

// A figure of a run, as its field (so that its flag is found by the field's place in the
// tables): `none()` where the run lacks the part that holds it.
using Figure = const std::optional<double>& (*)(const RunRecord&);
const std::optional<double>& none();

// The runs of one summary row (store × row label), in the summary's row order.
struct Group {
  std::string store, strategy, label;  // label: "strategy @ store"
  std::vector<const RunRecord*> runs;
  std::optional<Range> server_hit;  // the summary's CPU per hit of the row (median [min..max])
};
std::vector<Group> group_runs(const std::vector<RunRecord>& runs, const Summary& summary);

// Latency percentiles per group on a log axis: capacity runs, or the open-loop latency runs.
std::string latency_chart(const std::vector<Group>& groups, bool open_loop_runs);
// CPU per hit by part, corrected like the headline, beside each phase's wall time; a caption
// and a table of the parts follow the chart.
std::string phase_section(const std::vector<Group>& groups, const FlagIndex& flags);
// One run: its latency histogram (log2 buckets, hits and misses apart) and its per-second series.
std::string log2_chart(const RunRecord& run, const std::string& label);
std::string series_chart(const RunRecord& run, const std::string& label);

}  // namespace hitcost::client::html
