#pragma once
// Every test that writes a run or sweep JSON calls this on it: a CPU figure that cannot be
// right must be flagged in the run's cpu.flags (figures/cpu_accounting.h), never left as a plain
// number. Judged here from the JSON alone, by rules written apart from the code that flags:
//   - any number below zero (by more than 1e-9: rounding) under "cpu" (all of it is CPU, net or raw, or a count),
//   except the
//     receive work moved (server_shift_us_per_*: a move, signed by nature);
//   - server_cpu_us_per_hit below zero;
//   - any number below zero under "server_sampling" except whole_sample_excess_us (what the
//     reads add, signed by nature);
//   - a sampled part's CPU above its wall time (parts the server gives a wall time: all but
//     receive and other).
// Each figure found and not flagged is a test failure naming the file and the run. Returns the
// number of runs checked (with a "cpu" object), for the caller to assert.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace hitcost::testing {

namespace cpu_flags_detail {

inline void negatives(const nlohmann::json& j, const std::string& at, const std::set<std::string>& signed_keys,
                      std::vector<std::string>& out) {
  if (j.is_number()) {
    if (j.get<double>() < -1e-9) out.push_back(at);  // less is rounding, not a figure
  } else if (j.is_object()) {
    for (const auto& [key, v] : j.items())
      if (!signed_keys.count(key)) negatives(v, at + "/" + key, signed_keys, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) negatives(j[i], at + "/" + std::to_string(i), signed_keys, out);
  }
}

}  // namespace cpu_flags_detail

inline size_t expect_impossible_cpu_figures_flagged(const nlohmann::json& doc, const std::string& name) {
  std::vector<const nlohmann::json*> runs;
  if (doc.contains("runs") && doc["runs"].is_array())
    for (const auto& r : doc["runs"]) runs.push_back(&r);
  else
    runs.push_back(&doc);
  size_t checked = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const nlohmann::json& run = *runs[i];
    if (!run.contains("cpu") || !run["cpu"].is_object()) continue;
    ++checked;
    std::vector<std::string> bad;
    cpu_flags_detail::negatives(
        run["cpu"], "/cpu", {"server_shift_us_per_req", "server_shift_us_per_hit", "server_shift_us_per_miss", "flags"},
        bad);
    if (run.contains("server_cpu_us_per_hit") && run["server_cpu_us_per_hit"].is_number() &&
        run["server_cpu_us_per_hit"].get<double>() < -1e-9)
      bad.push_back("/server_cpu_us_per_hit");
    if (run.contains("server_sampling")) {
      const nlohmann::json& s = run["server_sampling"];
      cpu_flags_detail::negatives(s, "/server_sampling", {"whole_sample_excess_us"}, bad);
      for (const char* outcome : {"hit", "miss", "other"}) {
        if (!s.contains(outcome) || !s[outcome].contains("parts_cpu_us")) continue;
        const nlohmann::json &cpu = s[outcome]["parts_cpu_us"],
                             &wall = s[outcome].value("parts_wall_us", nlohmann::json());
        for (const auto& [part, v] : cpu.items())
          if (part != "receive" && part != "other" && wall.contains(part) && v.get<double>() > wall[part].get<double>())
            bad.push_back(std::string("/server_sampling/") + outcome + "/parts_cpu_us/" + part);
      }
    }
    std::set<std::string> flagged;
    if (run["cpu"].contains("flags"))
      for (const auto& f : run["cpu"]["flags"]) flagged.insert(f.value("figure", std::string()));
    for (const std::string& figure : bad)
      EXPECT_TRUE(flagged.count(figure)) << name << ", run " << i << " (" << run.value("strategy", std::string("?"))
                                         << "): " << figure << " = " << run.at(nlohmann::json::json_pointer(figure))
                                         << " is not flagged in cpu.flags";
  }
  return checked;
}

}  // namespace hitcost::testing
