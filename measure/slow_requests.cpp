#include "measure/slow_requests.h"

#include <algorithm>

#include "measure/admin_client.h"

namespace hitcost::client {

std::optional<uint64_t> slow_log_mark(const Endpoint& ep) {
  auto body = http_ok_body(ep, "POST", "/admin/slow?since=18446744073709551615");  // no entries: the mark only
  if (!body) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(*body, nullptr, false);
  if (!doc.is_object() || !doc.contains("seq") || !doc["seq"].is_number_unsigned()) return std::nullopt;
  return doc["seq"].get<uint64_t>();
}

nlohmann::json slowest_since(const Endpoint& ep, uint64_t mark) {
  auto body = http_ok_body(ep, "POST", "/admin/slow?since=" + std::to_string(mark));
  if (!body) return nullptr;
  nlohmann::json doc = nlohmann::json::parse(*body, nullptr, false);
  if (!doc.is_object() || !doc.contains("entries") || !doc["entries"].is_array()) return nullptr;
  std::vector<nlohmann::json> entries(doc["entries"].begin(), doc["entries"].end());
  std::sort(entries.begin(), entries.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("service_us", 0.0) > b.value("service_us", 0.0);
  });
  const size_t recorded = entries.size();
  if (entries.size() > kSlowestKept) entries.resize(kSlowestKept);
  return {{"threshold_us", doc.value("threshold_us", 0.0)}, {"recorded", recorded}, {"slowest", entries}};
}

}  // namespace hitcost::client
