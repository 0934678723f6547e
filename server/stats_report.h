#pragma once
// GET /stats (JSON, schema in docs/http-api.md) and GET /metrics (Prometheus text
// format). Both are built from the same figures so they never disagree.
#include <nlohmann/json.hpp>
#include <string>

#include "server/router.h"

namespace hitcost::server {

nlohmann::json stats_json(const ServerContext& ctx, const RuntimeConfig& cfg);
std::string metrics_text(const nlohmann::json& stats);

}  // namespace hitcost::server
