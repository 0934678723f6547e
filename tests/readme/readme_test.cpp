// README.md and docs/*.md against the programs they document (issue 16; the README's sections
// moved to docs/ in issue 31): the commands and --flags they show exist in the --help of what
// they run, every option our programs' --help prints (each subcommand's included) is documented
// in one of them, README's exit-code table is report/exit_code.h's, and their relative links
// lead to files and headings that exist. The checker's rules are first shown to fail on small
// made-up files (ReadmeChecker.*), then applied to the real ones (Readme.*); each failure prints
// FILE:LINE and what to fix.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "tests/readme/readme_check.h"
#include "tests/support/command.h"
#include "tests/support/server_process.h"

namespace hitcost::readme {
namespace {

// Options of our binaries (our_binaries()) deliberately left out of README.md and docs/*.md,
// each with the reason. Empty: every option is documented (--help/-h need no entry).
const std::set<std::string> kUndocumentedOnPurpose = {};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string listing(const std::vector<std::string>& problems) {
  std::string out = std::to_string(problems.size()) + " problem(s):\n";
  for (const auto& p : problems) out += "  " + p + "\n";
  return out;
}

bool contains(const std::vector<std::string>& problems, const std::string& needle) {
  for (const auto& p : problems)
    if (p.find(needle) != std::string::npos) return true;
  return false;
}

// --- made-up programs for the checker's own tests ----------------------------------------

HelpSource fake_source(std::map<std::string, std::set<std::string>> flags_by_target) {
  HelpSource s;
  s.subcommands = {{"hitcost-load", {"sweep", "report", "merge", "compare"}},
                   {"hitcost-corpus", {"sample", "compare", "redact", "show"}}};
  s.help = [flags_by_target](const Target& t) {
    Help h;
    const auto it = flags_by_target.find(t.name());
    if (it == flags_by_target.end()) {
      h.problem = "no such program";
      return h;
    }
    h.ok = true;
    h.flags = it->second;
    h.flags.insert("--help");
    return h;
  };
  s.script_exists = [flags_by_target](const std::string& script) { return flags_by_target.count(script) > 0; };
  return s;
}

TEST(ReadmeChecker, CommandsOfCodeBlocksAreSplitJoinedAndStrippedOfComments) {
  const std::string readme =
      "text\n"
      "```sh\n"
      "$ build/release/client/hitcost-load --url http://127.0.0.1:8080 \\\n"
      "    --bogus 1 && scripts/x.sh --nodes 2   # --commented-out\n"
      "FOO=1 ./run.sh --repeat 8 --nope 2>&1 | tee log; hitcost-server --port 1 &\n"
      "```\n"
      "```php\n"
      "hitcost-load --not-shell\n"
      "```\n";
  const auto commands = our_commands(readme);
  ASSERT_EQ(commands.size(), 4u);
  EXPECT_EQ(commands[0].program, "hitcost-load");
  EXPECT_EQ(commands[0].line, 3);
  EXPECT_EQ(commands[0].args, (std::vector<std::string>{"--url", "http://127.0.0.1:8080", "--bogus", "1"}));
  EXPECT_EQ(commands[1].program, "scripts/x.sh");
  EXPECT_EQ(commands[1].args, (std::vector<std::string>{"--nodes", "2"}));
  EXPECT_EQ(commands[2].program, "run.sh");
  EXPECT_EQ(commands[2].args, (std::vector<std::string>{"--repeat", "8", "--nope", "2>&1"}));
  EXPECT_EQ(commands[3].program, "hitcost-server");

  const auto f = check_commands(readme, fake_source({{"hitcost-load", {"--url"}},
                                                     {"hitcost-load sweep", {"--repeat"}},
                                                     {"hitcost-server", {"--port"}},
                                                     {"scripts/x.sh", {"--nodes"}}}));
  EXPECT_EQ(f.problems.size(), 2u) << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "README.md:3: `hitcost-load --url http://127.0.0.1:8080 --bogus 1`: --bogus"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems,
                       "README.md:5: `run.sh --repeat 8 --nope 2>&1`: --nope is not an option of "
                       "`hitcost-load sweep` (run.sh passes"))
      << listing(f.problems);
  EXPECT_EQ(f.checked, 4 + 6);  // 4 commands, 6 flags
}

TEST(ReadmeChecker, ConsoleBlocksTakeOnlyPromptLinesAndSynopsisBracketsAreNotPipes) {
  const std::string readme =
      "```console\n"
      "$ hitcost-load merge a.json b.json [--json F] [--store memcached|SPEC]\n"
      "hitcost-load --this-is-output\n"
      "```\n";
  const auto commands = our_commands(readme);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].args.back(), "memcached|SPEC]");
  const auto f = check_commands(readme, fake_source({{"hitcost-load", {}}, {"hitcost-load merge", {"--json"}}}));
  ASSERT_EQ(f.problems.size(), 1u) << listing(f.problems);
  EXPECT_NE(f.problems[0].find("--store is not an option of `hitcost-load merge`"), std::string::npos);
}

TEST(ReadmeChecker, AnUnknownSubcommandIsNamed) {
  const std::string readme = "Run `hitcost-load run --url URL -d 2s`.\n";
  const auto f = check_commands(readme, fake_source({{"hitcost-load", {"--url", "-d"}}}));
  ASSERT_EQ(f.problems.size(), 1u) << listing(f.problems);
  EXPECT_NE(f.problems[0].find("README.md:1:"), std::string::npos);
  EXPECT_NE(f.problems[0].find("no subcommand 'run'"), std::string::npos);
}

