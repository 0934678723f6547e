#pragma once
// The sweep's axes, one row each. A sweep measures cells: the product of the axes given. Each
// axis plays one of three roles (AxisRole): the store is a family (each store swept one after the
// other, its verdicts its own), the strategy names the summary's rows (compared against
// --baseline), every other axis is crossed with them (--axis NAME=V,..., --log-modes for the log
// axis). A row says how a value is checked, where it is set (the cell's POST /admin/config body,
// or the load plan of its runs) and whether it can be swept against another server than the one
// configured (--admin-url).
// A cell axis' settings travel with the runs (report/run_request.h AxisSettings) and label the
// summary row ("html log=line threads=2"); summary, verdicts, CSV and HTML read them by name, so
// a new axis is one row here.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "load/load_runner.h"

namespace hitcost::client {

enum class AxisRole {
  family,  // --stores: each value a sweep of its own, in turn, with its own summary and verdicts
  row,     // --strategies: the summary's rows, one of them the baseline
  cell,    // --axis NAME=...: crossed with every row, its value in the row's label
};

struct SweepAxis {
  std::string_view name;    // --axis NAME=..., the run record's "axes" key, the label's "NAME="
  std::string_view what;    // for --help and messages
  AxisRole role;            //
  std::string_view option;  // the option that gives its values ("--strategies"); "" = --axis NAME
  // The value's canonical text, or invalid_argument with why ("threads: 'x' is not a whole
  // number >= 1"). Values the server judges (strategies, stores, log modes) pass as given: it is
  // asked first.
  Result<std::string> (*check)(std::string_view value);
  // Sets the value on the server (in a POST /admin/config body; its answer echoes `config_key`),
  // or on the load plan of the cell's runs. Exactly one of the two is set.
  void (*set_config)(const std::string& value, nlohmann::json& config) = nullptr;
  void (*set_plan)(const std::string& value, LoadPlan& plan) = nullptr;
  std::string_view config_key;
  // Whether it can be swept when --admin-url configures another server than the measured one
  // (which reads what the configured one stored): what is stored (store, strategy), a
  // client-side axis, or one the query carries to the measured server too (rows).
  bool with_admin_url = false;
};

// The axes, in the order a cell's settings are applied.
const std::vector<SweepAxis>& sweep_axes();
const SweepAxis* find_sweep_axis(std::string_view name);

// One axis with its values, as asked.
struct AxisValues {
  const SweepAxis* axis = nullptr;
  std::vector<std::string> values;
  std::string option;  // how it was asked, for messages: "--axis threads", "--log-modes"
};

// "NAME=V1,V2" (--axis) → a cell axis and its checked values. invalid_argument for an unknown
// axis (the known ones listed), a family or row axis (their options named), an empty entry
// ("off,,line" is more likely a slip than a wish), a value listed twice or refused by the check.
Result<AxisValues> parse_axis(std::string_view spec);
// V1,V2 of `axis` as given to `option` ("--strategies", "--axis log"): the same refusals.
Result<std::vector<std::string>> parse_axis_values(const SweepAxis& axis, std::string_view option,
                                                   std::string_view text);

}  // namespace hitcost::client
