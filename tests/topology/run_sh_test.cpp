// ./run.sh's answer, as a newcomer gets it (issue 32): the seed table decided under everyday
// noise — a process taking half of one CPU for the whole run — and no "costs" verdict between
// strategies that store identical bytes. Real memcached, hitcost-server and hitcost-load, the
// script itself; shorter runs than the default so the suite stays short, the same rules.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"

namespace fs = std::filesystem;
using hitcost::testing::CommandOptions;
using hitcost::testing::CommandResult;
using hitcost::testing::run_command;
using nlohmann::json;

namespace {

const std::string kSource = HITCOST_SOURCE_DIR;
const std::string kBinary = HITCOST_BINARY_DIR;

fs::path fresh_dir(const std::string& name) { return hitcost::testing::fresh_dir("run-sh", name); }

// A process that spins `duty` of every 10 ms and sleeps the rest, wherever the scheduler puts
// it (not pinned: other work on a user's machine is not either), until destroyed.
class Burner {
 public:
  explicit Burner(double duty) {
    pid_ = ::fork();
    if (pid_ != 0) return;
    using clock = std::chrono::steady_clock;
    const auto period = std::chrono::microseconds(10'000);
    const auto busy = std::chrono::duration_cast<clock::duration>(period * duty);
    volatile uint64_t sink = 0;
    for (;;) {
      const auto start = clock::now();
      while (clock::now() - start < busy) sink = sink + 1;
      std::this_thread::sleep_until(start + period);
    }
  }
  ~Burner() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Burner(const Burner&) = delete;
  Burner& operator=(const Burner&) = delete;

 private:
  pid_t pid_ = -1;
};

json run_sh(const fs::path& dir, const std::vector<std::string>& args, CommandResult* out) {
  std::vector<std::string> argv = {"/bin/bash", kSource + "/run.sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandOptions o{.timeout_ms = 300'000,
                   .env = {"HITCOST_NO_BUILD=1", "HITCOST_BUILD_DIR=" + kBinary, "HITCOST_OUT=" + dir.string()}};
  *out = run_command(argv, o);
  std::ifstream in(dir / "sweep.json");
  return json::parse(in, nullptr, false);
}

const json* verdict_of(const json& doc, const std::string& subject) {
  for (const json& v : doc["verdicts"])
    if (v.value("subject", std::string()) == subject) return &v;
  return nullptr;
}

}  // namespace

// The issue: with 0.4-0.9 cores of other work, 24 of 24 runs were left out and no verdict was
// given although struct:json cost ~6x html (then; ~2x since its decoder reads at its floor). Half a core of other work
// moves CPU per hit by at most ~40 % (bench/noise.sh, report/noise.h), far less than 6x: those runs stay in the
// verdicts, their intervals widened by that bound, and the answer comes.
TEST(RunSh, DecidesTheSeedTableWithAProcessTakingHalfACpu) {
  const fs::path dir = fresh_dir("burner");
  CommandResult r;
  json doc;
  {
    Burner burner(0.5);
    // Runs of 1 s, a third of the default's 3 s, so each round is noisier: at most 16 rounds
    // (the default's 8 rounds of 3 s measure 24 s per strategy; these 16 s at most). With 8
    // rounds of 1 s it once stopped undecided at 1.88x [0.94..3.78] on a busy machine.
    doc = run_sh(dir, {"-d", "1s", "--warmup", "300ms", "--idle", "300ms", "--latency-rate", "0", "--max-rounds", "16"},
                 &r);
  }
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(doc.is_object()) << r.out;
  size_t checked = 0;
  for (const char* subject : {"struct:json", "struct:json+zlib"}) {
    const json* v = verdict_of(doc, subject);
    ASSERT_NE(v, nullptr) << subject << "\n" << r.out;
    EXPECT_EQ(v->value("kind", std::string()), "costs") << v->value("text", std::string());
    // A real difference, decided: since the decoders read at their floor (simdjson, libdeflate) the
    // struct strategies cost about 1.7-2.5x html on memcached here (before: 2.6-7x).
    EXPECT_GT(v->value("ratio", 0.0), 1.3) << v->value("text", std::string());
    EXPECT_TRUE((*v)["decided_after_rounds"].is_number());
    ++checked;
  }
  EXPECT_EQ(checked, 2u);
  // It says how many rounds it took and what the noise was.
  EXPECT_NE(r.out.find("rounds: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("noise: other work beside the runs"), std::string::npos) << r.out;
  EXPECT_TRUE(doc["noise"].is_string() && !doc["noise"].get<std::string>().empty());
  if (!HasFailure()) fs::remove_all(dir);
}

// Four strategies whose values are the same bytes (html; a compression threshold above any page,
// so nothing is compressed, and every value is flagged as plain html): no "costs" verdict, by
// the verdicts' promise — at most alpha of sweeps of identical strategies call one, at any look.
// alpha 0.002 here, so that the promise, not luck, is what keeps the suite green (at the default
// 0.05 one CI run in twenty would fail by design).
TEST(RunSh, StrategiesThatStoreIdenticalBytesGetNoCostsVerdict) {
  const fs::path dir = fresh_dir("identical");
  CommandResult r;
  const json doc =
      run_sh(dir,
             {"--strategies", "html,html+zlib,html+zstd,html+fastlz", "--threshold", "100000000", "-d", "1s",
              "--warmup", "300ms", "--idle", "300ms", "--latency-rate", "0", "--max-rounds", "6", "--alpha", "0.002"},
             &r);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(doc.is_object()) << r.out;
  size_t checked = 0;
  for (const json& v : doc["verdicts"]) {
    EXPECT_NE(v.value("kind", std::string()), "costs") << v.value("text", std::string());
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
  // Every strategy answered every request: the comparison is of working runs.
  size_t rows = 0;
  for (const json& row : doc["summary"]) {
    EXPECT_EQ(row.value("errors", 1), 0) << row.dump();
    ++rows;
  }
  EXPECT_EQ(rows, 4u);
  if (!HasFailure()) fs::remove_all(dir);
}