TEST(ReadmeChecker, ARequiredSubcommandMustBeGivenAndKnown) {
  const std::string readme =
      "```sh\n"
      "build/release/advise/hitcost-corpus sample --from memcached:h:1 -o f\n"  // 2: fine
      "hitcost-corpus sampel --from memcached:h:1 -o f\n"                       // 3: unknown
      "hitcost-corpus --from memcached:h:1\n"                                   // 4: none given
      "hitcost-corpus\n"                                                        // 5: none given
      "hitcost-corpus --help\n"                                                 // 6: fine
      "```\n"
      "`hitcost-corpus` reads a sample; `hitcost-corpus show FILE` prints it.\n";  // 8: fine
  const auto f = check_commands(
      readme,
      fake_source({{"hitcost-corpus", {}}, {"hitcost-corpus sample", {"--from", "-o"}}, {"hitcost-corpus show", {}}}));
  EXPECT_EQ(f.problems.size(), 3u) << listing(f.problems);
  EXPECT_TRUE(contains(f.problems,
                       "README.md:3: `hitcost-corpus sampel --from memcached:h:1 -o f`: hitcost-corpus has no "
                       "subcommand 'sampel' (it has: sample, compare, redact, show)"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems,
                       "README.md:4: `hitcost-corpus --from memcached:h:1`: hitcost-corpus needs a subcommand first "
                       "(one of: sample, compare, redact, show)"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "README.md:5: `hitcost-corpus`: hitcost-corpus needs a subcommand first"))
      << listing(f.problems);
  // 7 commands; flags: 2 of line 2, --help of line 6 (those of lines 3 and 4 reach no subcommand).
  EXPECT_EQ(f.checked, 7 + 3);
}

TEST(ReadmeChecker, ASubcommandsFlagIsCheckedAgainstThatSubcommandAlone) {
  const std::string readme =
      "```sh\n"
      "hitcost-corpus compare f.hcorpus --cpu 1 --from x\n"  // 2: --from is sample's
      "```\n"
      "Or `hitcost-corpus redact f -o g --seed 2`.\n";  // 4: --seed is sample's
  const auto f = check_commands(readme, fake_source({{"hitcost-corpus compare", {"--cpu"}},
                                                     {"hitcost-corpus redact", {"-o"}},
                                                     {"hitcost-corpus sample", {"--from", "--seed"}}}));
  EXPECT_EQ(f.checked, 2 + 4);  // 2 commands, 4 flags
  ASSERT_EQ(f.problems.size(), 2u) << listing(f.problems);
  EXPECT_TRUE(contains(f.problems,
                       "README.md:2: `hitcost-corpus compare f.hcorpus --cpu 1 --from x`: --from is not an option of "
                       "`hitcost-corpus compare`: not in `hitcost-corpus compare --help`"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems,
                       "README.md:4: `hitcost-corpus redact f -o g --seed 2`: --seed is not an option of "
                       "`hitcost-corpus redact`"))
      << listing(f.problems);
}

TEST(ReadmeChecker, FlagsUnderAHeadingNamingASubcommandBinaryAreCheckedAgainstItsSubcommands) {
  const std::string readme =
      "## hitcost-corpus\n"                                                         // 1
      "| `--from` | required | nodes |\n"                                           // 2: sample's
      "| `--cpu` | none | pin |\n"                                                  // 3: compare's
      "| `--url` | | hitcost-load's, not here |\n"                                  // 4
      "What `compare f --cpu 1 --from x` printed.\n"                                // 5: --from is not compare's
      "(as `redact` below), then `--cpu`.\n"                                        // 6: the section's
      "### 5. Your own values (`hitcost-corpus`)\n"                                 // 7
      "`--rounds 6` and `--repeat 3`\n"                                             // 8: --repeat is nobody's here
      "## Other\n"                                                                  // 9
      "`compare f --bogus` is someone else's command here, and `--bogus2` its.\n";  // 10: not checked
  const auto s = check_inline_flags(readme, fake_source({{"hitcost-corpus sample", {"--from", "--seed"}},
                                                         {"hitcost-corpus compare", {"--cpu", "--rounds"}},
                                                         {"hitcost-corpus redact", {"-o"}},
                                                         {"hitcost-corpus show", {}},
                                                         {"hitcost-load", {"--url"}},
                                                         {"hitcost-load sweep", {"--repeat"}},
                                                         {"hitcost-load report", {}},
                                                         {"hitcost-load merge", {}},
                                                         {"hitcost-load compare", {}},
                                                         {"hitcost-server", {}}}));
  const auto& p = s.findings.problems;
  EXPECT_EQ(p.size(), 3u) << listing(p);
  EXPECT_TRUE(contains(p,
                       "README.md:4: `--url`: --url is not an option of the program(s) this section's heading "
                       "names (hitcost-corpus): not in `hitcost-corpus sample --help`, "
                       "`hitcost-corpus compare --help`, `hitcost-corpus redact --help`, "
                       "`hitcost-corpus show --help`"))
      << listing(p);
  EXPECT_TRUE(contains(p,
                       "README.md:5: `compare f --cpu 1 --from x`: --from is not an option of "
                       "`hitcost-corpus compare` (the inline code starts with that subcommand)"))
      << listing(p);
  EXPECT_TRUE(contains(p,
                       "README.md:8: `--repeat 3`: --repeat is not an option of the program(s) this section's "
                       "heading names (hitcost-corpus)"))
      << listing(p);
  // 1-6: --from --cpu --url, --cpu --from, --cpu; 8: --rounds --repeat.
  EXPECT_EQ(s.checked_by_program.at("hitcost-corpus"), 3 + 2 + 1 + 2);
  EXPECT_EQ(s.findings.checked, 8);  // outside the section, `compare ...` is no subcommand: line 10's are not checked
}

