#include "report/compare.h"

#include <algorithm>
#include <map>

namespace hitcost::client {

std::optional<std::pair<std::string, std::string>> parse_labelled_input(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) return std::nullopt;
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

Result<std::vector<RunRecord>> pool_backend_runs(const std::vector<std::pair<std::string, nlohmann::json>>& docs) {
  std::vector<RunRecord> pooled;
  std::map<std::string, int> inputs_seen;  // label → its inputs so far: the round of the next one
  for (const auto& [label, doc] : docs) {
    if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array())
      return Error{Errc::invalid_argument, "input labelled '" + label + "' is not a sweep JSON (no \"runs\")"};
    const int input_round = inputs_seen[label]++;
    std::vector<RunRecord> runs = records_of(doc);
    int rounds_in_input = 1;
    for (const RunRecord& run : runs) rounds_in_input = std::max(rounds_in_input, run.round.value_or(0) + 1);
    for (RunRecord& run : runs) {
      if (run.is_latency_run()) continue;
      run.round = input_round * rounds_in_input + run.round.value_or(0);
      // The backend becomes the row and the sweep's row (strategy, with its axis settings) the group.
      run.sweep_store = run.row_label();
      run.strategy = label;
      run.axes.clear();
      pooled.push_back(std::move(run));
    }
  }
  if (pooled.empty()) return Error{Errc::invalid_argument, "no capacity run in the inputs"};
  return pooled;
}

SummaryOptions compare_options(const std::vector<std::string>& labels, const std::string& baseline,
                               const VerdictOptions& verdict) {
  SummaryOptions o;
  o.baseline = baseline;
  o.order = {baseline};
  for (const std::string& l : labels) {
    if (std::find(o.order.begin(), o.order.end(), l) == o.order.end()) o.order.push_back(l);
  }
  o.verdict = verdict;
  o.row_label = "backend";
  o.group_label = "strategy";
  return o;
}

}  // namespace hitcost::client
