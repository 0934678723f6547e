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

}  // namespace

int run_calibration(int argc, char** argv) {
  Options o;
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
  // The peers' CPU from the process's CPUs, before this thread is pinned to one of them.
  const int peer = o.peer_cpu == -2 ? other_cpu(o.cpu >= 0 ? o.cpu : sched_getcpu()) : o.peer_cpu;
  if (o.cpu >= 0 && pin_this_thread(o.cpu) != 0) {
    std::fprintf(stderr, "hitcost-bench: --cpu %d: not a CPU this process may run on\n", o.cpu);
    return 2;
  }
  const int cpu = sched_getcpu();
  const uint64_t t0 = now_ns();
  floor::HostSpec spec;
  spec.rows = o.rows;
  spec.peer_cpu = peer;
  const floor::TimingPlan plan{o.repeats, std::chrono::microseconds(static_cast<int64_t>(o.slice_ms * 1000))};
  auto steps = floor::calibrate_host(spec, plan);
  if (!steps) {
    std::fprintf(stderr, "hitcost-bench: %s\n", steps.error().message.c_str());
    return 1;
  }
  const floor::HostBytes bytes = floor::host_bytes(spec);
  PhpBeside php;
  if (!o.no_php) php = time_php(bytes, o.rows, o.cpu >= 0 ? o.cpu : cpu, o.repeats, o.slice_ms);
  const double seconds = double(now_ns() - t0) / 1e9;

  std::printf(
      "calibration of this host: CPU %d (loopback peers on %s), a page of %u rows (html %zu B, json %zu B); "
      "thread CPU per call, median [min..max] of %d interleaved repeats of ~%.1f ms each; %.1f s\n",
      cpu, peer >= 0 ? ("CPU " + std::to_string(peer)).c_str() : "any CPU", o.rows, bytes.html.size(),
      bytes.serialized.front().second.size(), o.repeats, o.slice_ms, seconds);
  if (!php.version.empty())
    std::printf(
        "PHP beside: %s (php-cli pinned to the same CPU; hrtime wall clock around each batch, the CPU "
        "otherwise idle)\n",
        php.version.c_str());
  else if (!o.no_php)
    std::printf("PHP beside: php-cli is not installed\n");
  std::printf("%-10s %-10s %-15s %-28s %-22s %-8s %-16s %-22s %s\n", "group", "step", "library", "bytes in -> out",
              "us per call", "MB/s", "", "PHP, same bytes (us)", "÷ PHP");
  nlohmann::json php_json = nlohmann::json::object();
  for (const floor::Step& s : *steps) {
    std::string what = (s.bytes_of.empty() ? "" : s.bytes_of + " ") + std::to_string(s.bytes_in) + " -> " +
                       std::to_string(s.bytes_out);
    std::string mark = s.fastest ? "fastest" : "";
    std::string php_cell, ratio_cell;
    const bool comparable = s.part == "decode" || s.part == "decompress";
    if (comparable)
      if (auto it = php.by_bytes.find(s.bytes_of); it != php.by_bytes.end()) {
        const PhpTiming& p = it->second;
        if (p.timing && s.error.empty()) {
          php_cell = p.function + " " + fmt("%.1f", p.timing->median_ns / 1e3);
          ratio_cell = fmt("%.2f", s.timing.median_ns / p.timing->median_ns) + "x";
        } else {
          php_cell = p.function + ": " + p.why_not;
        }
      }
    std::printf(
        "%-10s %-10s %-15s %-28s %-22s %-8s %-16s %-22s %s\n", s.part.c_str(), s.name.c_str(), s.library.c_str(),
        what.c_str(), s.error.empty() ? ns_text(s.timing).c_str() : ("not timed: " + s.error).c_str(),
        s.error.empty() ? fmt("%.0f", s.mb_per_s()).c_str() : "-", mark.c_str(), php_cell.c_str(), ratio_cell.c_str());
  }
  for (const auto& [key, p] : php.by_bytes) {
    php_json[key] =
        p.timing
            ? nlohmann::json{{"function", p.function},
                             {"ns",
                              {{"median", p.timing->median_ns}, {"min", p.timing->min_ns}, {"max", p.timing->max_ns}}},
                             {"calls", p.timing->calls}}
            : nlohmann::json{{"function", p.function}, {"why_not", p.why_not}};
  }
  if (!o.json_out.empty()) {
    floor::HitFloor as_doc;  // the steps in floor_json's layout
    as_doc.steps = *steps;
    as_doc.cpu = cpu;
    as_doc.peer_cpu = peer;
    nlohmann::json doc = floor::to_json(as_doc, plan);
    doc.erase("floor_us");
    doc.erase("in_force_us");
    doc["rows"] = o.rows;
    doc["seconds"] = seconds;
    doc["php"] = {{"version", php.version}, {"by_bytes", php_json}};
    std::ofstream f(o.json_out);
    f << doc.dump(2) << "\n";
    if (!f) {
      std::fprintf(stderr, "hitcost-bench: cannot write %s\n", o.json_out.c_str());
      return 4;
    }
  }
  return 0;
}

}  // namespace hitcost::bench