TEST(ReadmeChecker, ScriptsShownRunMustAnswerHelpAndScriptsMentionedMustExist) {
  const std::string readme =
      "```sh\nscripts/nohelp.sh\n```\n"
      "See `scripts/gone.sh` and `scripts/there.sh`.\n";
  auto source = fake_source({{"scripts/there.sh", {}}});
  const auto f = check_commands(readme, source);
  EXPECT_EQ(f.problems.size(), 2u) << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "README.md:2: `scripts/nohelp.sh`: scripts/nohelp.sh --help: no such program"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "README.md:4: `scripts/gone.sh`: scripts/gone.sh does not exist"))
      << listing(f.problems);
}

TEST(ReadmeChecker, InlineFlagsAreCheckedAgainstTheSectionsProgramOrTheCommandBeforeThem) {
  const std::string readme =
      "# tool\n"                                                           // 1
      "## hitcost-server\n"                                                // 2
      "| `--port` | `8080` | port |\n"                                     // 3
      "| `--gone` | | removed |\n"                                         // 4
      "### Its notes\n"                                                    // 5
      "`--port 0` picks one; `--url` is not the server's.\n"               // 6
      "## Elsewhere\n"                                                     // 7
      "`hitcost-load --server-pids`/`--server-tree` measure it.\n"         // 8
      "- `perf record -g` then `--call-graph dwarf`\n"                     // 9
      "  and `--stack-size` (still perf's item)\n"                         // 10
      "- `--nowhere` is no one's.\n"                                       // 11
      "## Script (`scripts/t.sh`)\n"                                       // 12
      "`--nodes` and `--url`\n"                                            // 13
      "`hitcost-load merge` then `--nodes`, `--json` and `--gone`\n"       // 14
      "- `build/test/bench/hitcost-bench`: use `--benchmark_filter=x`\n";  // 15
  const auto s = check_inline_flags(readme, fake_source({{"hitcost-server", {"--port"}},
                                                         {"hitcost-load", {"--url", "--server-pids", "--server-tree"}},
                                                         {"hitcost-load sweep", {"--url"}},
                                                         {"hitcost-load report", {}},
                                                         {"hitcost-load merge", {"--json"}},
                                                         {"hitcost-load compare", {}},
                                                         {"scripts/t.sh", {"--nodes"}}}));
  const auto& p = s.findings.problems;
  EXPECT_EQ(p.size(), 5u) << listing(p);
  EXPECT_TRUE(contains(
      p,
      "README.md:4: `--gone`: --gone is not an option of the program(s) this section's heading names (hitcost-server)"))
      << listing(p);
  EXPECT_TRUE(contains(
      p,
      "README.md:6: `--url`: --url is not an option of the program(s) this section's heading names (hitcost-server)"))
      << listing(p);
  EXPECT_TRUE(contains(p, "README.md:11: `--nowhere`: --nowhere is not an option of any program of ours"))
      << listing(p);
  EXPECT_TRUE(contains(
      p, "README.md:13: `--url`: --url is not an option of the program(s) this section's heading names (scripts/t.sh)"))
      << listing(p);
  EXPECT_TRUE(contains(
      p,
      "README.md:14: `--gone`: --gone is not an option of the program(s) this section's heading names (scripts/t.sh) or of the command before it"))
      << listing(p);
  EXPECT_EQ(s.checked_by_program.at("hitcost-server"), 4);  // --port, --gone, --port, --url
  EXPECT_EQ(s.checked_by_program.at("scripts/t.sh"), 2 + 3);
  EXPECT_EQ(s.findings.checked, 4 + 1 + 1 + 2 + 3);
}

TEST(ReadmeChecker, FlagsUnderAProgramWhoseHelpCannotBeReadAreReportedOnce) {
  const std::string readme = "## Broken (`scripts/broken.sh`)\n`--a`, `--b`\n\n`--c`\n";
  const auto s = check_inline_flags(readme, fake_source({}));
  EXPECT_EQ(s.findings.checked, 3);
  ASSERT_EQ(s.findings.problems.size(), 1u) << listing(s.findings.problems);
  EXPECT_EQ(s.findings.problems[0],
            "README.md:2: this flag and 2 more below it could not be checked: "
            "`scripts/broken.sh --help`: no such program");
}

TEST(ReadmeChecker, EveryHelpOfEveryBinaryIsLookedUpForUndocumentedOptions) {
  auto source = fake_source({{"hitcost-server", {"--port"}},
                             {"hitcost-load", {"--url"}},
                             {"hitcost-load sweep", {"--repeat"}},
                             {"hitcost-load report", {}},
                             {"hitcost-load merge", {}},
                             {"hitcost-load compare", {}},
                             {"hitcost-corpus sample", {"--from", "-o", "--out", "--seed"}},
                             {"hitcost-corpus compare", {"--cpu"}},
                             {"hitcost-corpus redact", {"-o", "--out"}},
                             {"hitcost-corpus show", {}}});
  const auto targets = binary_targets(source);
  // hitcost-corpus's own help (only --help: a subcommand is required) is not among them.
  EXPECT_EQ(targets.size(), 1u + 5u + 4u);
  EXPECT_EQ(std::count(targets.begin(), targets.end(), Target{"hitcost-corpus", ""}), 0);
  const std::string readme = "`--port`, `--url`, `--repeat`; `hitcost-corpus sample --from X -o F`; `--cpu 1`\n";
  const auto f = check_help_flags_documented(readme, source, targets, {});
  EXPECT_EQ(f.checked, 1 + 1 + 1 + 4 + 1 + 2);
  ASSERT_EQ(f.problems.size(), 2u) << listing(f.problems);
  EXPECT_NE(f.problems[0].find("--out (in `hitcost-corpus sample --help`, `hitcost-corpus redact --help`)"),
            std::string::npos)
      << listing(f.problems);
  EXPECT_NE(f.problems[1].find("--seed (in `hitcost-corpus sample --help`) appears nowhere"), std::string::npos)
      << listing(f.problems);
}

