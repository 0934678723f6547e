#pragma once
// The files hitcost-load reads (run, sweep and merged JSONs) and writes (--json, --csv,
// --hdr, --html). Every failure names the path and the OS's reason.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hitcost::client {

// A JSON object from `path`. Errors: io_error ("PATH: No such file or directory") when the
// file cannot be opened, parse_error ("PATH: not a JSON object") when it does not hold one.
Result<nlohmann::json> load_json_file(const std::string& path);

// Writes `text` to PATH.tmp and renames it over `path`, so that a full disk or an interrupted
// run never leaves half a report where a whole one was. io_error on failure
// ("cannot write PATH: No space left on device").
Status write_output(const std::string& path, std::string_view text);

// The outputs one command was asked for (--json, --csv, --hdr-out, --html): each written with
// write_output; an empty path is an output not asked for. A failure is printed on stderr
// ("WHO: cannot write PATH: REASON") and remembered, so that the command still writes every
// other output and then exits kExitOutput (client/exit_code.h).
class OutputWriter {
 public:
  explicit OutputWriter(std::string who) : who_(std::move(who)) {}
  void write(const std::string& path, std::string_view text);
  bool all_written() const { return all_written_; }

 private:
  std::string who_;
  bool all_written_ = true;
};

}  // namespace hitcost::client
