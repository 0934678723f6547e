#include "report/slowest.h"

#include <cstdio>

#include "report/html_charts.h"

namespace hitcost::client {
namespace {

std::string ms(double us) {
  char b[32];
  std::snprintf(b, sizeof b, us >= 10000 ? "%.0f ms" : "%.2f ms", us / 1e3);
  return b;
}

// "fetch 0.09/296 ms, decode 0.05/0.05 ms": each part's CPU / wall.
std::string parts_text(const nlohmann::json& parts) {
  std::string s;
  for (const auto& [name, v] : parts.items()) {
    char b[96];
    std::snprintf(b, sizeof b, "%s%s %.3g/%.3g ms", s.empty() ? "" : ", ", name.c_str(), v.value("cpu_us", 0.0) / 1e3,
                  v.value("wall_us", 0.0) / 1e3);
    s += b;
  }
  return s;
}

}  // namespace

std::string slowest_text(const nlohmann::json& slowest) {
  if (!slowest.is_object()) return "";
  const nlohmann::json& list = slowest.contains("slowest") ? slowest["slowest"] : nlohmann::json::array();
  const double threshold = slowest.value("threshold_us", 0.0);
  const uint64_t recorded = slowest.value("recorded", uint64_t{0});
  if (list.empty()) return "  slowest       none above " + ms(threshold) + " (the server's slow log)\n";
  std::string o = "  slowest       " + std::to_string(list.size()) + " of " + std::to_string(recorded) +
                  " requests above " + ms(threshold) + " (the server's slow log; part CPU/wall):\n";
  for (const nlohmann::json& e : list) {
    o += "    " + ms(e.value("service_us", 0.0)) + "  " + e.value("target", std::string("?")) + " " +
         e.value("cache", std::string("-")) + "  waited on " + e.value("waited_on", std::string("?"));
    if (e.value("major_faults", uint64_t{0}))
      o += "  (" + std::to_string(e.value("major_faults", uint64_t{0})) + " major faults)";
    o += "\n      " + parts_text(e.value("parts", nlohmann::json::object())) + "\n";
  }
  return o;
}

std::string slowest_html(const nlohmann::json& slowest) {
  if (!slowest.is_object()) return "";
  const nlohmann::json& list = slowest.contains("slowest") ? slowest["slowest"] : nlohmann::json::array();
  std::string h = "<p>Slowest requests (the server's slow log, above " + ms(slowest.value("threshold_us", 0.0)) + "; " +
                  std::to_string(slowest.value("recorded", uint64_t{0})) + " in the window)</p>";
  if (list.empty()) return h;
  h += "<table><tr><th>service</th><th>target</th><th>cache</th><th>waited on</th><th>parts: CPU / wall</th></tr>";
  for (const nlohmann::json& e : list) {
    h += "<tr><td>" + ms(e.value("service_us", 0.0)) + "</td><td>" + html::breakable(e.value("target", std::string())) +
         "</td><td>" + html::esc(e.value("cache", std::string("-"))) + "</td><td>" +
         html::esc(e.value("waited_on", std::string())) + "</td><td>" +
         html::esc(parts_text(e.value("parts", nlohmann::json::object()))) + "</td></tr>";
  }
  return h + "</table>";
}

}  // namespace hitcost::client