TEST(ReadmeChecker, AHelpFlagNotInTheReadmeIsReported) {
  const std::string readme = "Use `--url` and `-c`, `--connections`; --max-error-rate-x is another.\n";
  const auto f = check_help_flags_documented(
      readme,
      fake_source({{"hitcost-load", {"--url", "-c", "--connections", "--max-error-rate", "-q"}},
                   {"hitcost-load sweep", {"--url", "--max-error-rate", "--kept-out"}}}),
      {{"hitcost-load", ""}, {"hitcost-load", "sweep"}}, {"--kept-out"});
  EXPECT_EQ(f.checked, 7);
  ASSERT_EQ(f.problems.size(), 2u) << listing(f.problems);
  EXPECT_NE(f.problems[0].find("--max-error-rate (in `hitcost-load --help`, `hitcost-load sweep --help`)"),
            std::string::npos)
      << listing(f.problems);
  EXPECT_NE(f.problems[1].find("-q (in `hitcost-load --help`)"), std::string::npos) << listing(f.problems);
}

TEST(ReadmeChecker, ExitCodeTableMatchesTheHeaderBothWays) {
  const std::string header = "kExitOk = 0, kExitFailed = 1, kExitUsage = 2,\n kExitErrors = 3,";
  const std::string readme =
      "## Other\n| 3 | not this table |\n"
      "## Exit codes\n"  // 3
      "| code | meaning |\n|---|---|\n"
      "| 0 | ok |\n| `1` | failed |\n"  // 6, 7
      "| 2 | usage |\n| 5 | invented |\n"
      "## After\n| 3 | not this one either |\n";
  const auto f = check_exit_codes(readme, header);
  EXPECT_EQ(f.checked, 4 + 4);
  ASSERT_EQ(f.problems.size(), 2u) << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "README.md:9: exit code 5 is not one of report/exit_code.h's (0, 1, 2, 3)"));
  EXPECT_TRUE(contains(f.problems, "README.md:3: exit code 3 (kExitErrors in report/exit_code.h) is missing"));
  EXPECT_TRUE(contains(check_exit_codes("# none\n", header).problems, "no heading with \"Exit codes\""));
}

// The README's sections moved to docs/*.md: each file is checked as the README is, its problems
// named by its own path, and a flag documented in any of them counts as documented.
TEST(ReadmeChecker, AProblemInADocsFileIsReportedWithThatFilesName) {
  const std::vector<Doc> files = {{"README.md", "# hitcost\n`hitcost-load --url http://x:1`\n"},
                                  {"docs/hitcost-load.md",
                                   "# hitcost-load\n\n"                           // 1
                                   "| `--url` | required | base URL |\n"          // 3
                                   "| `--bogus` | | not an option |\n"            // 4
                                   "```sh\nhitcost-load --url U --nope\n```\n"},  // 6
                                  {"docs/hitcost-server.md", "# hitcost-server\n| `--port` | `8080` | port |\n"}};
  const auto source = fake_source({{"hitcost-load", {"--url"}},
                                   {"hitcost-load sweep", {}},
                                   {"hitcost-load report", {}},
                                   {"hitcost-load merge", {}},
                                   {"hitcost-load compare", {}},
                                   {"hitcost-server", {"--port", "--threads"}}});
  const auto c = check_commands(files, source);
  EXPECT_EQ(c.checked, 2 + 3);  // 2 commands (one per file); their flags --url, --url, --nope
  ASSERT_EQ(c.problems.size(), 1u) << listing(c.problems);
  EXPECT_TRUE(contains(c.problems, "docs/hitcost-load.md:6: `hitcost-load --url U --nope`: --nope is not an option"))
      << listing(c.problems);

  const auto s = check_inline_flags(files, source);
  ASSERT_EQ(s.findings.problems.size(), 1u) << listing(s.findings.problems);
  EXPECT_TRUE(contains(s.findings.problems,
                       "docs/hitcost-load.md:4: `--bogus`: --bogus is not an option of the program(s) this "
                       "section's heading names (hitcost-load)"))
      << listing(s.findings.problems);
  EXPECT_EQ(s.checked_by_program.at("hitcost-load"), 2);  // summed over the files
  EXPECT_EQ(s.checked_by_program.at("hitcost-server"), 1);

  // --port is documented in one file, --threads in none.
  const auto d = check_help_flags_documented(files, source, {{"hitcost-server", ""}}, {});
  EXPECT_EQ(d.checked, 2);
  ASSERT_EQ(d.problems.size(), 1u) << listing(d.problems);
  EXPECT_NE(d.problems[0].find("--threads (in `hitcost-server --help`) appears nowhere in README.md, "
                               "docs/hitcost-load.md, docs/hitcost-server.md"),
            std::string::npos)
      << listing(d.problems);
}

