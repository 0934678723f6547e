#include "measure/floor_request.h"

#include <string_view>

#include "measure/admin_client.h"

namespace hitcost::client {
namespace {

// The value of `name` in a query "a=1&b=2" as the load sends it (no decoding: it is passed on).
std::string_view query_value(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (part.size() > name.size() && part.starts_with(name) && part[name.size()] == '=') {
      return part.substr(name.size() + 1);
    }
  }
  return {};
}

}  // namespace

Result<nlohmann::json> calibrate_floor(const LoadPlan& plan) {
  if (!plan.path_template.starts_with("/page/")) {
    return Error{Errc::invalid_argument, "no floor for " + plan.path_template + " (only /page hits are calibrated)"};
  }
  if (!plan.rows_mix.empty())
    return Error{Errc::invalid_argument, "no floor for a --rows-mix (pages of several sizes)"};
  std::string target = "/admin/calibrate?peer_cpu=" + std::to_string(plan.cpus.empty() ? -1 : plan.cpus.front());
  // A uniform run reads every key alike: its fetch's floor copies one of that many values. Under
  // zipf the few hot ones stay in the caches: one value, as hot as it can be.
  target += "&values=" + std::to_string(plan.keys.dist.kind == KeyDist::Kind::uniform ? plan.keys.keys : 1);
  for (std::string_view name : {"rows", "strategy"}) {
    if (std::string_view v = query_value(plan.query, name); !v.empty()) {
      target += '&';
      target += name;
      target += '=';
      target += v;
    }
  }
  auto body = http_ok_body(plan.endpoint, "POST", target);
  if (!body) return body.error();
  nlohmann::json doc = nlohmann::json::parse(*body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Error{Errc::parse_error, "calibrate: the answer is not JSON"};
  return doc;
}

}  // namespace hitcost::client
