#pragma once
// The files hitcost-load reads (run, sweep and merged JSONs) and writes (--json, --csv,
// --hdr, --html). Every failure names the path and the OS's reason.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hitcost::client {

// A JSON object from `path`; nullopt with *error ("PATH: No such file or directory",
// "PATH: not a JSON object").
std::optional<nlohmann::json> load_json_file(const std::string& path, std::string* error);

// Writes `text` to PATH.tmp and renames it over `path`, so that a full disk or an interrupted
// run never leaves half a report where a whole one was. false with *error
// ("cannot write PATH: No space left on device").
bool write_output(const std::string& path, std::string_view text, std::string* error);

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