TEST(ReadmeChecker, HeadingAnchorsFollowGitHubsSlugs) {
  EXPECT_EQ(
      github_slug("5. Your own values: sample a live memcached, compare every strategy on them (`hitcost-corpus`)"),
      "5-your-own-values-sample-a-live-memcached-compare-every-strategy-on-them-hitcost-corpus");
  EXPECT_EQ(github_slug("4. PHP in the loop: your PHP hit next to the C++ floor (`scripts/php-compare.sh`)"),
            "4-php-in-the-loop-your-php-hit-next-to-the-c-floor-scriptsphp-comparesh");
  EXPECT_EQ(github_slug("Durability (mmap/pread `?sync=`) — a [link](x.md) and ×"),
            "durability-mmappread-sync--a-link-and-");
  EXPECT_EQ(github_slug("server µs/hit"), "server-µshit");
  EXPECT_EQ(heading_anchors("# A\n## Notes\n```\n# not a heading\n```\n### Notes\n"),
            (std::set<std::string>{"a", "notes", "notes-1"}));
}

TEST(ReadmeChecker, LinksLeadToFilesAndHeadingsThatExist) {
  const std::vector<Doc> files = {
      {"README.md",
       "# Top\n"
       "[a](docs/a.md) [b](docs/a.md#part-one) [c](docs/gone.md) [d](#top) [e](https://x.org/y)\n"  // 2
       "`[not](a-link.md)`\n"                                                                       // 3
       "```\n[in](code.md)\n```\n"},
      {"docs/a.md",
       "# A\n## Part one\n"
       "[up](../README.md#top) [bad](../README.md#nowhere) [s](../stores/README.md#x) [root](/README.md)\n"}};  // 3
  const std::set<std::string> existing = {"README.md", "docs/a.md", "stores/README.md"};
  const auto f = check_links(files, [&](const std::string& p) { return existing.count(p) > 0; });
  EXPECT_EQ(f.checked, 4 + 4);  // README: a, b, c, #top (not https:, inline code or code blocks); docs/a.md: 4
  ASSERT_EQ(f.problems.size(), 4u) << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "README.md:2: link `docs/gone.md`: docs/gone.md does not exist"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems,
                       "docs/a.md:3: link `../README.md#nowhere`: README.md has no heading whose anchor is #nowhere"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "docs/a.md:3: link `../stores/README.md#x`: its anchor cannot be checked"))
      << listing(f.problems);
  EXPECT_TRUE(contains(f.problems, "docs/a.md:3: link `/README.md`: not a path inside the repository"))
      << listing(f.problems);
}

TEST(ReadmeChecker, RunnableBlocksAreMarkedAndPointedAtTheTestBuild) {
  const std::string readme =
      "```sh\nnot marked\n```\n"
      "<!-- readme-test: run -->\n\n"
      "```console\n"
      "$ build/release/server/hitcost-server --port 8080 &\n"
      "listening on 127.0.0.1:8080\n"
      "$ build/release/client/hitcost-load --url http://127.0.0.1:8080 \\\n"
      "    -d 2s\n"
      "```\n";
  const auto blocks = runnable_blocks(readme, "/b", 4242);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].fence_line, 6);
  EXPECT_EQ(blocks[0].script,
            "/b/server/hitcost-server --port 4242 &\n"
            "/b/client/hitcost-load --url http://127.0.0.1:4242 \\\n"
            "    -d 2s\n");
}

// A journey's snippets chain (journey 5: memcached and a corpus from the first, the server on
// them in the second): a block marked as continuing runs in one script after the one before,
// and memcached's 11211 gets a port of its own as the server's 8080 does.
TEST(ReadmeChecker, ContinuingBlocksRunAfterTheBlockBeforeWithTheirOwnPorts) {
  const std::string readme =
      "<!-- readme-test: run -->\n"
      "```sh\nmemcached -p 11211 & mc=$!\n```\n"  // 2
      "Some prose between them.\n\n"
      "<!-- readme-test: run, continuing the block before -->\n"
      "```sh\nhitcost-server --port 8080 --store memcached:127.0.0.1:11211 & s=$!\nkill $s $mc\n```\n"  // 8
      "<!-- readme-test: run -->\n"
      "```sh\necho alone\n```\n";  // 13
  const auto blocks = runnable_blocks(readme, "/b", 4242, 5151);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].fence_line, 2);
  EXPECT_EQ(blocks[0].fence_lines, (std::vector<int>{2, 8}));
  EXPECT_EQ(blocks[0].script,
            "memcached -p 5151 & mc=$!\n"
            "hitcost-server --port 4242 --store memcached:127.0.0.1:5151 & s=$!\n"
            "kill $s $mc\n");
  EXPECT_EQ(blocks[1].fence_lines, (std::vector<int>{13}));
  EXPECT_EQ(blocks[1].script, "echo alone\n");
  // Without a memcached port, 11211 stays as written.
  EXPECT_EQ(runnable_blocks(readme, "/b", 4242)[0].script.find("11211"), 13u);
}

