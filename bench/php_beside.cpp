#include "bench/php_beside.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/bench_util.h"

namespace hitcost::bench {
namespace {

// argv: DIR ROWS REPEATS SLICE_MS. For each case: "name status median_ns min_ns max_ns calls" or
// "name missing|wrong reason". A case is checked once (the page's rows, the inflated length)
// before it is timed; each batch is sized from a first one to about SLICE_MS.
constexpr const char* kScript = R"PHP(<?php
[$self, $dir, $rows, $repeats, $slice_ms] = $argv;
$rows = (int)$rows; $repeats = (int)$repeats; $slice = (float)$slice_ms * 1e6;
$page_rows = fn($v) => is_array($v) && isset($v['rows']) && count($v['rows']) === $rows;
$cases = [
  ['json', 'json_decode', fn($s) => json_decode($s, true), $page_rows],
  ['php', 'unserialize', fn($s) => unserialize($s), $page_rows],
  ['igbinary', 'igbinary_unserialize', fn($s) => igbinary_unserialize($s), $page_rows],
  ['msgpack', 'msgpack_unpack', fn($s) => msgpack_unpack($s), $page_rows],
  ['zlib of json', 'gzuncompress', fn($s) => gzuncompress($s), fn($v) => $v === file_get_contents("$dir/json")],
  ['zlib of html', 'gzuncompress', fn($s) => gzuncompress($s), fn($v) => $v === file_get_contents("$dir/html")],
];
foreach ($cases as [$bytes, $fn, $call, $check]) {
  $file = "$dir/" . str_replace(' ', '_', $bytes);
  if (!function_exists($fn)) { echo "$bytes|$fn|missing|the function is not defined (extension not loaded)\n"; continue; }
  $s = file_get_contents($file);
  if (!$check($call($s))) { echo "$bytes|$fn|wrong|the result does not match the page\n"; continue; }
  $n = 1;
  for (;;) {
    $t0 = hrtime(true); for ($i = 0; $i < $n; ++$i) $call($s); $dt = hrtime(true) - $t0;
    if ($dt >= $slice / 4) break;
    $n *= 4;
  }
  $n = max(1, (int)($n * $slice / max($dt, 1)));
  $per = [];
  for ($r = 0; $r < $repeats; ++$r) {
    $t0 = hrtime(true); for ($i = 0; $i < $n; ++$i) $call($s); $per[] = (hrtime(true) - $t0) / $n;
  }
  sort($per);
  $m = intdiv(count($per), 2);
  $median = count($per) % 2 ? $per[$m] : ($per[$m - 1] + $per[$m]) / 2;
  printf("%s|%s|ok|%.1f %.1f %.1f %d\n", $bytes, $fn, $median, $per[0], $per[count($per) - 1], $n * $repeats);
}
)PHP";

std::string run(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  status = ::pclose(p);
  return out;
}

void write_file(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

}  // namespace

PhpBeside time_php(const floor::HostBytes& bytes, uint32_t rows, int cpu, int repeats, double slice_ms) {
  PhpBeside out;
  int status = 0;
  std::string version = run("php -r 'echo PHP_VERSION;' 2>/dev/null", status);
  if (status != 0 || version.empty()) return out;
  out.version = "PHP " + version;
  const std::string dir = bench_dir() + "/php-beside";
  std::filesystem::create_directories(dir);
  write_file(dir + "/html", bytes.html);
  for (const auto& [s, b] : bytes.serialized) write_file(dir + "/" + to_string(s), b);
  write_file(dir + "/zlib_of_json", bytes.zlib_of_json);
  write_file(dir + "/zlib_of_html", bytes.zlib_of_html);
  write_file(dir + "/beside.php", kScript);
  std::string cmd = (cpu >= 0 ? "taskset -c " + std::to_string(cpu) + " " : std::string()) + "php " + dir +
                    "/beside.php " + dir + " " + std::to_string(rows) + " " + std::to_string(repeats) + " " +
                    std::to_string(slice_ms) + " 2>&1";
  std::istringstream lines(run(cmd, status));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string bytes_of, function, state, rest;
    if (!std::getline(f, bytes_of, '|') || !std::getline(f, function, '|') || !std::getline(f, state, '|')) continue;
    std::getline(f, rest);
    PhpTiming t{function, std::nullopt, ""};
    if (state == "ok") {
      floor::Timing timing;
      std::istringstream nums(rest);
      nums >> timing.median_ns >> timing.min_ns >> timing.max_ns >> timing.calls;
      timing.repeats = repeats;
      t.timing = timing;
    } else {
      t.why_not = rest;
    }
    out.by_bytes[bytes_of] = t;
  }
  return out;
}

}  // namespace hitcost::bench
