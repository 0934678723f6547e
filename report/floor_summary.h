#pragma once
// The floor beside the measured CPU per hit, for the summary's rows: each kept run's own floor
// (its "floor" part: calibrated on the server just before it, floor/hit_floor.h), the run's CPU
// per hit and per part divided by it, and the text block the terminal report prints. The ratios
// are taken per run and then their median, so a machine that ran faster in one round than in the
// next moves a run's figure and its floor together.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_record.h"
#include "report/summary.h"

namespace hitcost::client {

// The parts of a hit in its order (server/metrics.h CpuPart, the ones a hit has).
const std::vector<std::string>& hit_parts();

class FloorFigures {
 public:
  void take(const RunRecord& r);  // a run kept for the CPU figures
  void into(SweepRow& row) const;

 private:
  std::vector<double> total_, ratio_, composed_, composed_ratio_;
  std::vector<std::vector<double>> measured_ = std::vector<std::vector<double>>(hit_parts().size()), floor_ = measured_,
                                   part_ratio_ = measured_;
};

// A row's floor in the summary JSON: {"us_per_hit", "ratio": {min, median, max}, "parts": {part:
// {"measured_us", "floor_us", "ratio"}}}.
nlohmann::json floor_json(const SweepRow& r);
// The CSV's floor columns: floor_us_per_hit_median, cpu_over_floor_{min,median,max}, then
// <part>_over_floor_median per part.
std::string floor_csv_header();
std::string floor_csv_cells(const SweepRow& r);

// "floor: ..." with a line per row that has a floor: CPU per hit, the floor, the ratio, and per
// part "measured/floor ratio×"; "" when no row has one.
std::string floor_table(const Summary& s, int label_width, int store_width);

}  // namespace hitcost::client
