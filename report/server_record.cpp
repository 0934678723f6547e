#include "report/server_record.h"

namespace hitcost::client {

using nlohmann::json;

namespace {

// A counter is written when the server reported it, and a row of group "log" only with the log
// it counts for (see ServerRecord::Log).
bool written(size_t row, const ServerRecord& s) {
  return !s.unreported[row] && (wire::kServerCounterRows[row].json_group != "log" || s.log);
}

}  // namespace

void to_json(json& j, const ServerRecord& s) {
  j = json::object();
  fields::for_each_row(s, fields::Writer{j});
  for (size_t i = 0; i < wire::kServerCounterCount; ++i)
    if (written(i, s))
      j[json::json_pointer(wire::kServerCounterRows[i].pointer())] = s.*wire::kServerCounterRows[i].value;
  if (!s.log) return;
  // Per request, for the reader comparing log modes: what each request cost in log lines,
  // write(2) calls and bytes.
  auto per_req = [&](uint64_t n) { return s.requests ? double(n) / double(s.requests) : 0.0; };
  json& log = j["log"];
  log["mode"] = s.log->mode;
  log["lines_per_req"] = per_req(s.log_lines);
  log["write_calls_per_req"] = per_req(s.log_write_calls);
  log["bytes_per_req"] = per_req(s.log_bytes);
  if (!s.log->path.empty()) log["path"] = s.log->path;
}

void from_json(const json& j, ServerRecord& s) {
  s = ServerRecord{};
  if (!j.is_object()) return;
  fields::for_each_row(s, fields::Reader{j});
  if (const auto it = j.find("log"); it != j.end() && it->is_object()) {
    s.log.emplace();
    fields::Reader{*it}("/mode", "", s.log->mode);
    fields::Reader{*it}("/path", "", s.log->path);
  }
  for (size_t i = 0; i < wire::kServerCounterCount; ++i) {
    const wire::ServerCounterRow& c = wire::kServerCounterRows[i];
    const json::json_pointer p(c.pointer());
    if (j.contains(p) && j.at(p).is_number_unsigned())
      s.*c.value = j.at(p).get<uint64_t>();
    else
      s.unreported.set(i);
  }
}

}  // namespace hitcost::client
