#include "measure/preflight.h"

#include <chrono>

#include "measure/server_stats.h"

namespace hitcost::client {

namespace {
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string seconds_text(int timeout_ms) {
  const int tenths = (timeout_ms + 50) / 100;
  return tenths % 10 == 0 ? std::to_string(tenths / 10)
                          : std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}
}  // namespace

Status check_reachable(const Endpoint& ep, int timeout_ms) {
  const std::string who = "cannot reach http://" + ep.host_header + ": ";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = http_request(ep, "GET", "/healthz", {}, timeout_ms);
  if (r) return ok_status();  // an HTTP answer, any status: someone serves there
  const double spent_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // A connect or a read that ran out of time says "Resource temporarily unavailable" or
  // "Operation now in progress": the time it waited is the reason a user can act on.
  const Error& e = r.error();
  if (e.code == Errc::timeout || spent_ms >= timeout_ms)
    return Error{Errc::timeout,
                 who + "no answer within " + seconds_text(timeout_ms) + " s (" + one_line(e.message) + ")"};
  return Error{e.code == Errc::parse_error ? Errc::parse_error : Errc::connection, who + one_line(e.message)};
}

Status check_first_request(const LoadPlan& plan, int timeout_ms) {
  for (const RequestTemplate& t : make_request_templates(plan)) {
    // The template is "GET <before-id>" and "<after-id> HTTP/1.1\r\n...": the target between.
    const std::string target =
        t.prefix.substr(4) + (t.has_id ? "0" : "") + t.suffix.substr(0, t.suffix.find(" HTTP/1.1"));
    const auto r = http_request(plan.endpoint, "GET", target, {}, timeout_ms);
    if (r && r->status == 400)
      return Error{Errc::invalid_argument, "GET " + target + ": the server refused it: " + one_line(r->refusal())};
  }
  return ok_status();
}

}  // namespace hitcost::client
