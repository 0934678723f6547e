#pragma once
// What hitcost-load asks the server before it measures anything (a plain run; a sweep asks
// these and its own configuration checks, client/sweep.h): is it there, and does it take what
// the run will send. Each check is bounded, so an unreachable server is said within about two
// seconds with the OS's reason, instead of after an idle baseline, a warm-up and a window that
// print a report of zeros.
#include <string>

#include "core/result.h"
#include "load/load_runner.h"
#include "load/net.h"

namespace hitcost::client {

constexpr int kPreflightTimeoutMs = 2000;

// A connection to `ep` and an HTTP answer to GET /healthz within `timeout_ms`, whatever its
// status: a server that is not hitcost-server (the PHP backend behind nginx) may answer 404
// and is there all the same. Errc::connection ("cannot reach http://127.0.0.1:1: connect to
// 127.0.0.1:1: Connection refused") or Errc::timeout ("... no answer within 2 s").
Status check_reachable(const Endpoint& ep, int timeout_ms = kPreflightTimeoutMs);

// The first request of the load, sent once per request shape (id 0 with the plan's query; each
// --rows-mix size): a 400 is the server refusing a value every request of the run would carry
// (a strategy it does not know, rows above its --max-rows), so the run is refused before it
// starts, with the server's reason (invalid_argument: "GET /page/0?strategy=struct%3Ajsn: the
// server refused it: HTTP 400: bad strategy: ..."). Any other answer passes; the run counts
// what follows as it always has. Its side effect is a warm-up request's: a miss stores id 0.
Status check_first_request(const LoadPlan& plan, int timeout_ms = kPreflightTimeoutMs);

}  // namespace hitcost::client
