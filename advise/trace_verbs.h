#pragma once
// hitcost-corpus's traffic verbs (trace/): record a live memcached's requests, import a public
// trace, show what a trace holds. Registered on the program's CLI beside the value verbs.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace hitcost::corpus_cli {

struct TraceVerbArgs {
  CLI::App* record = nullptr;
  CLI::App* import = nullptr;
  CLI::App* show = nullptr;
  std::string from, out, duration = "60s", baseline = "5s", max_events = "0", max_bytes = "0", json;
  std::string format, input;
  std::string show_path;
  bool keep_keys = false, quiet = false;
  // record --values N: the N most-read keys' values into a corpus (--values-out, --scheme, --redact).
  std::string values = "0", values_out, scheme = "php-memcached";
  bool redact = false;
};

// `record` and `trace import|show` on `app`.
void add_trace_verbs(CLI::App& app, TraceVerbArgs& args);
// The exit code of the trace verb that was parsed; nullopt when none was.
std::optional<int> run_trace_verbs(const TraceVerbArgs& args);

}  // namespace hitcost::corpus_cli
