#include "bench/calibration_table.h"

#include <sched.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/php_beside.h"
#include "core/clock.h"
#include "core/pin.h"
#include "floor/floor_json.h"
#include "floor/host_calibration.h"

namespace hitcost::bench {
namespace {

struct Options {
  uint32_t rows = 50;
  int cpu = -1, peer_cpu = -2;  // -2: another CPU than `cpu` when there is one
  int repeats = 7;
  double slice_ms = 3;
  std::string json_out;
  bool no_php = false;
};

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string ns_text(const floor::Timing& t) {
  auto us = [](double ns) { return ns >= 1e4 ? fmt("%.1f", ns / 1e3) : fmt("%.2f", ns / 1e3); };
  return us(t.median_ns) + " [" + us(t.min_ns) + ".." + us(t.max_ns) + "]";
}

int other_cpu(int cpu) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set) && c != cpu) return c;
  return -1;
}

// What one calibration found, for the table and the JSON.
struct Table {
  int cpu = -1, peer = -1;
  std::vector<floor::Step> steps;
  floor::HostBytes bytes;
  PhpBeside php;
  double seconds = 0;
};

// The options; -1 to go on, else the exit code (--help 0, a usage error 2).
int parse_options(int argc, char** argv, Options& o) {
  CLI::App app{
      "hitcost-bench --calibrate: every step of a hit on this host, with every library it has, and "
      "PHP's own functions on the same bytes beside them"};
  bool calibrate = false;
  app.add_flag("--calibrate", calibrate, "print the calibration table (this mode)");
  app.add_option("--rows", o.rows, "rows of the page the table is timed on (50 rows: about 30 KB of HTML)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  app.add_option("--cpu", o.cpu, "pin the calibration (and php-cli) to this CPU; -1: where it runs")
      ->capture_default_str();
  app.add_option("--peer-cpu", o.peer_cpu, "CPU of the loopback peers (default: another CPU than --cpu)");
  app.add_option("--repeats", o.repeats, "interleaved repeats of every step")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--slice-ms", o.slice_ms, "thread CPU of one step in one repeat, ms")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1000.0));
  app.add_option("--json", o.json_out, "also write the table as JSON to FILE");
  app.add_flag("--no-php", o.no_php, "do not time PHP's functions beside the table");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return -1;
}

// PHP's figure for the bytes `s` reads and hitcost ÷ PHP, for a decode or decompress row.
std::pair<std::string, std::string> php_cells(const floor::Step& s, const PhpBeside& php) {
  if (s.part != "decode" && s.part != "decompress") return {};
  const auto it = php.by_bytes.find(s.bytes_of);
  if (it == php.by_bytes.end()) return {};
  const PhpTiming& p = it->second;
  if (!p.timing || !s.error.empty()) return {p.function + ": " + p.why_not, ""};
  return {p.function + " " + fmt("%.1f", p.timing->median_ns / 1e3),
          fmt("%.2f", s.timing.median_ns / p.timing->median_ns) + "x"};
}

void print_table(const Table& t, const Options& o) {
  std::printf(
      "calibration of this host: CPU %d (loopback peers on %s), a page of %u rows (html %zu B, json %zu B); "
      "thread CPU per call, median [min..max] of %d interleaved repeats of ~%.1f ms each; %.1f s\n",
      t.cpu, t.peer >= 0 ? ("CPU " + std::to_string(t.peer)).c_str() : "any CPU", o.rows, t.bytes.html.size(),
      t.bytes.serialized.front().second.size(), o.repeats, o.slice_ms, t.seconds);
  if (!t.php.version.empty())
    std::printf(
        "PHP beside: %s (php-cli pinned to the same CPU; hrtime wall clock around each batch, the CPU "
        "otherwise idle)\n",
        t.php.version.c_str());
  else if (!o.no_php)
    std::printf("PHP beside: php-cli is not installed\n");
  std::printf("%-10s %-10s %-15s %-28s %-22s %-8s %-8s %-22s %s\n", "group", "step", "library", "bytes in -> out",
              "us per call", "MB/s", "", "PHP, same bytes (us)", "÷ PHP");
  for (const floor::Step& s : t.steps) {
    const std::string what = (s.bytes_of.empty() ? "" : s.bytes_of + " ") + std::to_string(s.bytes_in) + " -> " +
                             std::to_string(s.bytes_out);
    const auto [php_cell, ratio_cell] = php_cells(s, t.php);
    std::printf("%-10s %-10s %-15s %-28s %-22s %-8s %-8s %-22s %s\n", s.part.c_str(), s.name.c_str(), s.library.c_str(),
                what.c_str(), s.error.empty() ? ns_text(s.timing).c_str() : ("not timed: " + s.error).c_str(),
                s.error.empty() ? fmt("%.0f", s.mb_per_s()).c_str() : "-", s.fastest ? "fastest" : "", php_cell.c_str(),
                ratio_cell.c_str());
  }
}

// The table in floor_json's layout of steps, with PHP's figures; false when it cannot be written.
bool write_json(const Table& t, const Options& o, const floor::TimingPlan& plan) {
  nlohmann::json php = nlohmann::json::object();
  for (const auto& [key, p] : t.php.by_bytes) {
    php[key] =
        p.timing
            ? nlohmann::json{{"function", p.function},
                             {"ns",
                              {{"median", p.timing->median_ns}, {"min", p.timing->min_ns}, {"max", p.timing->max_ns}}},
                             {"calls", p.timing->calls}}
            : nlohmann::json{{"function", p.function}, {"why_not", p.why_not}};
  }
  floor::HitFloor as_doc;
  as_doc.steps = t.steps;
  as_doc.cpu = t.cpu;
  as_doc.peer_cpu = t.peer;
  nlohmann::json doc = floor::to_json(as_doc, plan);
  for (const char* hit_only : {"floor_us", "in_force_us", "composed_us", "stored_bytes", "payload_bytes", "body_bytes"})
    doc.erase(hit_only);
  doc["rows"] = o.rows;
  doc["seconds"] = t.seconds;
  doc["php"] = {{"version", t.php.version}, {"by_bytes", php}};
  std::ofstream f(o.json_out);
  f << doc.dump(2) << "\n";
  return static_cast<bool>(f);
}

}  // namespace

