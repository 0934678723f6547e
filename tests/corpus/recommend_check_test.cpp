// scripts/recommend-check.sh end to end, short: PHP's stock Memcached class fills a real
// memcached with small JSON records (enough for recommend to train dictionaries), hitcost-corpus
// samples them, and the script recommends, serves today's form and the answer through a real
// hitcost-server at GET /value/{n} and sweeps both, then (--php) the PHP application's own
// /value/{n} under php-fpm on the best answer PHP reads. What is checked is the plumbing and the
// figures' presence and consistency, not which way the verdict goes (CPU figures vary).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/command.h"
#include "tests/support/fresh_dir.h"
#include "tests/support/memcached_process.h"

namespace {

namespace fs = std::filesystem;
using hitcost::testing::CommandResult;
using hitcost::testing::run_command;
using nlohmann::json;

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string show(const CommandResult& r) { return "exit " + std::to_string(r.exit_code) + "\n" + r.out + r.err; }

}  // namespace

TEST(RecommendCheck, TheAnswerIsSweptAgainstTodayOnTheServerAndBothFiguresPrinted) {
  const fs::path dir = hitcost::testing::fresh_dir("recommend-check", "run");
  const std::string corpus = (dir / "users.hcorpus").string();
  {
    hitcost::testing::MemcachedProcess mc;
    const CommandResult fill =
        run_command({"php", std::string(HITCOST_SOURCE_DIR) + "/tests/corpus/data/php_fill_users.php",
                     std::to_string(mc.port()), "300"});
    ASSERT_EQ(fill.exit_code, 0) << show(fill);
    const CommandResult sampled = run_command(
        {hitcost::testing::corpus_binary(), "sample", "--from", "memcached:" + mc.address(), "-o", corpus, "-q"});
    ASSERT_EQ(sampled.exit_code, 0) << show(sampled);
  }
  const CommandResult r = run_command(
      {"bash", std::string(HITCOST_SOURCE_DIR) + "/scripts/recommend-check.sh", corpus, "--php", "--duration", "300ms",
       "--min-rounds", "2", "--max-rounds", "3", "--", "--search-rounds", "1", "--min-time-us", "2"},
      {.timeout_ms = 240'000,
       .env = {"HITCOST_NO_BUILD=1", std::string("HITCOST_BUILD_DIR=") + HITCOST_BINARY_DIR,
               "HITCOST_OUT=" + dir.string()},
       .own_session = true,
       .grace_ms = 2000});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_TRUE(r.left_running.empty()) << hitcost::testing::describe(r.left_running);
  const fs::path out = dir / "recommend-check";

  // recommend trained on a fifth and answered; the answer's first line is printed.
  const json rec = json::parse(read_file(out / "recommend.json"));
  // The sample lists keys with lru_crawler metadump, which can miss an item being moved.
  const int records = rec["corpus"]["records"];
  EXPECT_GE(records, 290);
  EXPECT_LE(records, 300);
  EXPECT_EQ(rec["corpus"]["training_values"], (records + 4) / 5);  // every fifth, the first one first
  EXPECT_EQ(rec["today"]["strategy"], "struct:json");              // php-memcached's json serializer, none over 2000 B
  ASSERT_TRUE(rec["recommendation"]["made"].get<bool>()) << rec["recommendation"]["sentence"];
  const std::string answer = rec["recommendation"]["strategy"];
  EXPECT_NE(r.out.find(rec["recommendation"]["sentence"].get<std::string>()), std::string::npos) << r.out;
  EXPECT_NE(read_file(out / "recommend.html").find("<svg"), std::string::npos);  // the chart

  // The sweep measured exactly today's form and the answer, each under its own threshold, on /value.
  const json sweep = json::parse(read_file(out / "sweep.json"));
  ASSERT_EQ(sweep["summary"].size(), 2u);
  EXPECT_EQ(sweep["summary"][0]["strategy"], "struct:json");
  EXPECT_EQ(sweep["summary"][1]["strategy"], answer);
  size_t runs = 0;
  for (const json& run : sweep["runs"]) {
    const std::string strategy = run["strategy"];
    // A form that compresses nothing is swept under threshold 0 (its rule has nothing to decide).
    const json threshold =
        strategy == answer ? rec["recommendation"]["threshold_bytes"] : rec["today"]["threshold_bytes"];
    EXPECT_EQ(run["server"]["config"]["threshold"], threshold.is_null() ? json(0) : threshold) << strategy;
    EXPECT_EQ(run["hit_ratio"], 1.0) << strategy;
    ++runs;
  }
  EXPECT_GE(runs, 4u);  // two strategies, at least two rounds
  // Served and swept: the values recommend measured, the fifth that trained the dictionaries left out.
  EXPECT_EQ(sweep["runs"][0]["keys"], rec["corpus"]["values_good"]);
  EXPECT_EQ(rec["corpus"]["values_good"].get<int>() + rec["corpus"]["training_values"].get<int>(), records);
  EXPECT_NE(read_file(out / "server.log")
                .find("measured.hcorpus: " + std::to_string(records - (records + 4) / 5) + " values"),
            std::string::npos)
      << read_file(out / "server.log");
  // A dictionary answer: the server loaded the file recommend kept.
  if (rec["recommendation"]["dictionary_scope"].is_string()) {
    const std::string scope = rec["recommendation"]["dictionary_scope"];
    EXPECT_NE(read_file(out / "server.log").find("writes " + scope), std::string::npos);
    EXPECT_TRUE(fs::exists(out / "dicts" / rec["recommendation"]["dictionary_file"].get<std::string>()));
  }

  // Both figures, side by side, from the two JSONs.
  const json check = json::parse(read_file(out / "check.json"));
  EXPECT_EQ(check["recommended"], rec["recommendation"]["candidate"]);
  EXPECT_EQ(check["predicted"]["read_render_ratio"], rec["recommendation"]["confirmed"]["ratio"]);
  EXPECT_EQ(check["measured"]["today_us"], sweep["summary"][0]["server_cpu_us_per_hit"]["median"]);
  EXPECT_EQ(check["measured"]["recommended_us"], sweep["summary"][1]["server_cpu_us_per_hit"]["median"]);
  EXPECT_GT(check["measured"]["today_us"].get<double>(), check["predicted"]["today_read_render_us"].get<double>())
      << "the whole hit costs more than its read and render";
  ASSERT_TRUE(check["agree"].is_boolean());
  EXPECT_NE(r.out.find("  predicted  read + render "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  measured   the whole hit "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(check["agree"].get<bool>() ? "agree: " : "disagree: "), std::string::npos) << r.out;

  // --php: PHP's own /value/{n} on the same values, today against the best answer PHP reads,
  // beside the C++ server's figures for the same pair.
  const json& php_answer =
      rec["recommendation"]["php"] != "cannot read" ? rec["recommendation"] : rec["recommendation_php"];
  ASSERT_TRUE(php_answer.is_object() && php_answer["made"].get<bool>()) << rec["recommendation_php"].dump();
  const json php_sweep = json::parse(read_file(out / "php-sweep.json"));
  ASSERT_EQ(php_sweep["summary"].size(), 2u);
  EXPECT_EQ(php_sweep["summary"][0]["strategy"], "struct:json");
  EXPECT_EQ(php_sweep["summary"][1]["strategy"], php_answer["strategy"]);
  size_t php_runs = 0;
  for (const json& run : php_sweep["runs"]) {
    EXPECT_EQ(run["hit_ratio"], 1.0) << run["strategy"];  // every request a hit through PHP's extension
    EXPECT_EQ(run["errors"]["total"], 0) << run["strategy"];
    ++php_runs;
  }
  EXPECT_GE(php_runs, 4u);
  EXPECT_NE(r.out.find("for PHP: " + php_answer["strategy"].get<std::string>() + " against today (struct:json)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  PHP (php-fpm + nginx)  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  C++ (hitcost-server)  "), std::string::npos) << r.out;
}

TEST(RecommendCheck, RefusesBadArgumentsBeforeStartingAnything) {
  const auto script = std::string(HITCOST_SOURCE_DIR) + "/scripts/recommend-check.sh";
  const std::vector<std::string> env = {"HITCOST_NO_BUILD=1", std::string("HITCOST_BUILD_DIR=") + HITCOST_BINARY_DIR};
  size_t refused = 0;
  for (const auto& [args, code, says] : std::vector<std::tuple<std::vector<std::string>, int, std::string>>{
           {{}, 2, "which corpus?"},
           {{"/nonexistent.hcorpus"}, 1, "cannot read the corpus"},
           {{"a", "b"}, 2, "one corpus"},
           {{"a", "--max-rounds", "0"}, 2, "--max-rounds wants a positive number"},
           {{"a", "--frobnicate"}, 2, "unknown option --frobnicate"}}) {
    std::vector<std::string> argv = {"bash", script};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult r = run_command(argv, {.timeout_ms = 30'000, .env = env});
    EXPECT_EQ(r.exit_code, code) << show(r);
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    ++refused;
  }
  EXPECT_EQ(refused, 5u);
}