TEST(ReadmeChecker, HelpParsersTakeOptionNamesNotFlagsNamedInDescriptions) {
  const std::string cli11 =
      "Usage: x [OPTIONS] [SUBCOMMAND]\n\nOptions:\n"
      "  -h,--help                   Print this help message and exit\n"
      "  -c,--connections INT:INT in [1 - 100000]=16\n"
      "                              stop after N requests instead of --duration\n"
      "  --no-metrics{false}         Turn off\n\n"
      "Subcommands:\n  sweep                       compare\n  merge   combine\n\n";
  EXPECT_EQ(cli11_flags(cli11), (std::set<std::string>{"-h", "--help", "-c", "--connections", "--no-metrics"}));
  EXPECT_EQ(cli11_subcommands(cli11), (std::vector<std::string>{"sweep", "merge"}));
  EXPECT_EQ(loose_flags("  scripts/t.sh [--nodes 3] [--out-dir D]\n  -R <regex>, --tests-regex; x-ray -x86 1-2\n"),
            (std::set<std::string>{"--nodes", "--out-dir", "-R", "--tests-regex"}));
}

// What the runnable blocks and the scripts' --help are judged by (run_command in a session of
// its own): the exit status, a deadline, and the processes left in the session.
TEST(ReadmeSession, ReportsExitStatusOutputAndWhatWasLeftRunningThenKillsIt) {
  const auto r =
      hitcost::testing::run_command({"bash", "-c", "pwd; echo oops >&2; sleep 30 & exit 3"},
                                    {.timeout_ms = 10'000, .cwd = "/tmp", .own_session = true, .grace_ms = 300});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.out, "/tmp\n");
  EXPECT_EQ(r.err, "oops\n");
  ASSERT_EQ(r.left_running.size(), 1u);
  EXPECT_NE(r.left_running[0].cmdline.find("sleep 30"), std::string::npos) << r.left_running[0].cmdline;
  const pid_t left = r.left_running[0].pid;
  for (int i = 0; i < 100 && ::kill(left, 0) == 0 &&
                  slurp("/proc/" + std::to_string(left) + "/stat").find(") Z") == std::string::npos;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string stat = slurp("/proc/" + std::to_string(left) + "/stat");
  EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos) << "still alive: " << stat;
}

TEST(ReadmeSession, AProcessThatEndsWithinTheGraceIsNotLeftRunningAndADeadlineKillsTheGroup) {
  const auto quick = hitcost::testing::run_command(
      {"bash", "-c", "sleep 0.2 & exit 0"}, {.timeout_ms = 10'000, .cwd = "/", .own_session = true, .grace_ms = 2'000});
  EXPECT_EQ(quick.exit_code, 0);
  EXPECT_TRUE(quick.left_running.empty());
  // A group of two: bash waits for a child of its own (`bash -c "sleep 30"` alone would exec
  // sleep, a group of one, and killing the leader would pass for killing the group).
  const auto start = std::chrono::steady_clock::now();
  const auto slow =
      hitcost::testing::run_command({"bash", "-c", "sleep 30 & echo $!; wait"},
                                    {.timeout_ms = 500, .cwd = "/", .own_session = true, .grace_ms = 300});
  EXPECT_TRUE(slow.timed_out);
  EXPECT_EQ(slow.term_signal, SIGKILL);
  EXPECT_TRUE(slow.left_running.empty()) << "the deadline killed the leader only:\n"
                                         << hitcost::testing::describe(slow.left_running);
  const pid_t child = static_cast<pid_t>(std::atol(slow.out.c_str()));
  ASSERT_GT(child, 0) << slow.out;
  const std::string stat = slurp("/proc/" + std::to_string(child) + "/stat");
  EXPECT_TRUE(stat.empty() || stat.find(") Z") != std::string::npos) << "the child still runs: " << stat;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// signal_group: Ctrl-C in a terminal reaches the whole foreground group, not only the shell;
// had only bash been sent SIGTERM, its `sleep 30` would be left running.
TEST(ReadmeSession, AddedVariablesReachItAndASignalToItsGroupReachesWhatItStarted) {
  const auto r = hitcost::testing::run_command({"bash", "-c", "echo \"$HITCOST_PROBE\"; sleep 30 & wait"},
                                               {.timeout_ms = 10'000,
                                                .signal = SIGTERM,
                                                .signal_after_ms = 300,
                                                .signal_group = true,
                                                .env = {"HITCOST_PROBE=seen"},
                                                .own_session = true,
                                                .grace_ms = 2'000});
  EXPECT_EQ(r.out, "seen\n");
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_TRUE(r.left_running.empty()) << hitcost::testing::describe(r.left_running);
}

// --- the real README and programs ---------------------------------------------------------

const std::string kSource = HITCOST_SOURCE_DIR;

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

Help program_help(const std::vector<std::string>& argv, bool cli11) {
  Help h;
  const auto r = hitcost::testing::run_command(argv, {.timeout_ms = 30'000});
  if (r.exit_code != 0) {
    h.problem = "exit status " + std::to_string(r.exit_code) + ": " + first_line(r.err);
    return h;
  }
  h.ok = true;
  h.flags = cli11 ? cli11_flags(r.out) : loose_flags(r.out + r.err);
  return h;
}

// A script's --help must print its usage and stop: exit 0, quickly, nothing left running.
// One that does not handle --help is not run (it would start whatever it starts): it needs a
// -h|--help case of its own or scripts/lib.sh's value_options, which has one.
Help script_help(const std::string& script) {
  Help h;
  const std::string path = kSource + "/" + script;
  if (!std::filesystem::exists(path)) {
    h.problem = "no such file";
    return h;
  }
  const std::string text = slurp(path);
  if (text.find("--help)") == std::string::npos && text.find("--help|") == std::string::npos &&
      text.find("\nvalue_options ") == std::string::npos) {
    h.problem =
        "it handles no --help (not run: it would start); give it a -h|--help case that "
        "prints its usage and exits 0";
    return h;
  }
  const auto r = hitcost::testing::run_command(
      {"bash", path, "--help"}, {.timeout_ms = 15'000, .cwd = kSource, .own_session = true, .grace_ms = 2'000});
  const std::string said = r.out + r.err;
  std::string lowered = said;
  for (char& c : lowered) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (r.timed_out) {
    h.problem = "still running after 15 s (it started something instead of printing its usage)";
  } else if (r.exit_code != 0) {
    h.problem = "exit status " + std::to_string(r.exit_code) + ": " + first_line(r.err);
  } else if (!r.left_running.empty()) {
    h.problem = "left processes running: " + hitcost::testing::describe(r.left_running.front());
  } else if (lowered.find("usage") == std::string::npos && said.find(script) == std::string::npos) {
    h.problem = "printed no usage (neither \"usage\" nor its name)";
  } else {
    h.ok = true;
    h.flags = loose_flags(said);
  }
  return h;
}

std::string binary_path(const OurBinary& binary) { return std::string(HITCOST_BINARY_DIR) + "/" + binary.build_path; }

// A binary's subcommands from its --help, a nested one as its path: hitcost-corpus's "trace"
// becomes "trace import" and "trace show", each with a help of its own.
std::vector<std::string> subcommand_paths(const OurBinary& binary) {
  std::vector<std::string> paths;
  for (const auto& sub : cli11_subcommands(hitcost::testing::run_command({binary_path(binary), "--help"}).out)) {
    const auto nested = cli11_subcommands(hitcost::testing::run_command({binary_path(binary), sub, "--help"}).out);
    if (nested.empty()) paths.push_back(sub);
    for (const auto& n : nested) paths.push_back(sub + " " + n);
  }
  return paths;
}

HelpSource real_source() {
  HelpSource s;
  for (const auto& binary : our_binaries())
    if (binary.subcommands != Subcommands::none) s.subcommands[binary.name] = subcommand_paths(binary);
  s.help = [](const Target& t) {
    if (const OurBinary* binary = find_binary(t.program)) {
      std::vector<std::string> argv{binary_path(*binary)};
      // A nested subcommand's path is its words ("trace import").
      for (size_t at = 0; at < t.subcommand.size();) {
        const size_t space = std::min(t.subcommand.find(' ', at), t.subcommand.size());
        argv.push_back(t.subcommand.substr(at, space - at));
        at = space + 1;
      }
      argv.push_back("--help");
      return program_help(argv, true);
    }
    if (t.program == "ctest") return program_help({HITCOST_CTEST, "--help"}, false);
    return script_help(t.program);
  };
  s.script_exists = [](const std::string& script) { return std::filesystem::exists(kSource + "/" + script); };
  return s;
}

const std::string& readme_text() {
  static const std::string text = slurp(kSource + "/README.md");
  return text;
}

// The files checked like the README: README.md, then docs/*.md by name. Every program section
// has a file of its own there (docs/hitcost-server.md ...), whose headings name the program.
const std::vector<Doc>& docs() {
  static const std::vector<Doc> files = [] {
    std::vector<Doc> out{{"README.md", readme_text()}};
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(kSource + "/docs"))
      if (e.path().extension() == ".md") names.push_back("docs/" + e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names) out.push_back({n, slurp(kSource + "/" + n)});
    return out;
  }();
  return files;
}

std::string paths_of(const std::vector<Doc>& files) {
  std::vector<std::string> paths;
  for (const auto& d : files) paths.push_back(d.path);
  return join(paths, ", ");
}

// The table our_binaries() against the binaries: each is where it says, and has subcommands
// exactly when it says so (else every word after it would be taken for an unknown one, or a
// subcommand's options go unchecked).
TEST(Readme, OurBinariesAreBuiltWhereTheTableSaysAndHaveTheSubcommandsItSays) {
  const auto source = real_source();
  ASSERT_EQ(our_binaries().size(), 3u);
  for (const auto& binary : our_binaries()) {
    const auto r = hitcost::testing::run_command({binary_path(binary), "--help"}, {.timeout_ms = 30'000});
    ASSERT_EQ(r.exit_code, 0) << binary_path(binary) << " --help: " << r.err;
    const auto subs = cli11_subcommands(r.out);
    if (binary.subcommands == Subcommands::none) {
      EXPECT_TRUE(subs.empty()) << binary.name << " now has subcommands (" << join(subs)
                                << "): say so in our_binaries()";
    } else {
      EXPECT_GE(subs.size(), 2u) << "parsed from `" << binary.name << " --help`'s \"Subcommands:\" list";
      // The paths' first words are the top level's subcommands, in its order.
      std::vector<std::string> tops;
      for (const auto& path : source.subcommands.at(binary.name)) {
        const std::string top = path.substr(0, path.find(' '));
        if (tops.empty() || tops.back() != top) tops.push_back(top);
      }
      EXPECT_EQ(tops, subs);
    }
  }
  EXPECT_GE(source.subcommands.at("hitcost-load").size(), 4u);
  EXPECT_EQ(source.subcommands.at("hitcost-corpus"),
            (std::vector<std::string>{"sample", "compare", "recommend", "redact", "show", "record", "trace import",
                                      "trace show"}));
}

// run.sh and test.sh have no --help of their own: their arguments go on (run.sh to
// `hitcost-load sweep`, test.sh to ctest), which is what the checker assumes.
TEST(Readme, RunShAndTestShPassTheirArgumentsOn) {
  const std::string run = slurp(kSource + "/run.sh");
  const std::string test = slurp(kSource + "/test.sh");
  const auto sweep = run.find("hitcost-load sweep");
  ASSERT_NE(sweep, std::string::npos) << "run.sh no longer runs `hitcost-load sweep`: update the checker";
  EXPECT_NE(run.find("\"$@\"", sweep), std::string::npos) << "run.sh no longer passes \"$@\" to the sweep";
  const auto ctest = test.find("ctest --test-dir");
  ASSERT_NE(ctest, std::string::npos) << "test.sh no longer runs ctest: update the checker";
  EXPECT_NE(test.find("\"$@\"", ctest), std::string::npos) << "test.sh no longer passes \"$@\" to ctest";
}

// The files the real tests walk: the README and a doc per program at least.
TEST(Readme, TheDocsFolderHoldsADocPerProgram) {
  EXPECT_GE(docs().size(), 4u) << paths_of(docs());
  for (const auto& binary : our_binaries()) {
    const std::string path = "docs/" + binary.name + ".md";
    EXPECT_TRUE(std::any_of(docs().begin(), docs().end(), [&](const Doc& d) { return d.path == path; }))
        << path << " is missing: each program's reference is a doc of its own (" << paths_of(docs()) << ")";
  }
}

TEST(Readme, EveryCommandAndFlagItShowsExistsInTheProgramsHelp) {
  const auto f = check_commands(docs(), real_source());
  EXPECT_GE(f.checked, 180) << "commands + flags checked over " << paths_of(docs())
                            << ": too few, the parse found almost nothing";
  EXPECT_GE(check_commands(readme_text(), real_source()).checked, 15) << "README.md's own commands: too few";
  EXPECT_TRUE(f.problems.empty()) << listing(f.problems);
  std::printf("README and docs (%zu files): %d commands and flags checked against the programs' --help, %zu problems\n",
              docs().size(), f.checked, f.problems.size());  // the summary a CI log shows; the assertions above decide
}

TEST(Readme, EveryFlagInItsSectionsAndProseExistsInTheProgramsHelp) {
  const auto s = check_inline_flags(docs(), real_source());
  const auto count = [&](const std::string& p) {
    const auto it = s.checked_by_program.find(p);
    return it == s.checked_by_program.end() ? 0 : it->second;
  };
  EXPECT_GE(count("hitcost-server"), 30)
      << "flags checked under a heading naming hitcost-server: its option table was not found";
  EXPECT_GE(count("hitcost-load"), 80)
      << "flags checked under a heading naming hitcost-load: its option tables were not found";
  EXPECT_GE(count("hitcost-corpus"), 25)
      << "flags checked under a heading naming hitcost-corpus: its option tables were not found";
  EXPECT_TRUE(s.findings.problems.empty()) << listing(s.findings.problems);
  std::printf(
      "README and docs: inline flags checked: %d under hitcost-server, %d under hitcost-load, %d under hitcost-corpus, "
      "%zu problems\n",
      count("hitcost-server"), count("hitcost-load"), count("hitcost-corpus"), s.findings.problems.size());
}

TEST(Readme, EveryOptionOfEverySubcommandOfOurBinariesIsDocumented) {
  const auto source = real_source();
  const auto targets = binary_targets(source);
  for (const auto& binary : our_binaries())
    EXPECT_TRUE(std::any_of(targets.begin(), targets.end(), [&](const Target& t) { return t.program == binary.name; }))
        << binary.name << ": none of its helps is looked at";
  const auto f = check_help_flags_documented(docs(), source, targets, kUndocumentedOnPurpose);
  EXPECT_GE(f.checked, 150) << "options read from the programs' --help: too few";
  EXPECT_TRUE(f.problems.empty()) << listing(f.problems);
  std::printf("README and docs: %d options of the programs' --help looked up in them, %zu undocumented\n", f.checked,
              f.problems.size());
}

TEST(Readme, ExitCodeTableIsExitCodeHeaders) {
  const std::string header = slurp(kSource + "/report/exit_code.h");
  const auto f = check_exit_codes(readme_text(), header);
  EXPECT_GE(f.checked, 12) << "table rows + codes of report/exit_code.h (6 each)";
  EXPECT_TRUE(f.problems.empty()) << listing(f.problems);
  std::printf("README: exit-code table against report/exit_code.h: %d items, %zu problems\n", f.checked,
              f.problems.size());
}

// The links of README.md and docs/*.md, and of the folders' own README.md files (stores/,
// php/, ...: their anchors are linked to), lead to files and headings that exist.
TEST(Readme, EveryRelativeLinkLeadsToAFileAndHeadingThatExist) {
  std::vector<Doc> files = docs();
  for (const auto& e : std::filesystem::directory_iterator(kSource)) {
    const std::string readme = e.path().filename().string() + "/README.md";
    if (e.is_directory() && e.path().filename().string()[0] != '.' && std::filesystem::exists(kSource + "/" + readme))
      files.push_back({readme, slurp(kSource + "/" + readme)});
  }
  const auto f =
      check_links(files, [](const std::string& path) { return std::filesystem::exists(kSource + "/" + path); });
  EXPECT_GE(f.checked, 50) << "links followed in " << paths_of(files) << ": too few";
  EXPECT_TRUE(f.problems.empty()) << listing(f.problems);
  std::printf("README, docs and folder READMEs (%zu files): %d relative links followed, %zu problems\n", files.size(),
              f.checked, f.problems.size());
}

}  // namespace
}  // namespace hitcost::readme
