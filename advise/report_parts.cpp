#include "advise/report_parts.h"

#include <cinttypes>

#include "corpus/tree_html.h"

namespace hitcost::corpus::report_parts {

std::string hex_flags(uint32_t flags) { return fmt("0x%08" PRIx32, flags); }

std::string escaped(std::string_view s) {
  std::string out;
  append_html_escaped(s, out);
  return out;
}

nlohmann::ordered_json verdict_json(const std::optional<client::Verdict>& v) {
  if (!v) return nullptr;
  nlohmann::ordered_json j = {
      {"kind", client::to_string(v->kind)},    {"metric", v->metric},         {"pairs", v->pairs},
      {"decided_after_rounds", v->decided_at}, {"confidence", v->confidence}, {"text", v->text}};
  j["ratio"] = v->ratio ? nlohmann::ordered_json(*v->ratio) : nlohmann::ordered_json(nullptr);
  j["low"] = v->low ? nlohmann::ordered_json(*v->low) : nlohmann::ordered_json(nullptr);
  j["high"] = v->high ? nlohmann::ordered_json(*v->high) : nlohmann::ordered_json(nullptr);
  return j;
}

nlohmann::ordered_json failures_json(const std::vector<FailureKind>& kinds) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const FailureKind& k : kinds) {
    nlohmann::ordered_json listed = nlohmann::ordered_json::array();
    for (const FailureExample& e : k.listed)
      listed.push_back({{"key", e.key}, {"flags", hex_flags(e.flags)}, {"reason", e.reason}});
    out.push_back({{"kind", k.kind}, {"count", k.count}, {"listed", std::move(listed)}});
  }
  return out;
}

}  // namespace hitcost::corpus::report_parts