int run_calibration(int argc, char** argv) {
  Options o;
  if (int code = parse_options(argc, argv, o); code >= 0) return code;
  Table t;
  // The peers' CPU from the process's CPUs, before this thread is pinned to one of them.
  t.peer = o.peer_cpu == -2 ? other_cpu(o.cpu >= 0 ? o.cpu : sched_getcpu()) : o.peer_cpu;
  if (o.cpu >= 0 && pin_this_thread(o.cpu) != 0) {
    std::fprintf(stderr, "hitcost-bench: --cpu %d: not a CPU this process may run on\n", o.cpu);
    return 2;
  }
  t.cpu = sched_getcpu();
  const uint64_t t0 = now_ns();
  floor::HostSpec spec;
  spec.rows = o.rows;
  spec.peer_cpu = t.peer;
  const floor::TimingPlan plan{o.repeats, std::chrono::microseconds(static_cast<int64_t>(o.slice_ms * 1000))};
  auto steps = floor::calibrate_host(spec, plan);
  if (!steps) {
    std::fprintf(stderr, "hitcost-bench: %s\n", steps.error().message.c_str());
    return 1;
  }
  t.steps = std::move(*steps);
  t.bytes = floor::host_bytes(spec);
  if (!o.no_php) t.php = time_php(t.bytes, o.rows, t.cpu, o.repeats, o.slice_ms);
  t.seconds = double(now_ns() - t0) / 1e9;
  print_table(t, o);
  if (!o.json_out.empty() && !write_json(t, o, plan)) {
    std::fprintf(stderr, "hitcost-bench: cannot write %s\n", o.json_out.c_str());
    return 4;
  }
  return 0;
}

}  // namespace hitcost::bench
