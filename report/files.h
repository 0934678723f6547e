#pragma once
// The files hitcost-load reads (run, sweep and merged JSONs) and writes (--json, --csv,
// --hdr, --html). Every failure names the path and the OS's reason.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace hitcost::client {

// A JSON object from `path`. Errors: io_error ("PATH: No such file or directory") when the
// file cannot be opened, parse_error ("PATH: not a JSON object") when it does not hold one.
Result<nlohmann::json> load_json_file(const std::string& path);

// Writes `text` to PATH.tmp and renames it over `path`, so that a full disk or an interrupted
// run never leaves half a report where a whole one was. io_error on failure
// ("cannot write PATH: No space left on device"); a file that is there and not writable (the
// user made it read-only) is not replaced ("cannot write PATH: Permission denied").
Status write_output(const std::string& path, std::string_view text);

// One output a command was asked for: the option that named it and its path ("" = not asked).
struct OutputPath {
  std::string option;  // "--json", "-o"
  std::string path;
};

// Whether write_output could write each path, checked before a command measures or samples
// anything, so that a typo in a directory costs no run; nothing is created, truncated or
// removed. A path passes when its directory exists and this process may create files in it
// (PATH.tmp is made there, then renamed), and PATH is not a directory nor a file it may not
// write. Two options naming one file are refused too: one would overwrite the other.
// invalid_argument naming the option, the path and the reason ("--json /x/r.json: directory
// /x: No such file or directory"). A write can still fail at the end (a full disk): that stays
// write_output's io_error.
Status check_output_paths(const std::vector<OutputPath>& outputs);

// Whether two paths name one file (one inode, or the same name in the same directory for a
// file not there yet): an output that would replace an input.
bool same_file(const std::string& a, const std::string& b);

// The outputs one command was asked for (--json, --csv, --hdr-out, --html): each written with
// write_output; an empty path is an output not asked for. A failure is printed on stderr
// ("WHO: cannot write PATH: REASON") and remembered, so that the command still writes every
// other output and then exits kExitOutput (report/exit_code.h).
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
