#pragma once
// The floor in the HTML report (report/floor_summary.h for the figures): CPU per hit and per part
// beside the floor calibrated before each run, and the calibration of one run per row — every
// step with every library, the fastest and the one in force marked — so a reader sees which step
// sits above its floor and what a better library is worth. "" when no run has a floor.
#include <string>
#include <vector>

#include "report/run_record.h"
#include "report/summary.h"

namespace hitcost::client::html {

std::string floor_section(const Summary& summary, const std::vector<RunRecord>& runs);

}  // namespace hitcost::client::html
