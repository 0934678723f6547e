#pragma once
// README.md and docs/*.md checked against what the programs' --help says: the commands and
// --flags they show, the flags each section documents, the options none of them mentions,
// README's exit-code table, and that their relative links lead somewhere.
// Pure text in, problems out (each "FILE:LINE: ..."): the help texts come from a HelpSource (the real programs in
// readme_test.cpp, fixed texts in the checker's own tests), so each rule can be shown to fail.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/readme/readme_parse.h"

namespace hitcost::readme {

// Whose --help a flag is checked against.
struct Target {
  std::string program;     // a name of our_binaries(), "ctest", "scripts/topology.sh"
  std::string subcommand;  // "" is the program itself (a plain run), else "sweep", "sample", ...
  auto operator<=>(const Target&) const = default;
  std::string name() const;  // "hitcost-load sweep"
};

struct Help {
  bool ok = false;
  std::string problem;          // when !ok: why there is no usable help (missing, exit status)
  std::set<std::string> flags;  // "--url", "-c"; --help and -h included when printed
};

struct HelpSource {
  std::function<Help(const Target&)> help;
  std::function<bool(const std::string& script)> script_exists;  // "scripts/x.sh"
  // Per binary of our_binaries() with subcommands, its "Subcommands:" list from `NAME --help`.
  std::map<std::string, std::vector<std::string>> subcommands;
};

// Every help of our binaries: each one's own (but not a Subcommands::required one's, which
// holds only --help) and each of its subcommands'.
std::vector<Target> binary_targets(const HelpSource& source);
std::vector<Target> binary_targets(const HelpSource& source, const OurBinary& binary);

// What a check looked at and what it found wrong ("FILE:LINE: ...", one per problem).
struct Findings {
  int checked = 0;
  std::vector<std::string> problems;
};

// --- checks ------------------------------------------------------------------------------

// 1. Every --flag (and -x) of every command of ours exists in the help of what it reaches;
//    a subcommand the binary does not have is a problem, and so is a Subcommands::required
//    binary given options but no subcommand (its flags are then not checked: they reach no
//    subcommand); scripts used with flags or in code blocks must answer --help (checked by
//    the HelpSource).
// `file` names the text in the problems.
Findings check_commands(const std::string& readme, const HelpSource& source, const std::string& file = "README.md");
Findings check_commands(const std::vector<Doc>& docs, const HelpSource& source);  // summed over the files

// 2. Every --flag in inline code exists: under a heading that names programs of ours (or
//    whose parent heading does), in one of theirs or in the command of ours shown in inline
//    code before it in the same paragraph, list item or table row; under other headings, in
//    any program of ours. After inline code of another program (`perf record -g`,
//    `hitcost-bench`) the item's flags are that program's and not checked. Inline code that
//    starts with a subcommand of a binary the heading names (`compare FILE --cpu 1` under
//    hitcost-corpus) is a command of that subcommand: its flags are checked against it alone.
//    checked_by_program counts, per program named in a heading, the flags checked there.
struct SectionFindings {
  Findings findings;
  std::map<std::string, int> checked_by_program;
};
SectionFindings check_inline_flags(const std::string& readme, const HelpSource& source,
                                   const std::string& file = "README.md");
SectionFindings check_inline_flags(const std::vector<Doc>& docs, const HelpSource& source);  // summed

// 3. Every flag the targets' --help prints appears in one of the files (-h/--help and
//    `allowed` excepted). The real files' targets are binary_targets(source).
Findings check_help_flags_documented(const std::vector<Doc>& docs, const HelpSource& source,
                                     const std::vector<Target>& targets, const std::set<std::string>& allowed);
Findings check_help_flags_documented(const std::string& readme, const HelpSource& source,
                                     const std::vector<Target>& targets, const std::set<std::string>& allowed);

// 5. The codes of the table under the heading with "Exit codes" are exactly the kExit* = N
//    values of report/exit_code.h (text given).
Findings check_exit_codes(const std::string& readme, const std::string& exit_code_header,
                          const std::string& file = "README.md");

// 6. Every relative link `[text](path)`, `(path#anchor)` or `(#anchor)` outside code leads to a
//    file that exists (resolved from the linking file's folder) and, with an anchor, to a
//    heading of that file by GitHub's slug rules; the target must then be one of `docs`.
//    Links with a scheme (https:, mailto:) are not followed.
Findings check_links(const std::vector<Doc>& docs, const std::function<bool(const std::string& path)>& exists);
// GitHub's anchor of a heading's text: lower case, punctuation dropped (letters, digits, _ and
// - kept, non-ASCII letters too), spaces to -. "5. Your own values (`x`)" -> "5-your-own-values-x".
std::string github_slug(const std::string& heading_text);
// Every anchor of a markdown text, a repeated slug getting -1, -2, ... as GitHub gives them.
std::set<std::string> heading_anchors(const std::string& text);

}  // namespace hitcost::readme
