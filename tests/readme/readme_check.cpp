#include "tests/readme/readme_check.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <regex>

namespace hitcost::readme {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool bare_word(const std::string& w) {
  static const std::regex re("^[a-z][a-z0-9_-]*$");
  return std::regex_match(w, re);
}

std::string line_ref(const std::string& file, int line) { return file + ":" + std::to_string(line) + ": "; }

std::string command_text(const OurCommand& c) {
  std::string text = join({c.program, join(c.args)});
  if (c.args.empty()) text = c.program;
  if (text.size() > 90) text = text.substr(0, 87) + "...";
  return text;
}

// The help texts, each asked once however many flags it answers for.
class HelpCache {
 public:
  explicit HelpCache(const HelpSource& source) : source_(source) {}
  const Help& get(const Target& t) {
    auto it = cache_.find(t);
    if (it == cache_.end()) it = cache_.emplace(t, source_.help(t)).first;
    return it->second;
  }
  const HelpSource& source() const { return source_; }
  const std::vector<std::string>& subcommands_of(const std::string& program) const {
    static const std::vector<std::string> none;
    const auto it = source_.subcommands.find(program);
    return it == source_.subcommands.end() ? none : it->second;
  }
  // `w` is a subcommand, or the first word of a nested one's path ("trace" of "trace show").
  bool known_subcommand(const std::string& program, const std::string& w) const {
    const auto& subs = subcommands_of(program);
    return std::any_of(subs.begin(), subs.end(),
                       [&](const std::string& s) { return s == w || starts_with(s, w + " "); });
  }
  bool is_subcommand_path(const std::string& program, const std::string& path) const {
    const auto& subs = subcommands_of(program);
    return std::find(subs.begin(), subs.end(), path) != subs.end();
  }

 private:
  const HelpSource& source_;
  std::map<Target, Help> cache_;
};

// Whose help a program's own options are checked against: run.sh hands its arguments to
// `hitcost-load sweep` (run.sh's last command), test.sh to ctest.
// A binary's command reaches the first of its words that is one of its subcommands, else the
// binary itself.
Target base_target(const OurCommand& c, const HelpCache& helps) {
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (i + 1 < c.args.size() && helps.is_subcommand_path(c.program, c.args[i] + " " + c.args[i + 1]))
      return {c.program, c.args[i] + " " + c.args[i + 1]};
    if (helps.is_subcommand_path(c.program, c.args[i])) return {c.program, c.args[i]};
  }
  if (c.program == "run.sh") return {"hitcost-load", "sweep"};
  if (c.program == "test.sh") return {"ctest", ""};
  return {c.program, ""};
}

// What a program named in inline code or a heading stands for when its flags are looked up.
std::vector<Target> targets_of_program(const std::string& program, const HelpCache& helps) {
  if (const OurBinary* binary = find_binary(program)) return binary_targets(helps.source(), *binary);
  if (program == "run.sh") return {{"hitcost-load", "sweep"}};
  if (program == "test.sh") return {{"ctest", ""}};
  return {{program, ""}};
}

std::string names_of(const std::vector<Target>& targets) {
  std::vector<std::string> names;
  for (const auto& t : targets) names.push_back("`" + t.name() + " --help`");
  return join(names, ", ");
}

struct FlagUse {
  std::string flag;
  Target target;
};

// The options a command passes, each with the program that receives it.
// scripts/php-compare.sh hands what follows `--` to hitcost-load sweep; after `--` elsewhere
// the words are positional, not options.
std::vector<FlagUse> flag_uses(const OurCommand& c, const HelpCache& helps) {
  const Target base = base_target(c, helps);
  const bool passes_on = c.program == "scripts/php-compare.sh";
  std::vector<FlagUse> uses;
  bool after_separator = false;
  for (const auto& arg : c.args) {
    const std::string word = strip_brackets(arg);
    if (word == "--") {
      after_separator = true;
      continue;
    }
    const std::string flag = flag_of(word);
    if (flag.empty()) continue;
    if (!after_separator) {
      uses.push_back({flag, base});
    } else if (passes_on) {
      uses.push_back({flag, {"hitcost-load", "sweep"}});
    }
  }
  return uses;
}

// `hitcost-bench`, `bench/anchor_nginx.sh`: programs of this repository the checker does not
// know the options of; flags after them in the same item are theirs.
bool other_program_of_ours(const std::string& word) {
  if (!our_program(word).empty()) return false;
  const std::string base = word.substr(word.find_last_of('/') == std::string::npos ? 0 : word.find_last_of('/') + 1);
  return starts_with(base, "hitcost-") || (base.size() > 3 && base.substr(base.size() - 3) == ".sh");
}

std::vector<std::string> programs_in_heading(const std::string& heading) {
  std::vector<std::string> programs;
  for (auto word : span_words(heading)) {
    const auto strip = [](char c) { return c == '`' || c == '(' || c == ')' || c == ',' || c == ':' || c == '*'; };
    while (!word.empty() && strip(word.front())) word.erase(word.begin());
    while (!word.empty() && strip(word.back())) word.pop_back();
    const std::string p = our_program(word);
    if (!p.empty() && std::find(programs.begin(), programs.end(), p) == programs.end()) programs.push_back(p);
  }
  return programs;
}

// Inline code that starts with a subcommand of a binary the section's heading names:
// `compare FILE --cpu 1` under hitcost-corpus. {"", ""} when it does not.
// A nested one's path is its first two words (`trace show FILE`).
Target section_subcommand(const std::vector<std::string>& words, const std::vector<std::string>& section_programs,
                          const HelpCache& helps) {
  for (const auto& p : section_programs) {
    if (!find_binary(p)) continue;
    if (words.size() >= 2 && helps.is_subcommand_path(p, words[0] + " " + words[1]))
      return {p, words[0] + " " + words[1]};
    if (helps.is_subcommand_path(p, words[0])) return {p, words[0]};
  }
  return {};
}

bool asks_help(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

}  // namespace

std::vector<Target> binary_targets(const HelpSource& source, const OurBinary& binary) {
  std::vector<Target> targets;
  const auto it = source.subcommands.find(binary.name);
  const bool listed = it != source.subcommands.end() && !it->second.empty();
  // A required-subcommand binary's own help is only --help; it stands in when its
  // subcommands are unknown, so that its unreadable help is what gets reported.
  if (binary.subcommands != Subcommands::required || !listed) targets.push_back({binary.name, ""});
  if (binary.subcommands != Subcommands::none && listed)
    for (const auto& sub : it->second) targets.push_back({binary.name, sub});
  return targets;
}

std::vector<Target> binary_targets(const HelpSource& source) {
  std::vector<Target> targets;
  for (const auto& binary : our_binaries())
    for (const auto& t : binary_targets(source, binary)) targets.push_back(t);
  return targets;
}

std::string Target::name() const { return subcommand.empty() ? program : program + " " + subcommand; }

Findings check_commands(const std::string& readme, const HelpSource& source, const std::string& file) {
  Findings f;
  HelpCache helps(source);
  std::set<std::pair<int, std::string>> reported;  // one "cannot check" per line and program
  for (const auto& c : our_commands(readme)) {
    ++f.checked;
    const std::string at = line_ref(file, c.line) + "`" + command_text(c) + "`: ";
    // Whether its flags reach a help they can be checked against.
    bool reaches_help = true;
    if (const OurBinary* b = find_binary(c.program); b && b->subcommands != Subcommands::none) {
      const std::string subs = join(helps.subcommands_of(c.program), ", ");
      const bool required = b->subcommands == Subcommands::required;
      if (!c.args.empty() && bare_word(c.args[0]) && !helps.known_subcommand(c.program, c.args[0])) {
        f.problems.push_back(at + c.program + " has no subcommand '" + c.args[0] + "' (it has: " + subs +
                             (required ? ")" : "; none for a plain run `" + c.program + " [OPTIONS]`)"));
        reaches_help = !required;
      } else if (required && base_target(c, helps).subcommand.empty() && !asks_help(c.args) &&
                 (c.in_code_block || !c.args.empty())) {
        // Bare in prose (`hitcost-corpus` answers...) it is named, not run.
        f.problems.push_back(at + c.program + " needs a subcommand first (one of: " + subs + ")");
        reaches_help = false;
      }
    }
    const auto uses = reaches_help ? flag_uses(c, helps) : std::vector<FlagUse>{};
    const bool script = starts_with(c.program, "scripts/");
    if (script && (c.in_code_block || !uses.empty())) {
      // A script shown to be run must say how with --help (and exist).
      const Help& h = helps.get({c.program, ""});
      if (!h.ok && reported.insert({c.line, c.program}).second)
        f.problems.push_back(at + c.program + " --help: " + h.problem);
    } else if (script && !source.script_exists(c.program)) {
      f.problems.push_back(at + c.program + " does not exist");
    }
    for (const auto& use : uses) {
      ++f.checked;
      if (use.flag == "--help" || use.flag == "-h") continue;
      const Help& h = helps.get(use.target);
      if (!h.ok) {
        if (reported.insert({c.line, use.target.name()}).second)
          f.problems.push_back(at + "cannot check its options: `" + use.target.name() + " --help`: " + h.problem);
        continue;
      }
      if (h.flags.count(use.flag)) continue;
      std::string via;
      if (c.program == "run.sh") via = " (run.sh passes its arguments to `hitcost-load sweep`)";
      if (c.program == "test.sh") via = " (test.sh passes its arguments to ctest)";
      if (c.program != use.target.program && starts_with(c.program, "scripts/"))
        via = " (" + c.program + " passes what follows `--` to `" + use.target.name() + "`)";
      f.problems.push_back(at + use.flag + " is not an option of `" + use.target.name() + "`" + via + ": not in `" +
                           use.target.name() + " --help`");
    }
  }
  return f;
}

SectionFindings check_inline_flags(const std::string& readme, const HelpSource& source, const std::string& file) {
  SectionFindings out;
  HelpCache helps(source);
  const auto lines = lines_of(readme);
  const auto blocks = code_blocks(lines);
  const auto in_code = lines_in_code(lines, blocks);

  // Every program of ours: where a section names none, a flag must be one of theirs.
  std::vector<Target> everything = binary_targets(source);
  for (const auto& c : our_commands(readme)) {
    if (!starts_with(c.program, "scripts/")) continue;
    if (!c.in_code_block && flag_uses(c, helps).empty()) continue;  // mentioned, not shown run
    const Target t{c.program, ""};
    if (std::find(everything.begin(), everything.end(), t) == everything.end()) everything.push_back(t);
  }

  struct Section {
    int level;
    std::vector<std::string> programs;
  };
  std::vector<Section> sections;
  enum class Context { none, ours, foreign } context = Context::none;
  std::vector<Target> context_targets;
  std::set<std::string> reported;
  std::map<std::string, std::pair<int, int>> unchecked;  // why -> first line, flags

  // One flag of inline code against the helps it may belong to.
  auto check_flag = [&](const std::string& flag, int line_number, const std::string& span,
                        const std::vector<std::string>& section_programs, const std::vector<Target>& candidates,
                        const std::string& whose) {
    ++out.findings.checked;
    for (const auto& p : section_programs) ++out.checked_by_program[p];
    if (flag == "--help" || flag == "-h") return;
    bool found = false;
    std::vector<std::string> unreadable;
    for (const auto& target : candidates) {
      const Help& h = helps.get(target);
      if (!h.ok) unreadable.push_back("`" + target.name() + " --help`: " + h.problem);
      if (h.ok && h.flags.count(flag)) found = true;
    }
    if (found) return;
    if (unreadable.size() == candidates.size()) {  // nothing to check against: said once below
      auto& [first_line, count] = unchecked[join(unreadable, "; ")];
      if (count++ == 0) first_line = line_number;
      return;
    }
    std::string message = line_ref(file, line_number) + "`" + span + "`: " + flag + " is not an option of " + whose +
                          ": not in " + names_of(candidates);
    if (!unreadable.empty()) message += " (unreadable: " + join(unreadable, "; ") + ")";
    if (reported.insert(message).second) out.findings.problems.push_back(message);
  };

  for (const auto& line : lines) {
    if (in_code[size_t(line.number)]) {
      context = Context::none;
      continue;
    }
    const std::string t = trim(line.text);
    static const std::regex item_start(R"(^\s*([-*+]|\d+\.)\s)");
    if (t.empty() || t[0] == '|' || t[0] == '#' || std::regex_search(line.text, item_start))
      context = Context::none;  // a new paragraph, list item or table row
    if (const int level = heading_level(t); level > 0) {
      while (!sections.empty() && sections.back().level >= level) sections.pop_back();
      auto programs = programs_in_heading(t);
      if (programs.empty() && !sections.empty()) programs = sections.back().programs;
      sections.push_back({level, programs});
      continue;
    }
    const std::vector<std::string> section_programs =
        sections.empty() ? std::vector<std::string>{} : sections.back().programs;

    for (const auto& span : inline_spans(line.text)) {
      auto words = span_words(span);
      words.erase(words.begin(),
                  std::find_if(words.begin(), words.end(), [](const std::string& w) { return !is_assignment(w); }));
      if (words.empty()) continue;
      OurCommand c;
      if (to_our_command(words, line.number, c)) {
        // Its own flags are check_commands' business; it names whose flags follow.
        context = Context::ours;
        const Target base = base_target(c, helps);
        // A binary named bare (`hitcost-corpus`) stands for all of its subcommands.
        const bool bare_binary = find_binary(c.program) && c.args.empty();
        context_targets = bare_binary ? targets_of_program(c.program, helps) : std::vector<Target>{base};
        continue;
      }
      if (const Target sub = section_subcommand(words, section_programs, helps); !sub.program.empty()) {
        // `compare FILE --cpu 1` under hitcost-corpus: that subcommand's flags, and it names
        // whose flags follow in the item.
        context = Context::ours;
        context_targets = {sub};
        for (size_t i = 1; i < words.size() && words[i] != "--"; ++i) {
          const std::string flag = flag_of(strip_brackets(words[i]));
          if (!flag.empty())
            check_flag(flag, line.number, span, section_programs, {sub},
                       "`" + sub.name() + "` (the inline code starts with that subcommand)");
        }
        continue;
      }
      if (flag_of(strip_brackets(words.front())).empty()) {
        if (words.size() >= 2 || other_program_of_ours(words.front()))
          context = Context::foreign;  // `perf record -g`, `hitcost-bench`: their flags, not ours
        continue;
      }
      for (size_t i = 0; i < words.size(); ++i) {
        const std::string flag = flag_of(strip_brackets(words[i]));
        if (flag.empty() || (flag.size() == 2 && i > 0)) continue;  // a -x later is a value's
        if (context == Context::foreign) continue;
        // The section's programs (all of ours where the heading names none), and the
        // command of ours shown before it in the same item.
        std::vector<Target> candidates;
        std::string whose;
        if (!section_programs.empty()) {
          for (const auto& p : section_programs)
            for (const auto& target : targets_of_program(p, helps)) candidates.push_back(target);
          whose = "the program(s) this section's heading names (" + join(section_programs, ", ") + ")";
        } else {
          candidates = everything;
          whose = "any program of ours";
        }
        if (context == Context::ours) {
          for (const auto& target : context_targets)
            if (std::find(candidates.begin(), candidates.end(), target) == candidates.end())
              candidates.push_back(target);
          whose += " or of the command before it in this paragraph, item or row";
        }
        check_flag(flag, line.number, span, section_programs, candidates, whose);
      }
    }
  }
  for (const auto& [why, where] : unchecked)
    out.findings.problems.push_back(line_ref(file, where.first) + "this flag and " + std::to_string(where.second - 1) +
                                    " more below it could not be checked: " + why);
  return out;
}

Findings check_help_flags_documented(const std::vector<Doc>& docs, const HelpSource& source,
                                     const std::vector<Target>& targets, const std::set<std::string>& allowed) {
  Findings f;
  HelpCache helps(source);
  auto mentioned_in = [](const std::string& text, const std::string& flag) {
    for (size_t at = text.find(flag); at != std::string::npos; at = text.find(flag, at + 1)) {
      const bool clean_before = at == 0 || !(option_name_char(text[at - 1]) || text[at - 1] == '-');
      const size_t end = at + flag.size();
      const bool clean_after = end >= text.size() || !option_name_char(text[end]);
      if (clean_before && clean_after) return true;
    }
    return false;
  };
  auto mentioned = [&](const std::string& flag) {
    return std::any_of(docs.begin(), docs.end(), [&](const Doc& d) { return mentioned_in(d.text, flag); });
  };
  std::vector<std::string> paths;
  for (const auto& d : docs) paths.push_back(d.path);
  const std::string where = paths.empty() ? "no file" : join(paths, ", ");
  std::map<std::string, std::vector<std::string>> missing;  // flag -> whose help has it
  for (const auto& target : targets) {
    const Help& h = helps.get(target);
    if (!h.ok) {
      f.problems.push_back("`" + target.name() + " --help`: " + h.problem);
      continue;
    }
    for (const auto& flag : h.flags) {
      if (flag == "--help" || flag == "-h" || allowed.count(flag)) continue;
      ++f.checked;
      if (!mentioned(flag)) missing[flag].push_back("`" + target.name() + " --help`");
    }
  }
  for (const auto& [flag, whose] : missing)
    f.problems.push_back(flag + " (in " + join(whose, ", ") + ") appears nowhere in " + where +
                         ": document it, or allow-list it in tests/readme/readme_test.cpp with the reason");
  return f;
}

Findings check_help_flags_documented(const std::string& readme, const HelpSource& source,
                                     const std::vector<Target>& targets, const std::set<std::string>& allowed) {
  return check_help_flags_documented(std::vector<Doc>{{"README.md", readme}}, source, targets, allowed);
}

Findings check_commands(const std::vector<Doc>& docs, const HelpSource& source) {
  Findings all;
  for (const auto& d : docs) {
    Findings f = check_commands(d.text, source, d.path);
    all.checked += f.checked;
    all.problems.insert(all.problems.end(), f.problems.begin(), f.problems.end());
  }
  return all;
}

SectionFindings check_inline_flags(const std::vector<Doc>& docs, const HelpSource& source) {
  SectionFindings all;
  for (const auto& d : docs) {
    SectionFindings s = check_inline_flags(d.text, source, d.path);
    all.findings.checked += s.findings.checked;
    all.findings.problems.insert(all.findings.problems.end(), s.findings.problems.begin(), s.findings.problems.end());
    for (const auto& [program, n] : s.checked_by_program) all.checked_by_program[program] += n;
  }
  return all;
}

Findings check_exit_codes(const std::string& readme, const std::string& exit_code_header, const std::string& file) {
  Findings f;
  std::map<int, std::string> defined;  // code -> kExit name
  static const std::regex def(R"((kExit\w*)\s*=\s*(\d+))");
  for (std::sregex_iterator it(exit_code_header.begin(), exit_code_header.end(), def), end; it != end; ++it)
    defined[std::stoi((*it)[2].str())] = (*it)[1].str();
  if (defined.empty()) {
    f.problems.push_back("report/exit_code.h: no `kExit... = N` found");
    return f;
  }
  std::string codes;
  for (const auto& [code, name] : defined) codes += (codes.empty() ? "" : ", ") + std::to_string(code);

  const auto lines = lines_of(readme);
  int heading_line = 0, level = 0;
  std::map<int, int> table;  // code -> README line
  for (const auto& line : lines) {
    const int l = heading_level(trim(line.text));
    if (heading_line == 0) {
      if (l > 0 && lower(line.text).find("exit code") != std::string::npos) {
        heading_line = line.number;
        level = l;
      }
      continue;
    }
    if (l > 0 && l <= level) break;
    const std::string t = trim(line.text);
    if (t.empty() || t[0] != '|') continue;
    std::string cell = trim(t.substr(1, t.find('|', 1) == std::string::npos ? std::string::npos : t.find('|', 1) - 1));
    cell.erase(std::remove(cell.begin(), cell.end(), '`'), cell.end());
    if (cell.empty() || !std::all_of(cell.begin(), cell.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;  // header, ---
    const int code = std::stoi(cell);
    ++f.checked;
    if (table.count(code)) {
      f.problems.push_back(line_ref(file, line.number) + "exit code " + cell + " is listed twice (also line " +
                           std::to_string(table[code]) + ")");
      continue;
    }
    table[code] = line.number;
    if (!defined.count(code))
      f.problems.push_back(line_ref(file, line.number) + "exit code " + cell + " is not one of report/exit_code.h's (" +
                           codes + ")");
  }
  if (heading_line == 0) {
    f.problems.push_back(file + ": no heading with \"Exit codes\": the table of exit codes (" + codes + ") is missing");
    return f;
  }
  if (table.empty())
    f.problems.push_back(line_ref(file, heading_line) + "the Exit codes section has no rows like `| 0 | ... |`");
  for (const auto& [code, name] : defined) {
    ++f.checked;
    if (!table.count(code))
      f.problems.push_back(line_ref(file, heading_line) + "exit code " + std::to_string(code) + " (" + name +
                           " in report/exit_code.h) is missing from the table");
  }
  return f;
}

namespace {

// The line with its inline code blanked out: a `](x)` inside backticks is text, not a link.
std::string without_inline_code(const std::string& line) {
  std::string out = line;
  size_t i = 0;
  while (i < out.size()) {
    if (out[i] != '`') {
      ++i;
      continue;
    }
    size_t run = 0;
    while (i + run < out.size() && out[i + run] == '`') ++run;
    const size_t close = out.find(std::string(run, '`'), i + run);
    if (close == std::string::npos) break;
    for (size_t k = i; k < close + run; ++k) out[k] = ' ';
    i = close + run;
  }
  return out;
}

// "docs/../stores/README.md" -> "stores/README.md"; "" when it leaves the source root.
std::string normalized(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string part = path.substr(start, end - start);
    if (part == "..") {
      if (parts.empty()) return "";
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = end + 1;
  }
  return join(parts, "/");
}

// U+2000..U+2BFF (dashes, quotes, arrows, maths, boxes), U+3000..U+303F, U+00A1..U+00BF but µ,
// × and ÷: the symbols and punctuation our headings could hold, which GitHub drops.
bool dropped_code_point(uint32_t c) {
  if (c >= 0xA0 && c <= 0xBF) return c != 0xB5;
  return c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F);
}

}  // namespace

std::string github_slug(const std::string& heading_text) {
  // What the heading renders to: link text without its target, no backticks or emphasis.
  static const std::regex link(R"(\[([^\]]*)\]\([^)]*\))");
  const std::string text = std::regex_replace(heading_text, link, "$1");
  std::string slug;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (std::isalnum(c) || c == '_' || c == '-') slug += char(std::tolower(c));
      if (c == ' ') slug += '-';
      ++i;
      continue;
    }
    const size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (size_t k = 1; k < n && i + k < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (!dropped_code_point(cp)) slug += text.substr(i, n);  // a letter: kept as written
    i += n;
  }
  return slug;
}

std::set<std::string> heading_anchors(const std::string& text) {
  const auto lines = lines_of(text);
  const auto in_code = lines_in_code(lines, code_blocks(lines));
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  for (const auto& line : lines) {
    const std::string t = trim(line.text);
    const int level = heading_level(t);
    if (in_code[size_t(line.number)] || level == 0) continue;
    const std::string slug = github_slug(trim(t.substr(size_t(level))));
    const int n = seen[slug]++;
    anchors.insert(n == 0 ? slug : slug + "-" + std::to_string(n));
  }
  return anchors;
}

Findings check_links(const std::vector<Doc>& docs, const std::function<bool(const std::string& path)>& exists) {
  Findings f;
  std::map<std::string, std::set<std::string>> anchors;  // path -> its headings' anchors
  for (const auto& d : docs) anchors[d.path] = heading_anchors(d.text);
  for (const auto& d : docs) {
    const auto lines = lines_of(d.text);
    const auto in_code = lines_in_code(lines, code_blocks(lines));
    const size_t slash = d.path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "" : d.path.substr(0, slash + 1);
    for (const auto& line : lines) {
      if (in_code[size_t(line.number)]) continue;
      const std::string text = without_inline_code(line.text);
      for (size_t at = text.find("]("); at != std::string::npos; at = text.find("](", at + 2)) {
        const size_t close = text.find(')', at + 2);
        if (close == std::string::npos) break;
        std::string target = trim(text.substr(at + 2, close - at - 2));
        target = target.substr(0, target.find(' '));  // a "title"
        if (target.empty() || target.find("://") != std::string::npos || starts_with(target, "mailto:")) continue;
        ++f.checked;
        const std::string at_line = line_ref(d.path, line.number) + "link `" + target + "`: ";
        const size_t hash = target.find('#');
        const std::string path_part = target.substr(0, hash);
        const std::string anchor = hash == std::string::npos ? "" : target.substr(hash + 1);
        const std::string path = path_part.empty() ? d.path : normalized(folder + path_part);
        if (path.empty() || starts_with(path_part, "/")) {
          f.problems.push_back(at_line + "not a path inside the repository (write it relative to " + d.path + ")");
          continue;
        }
        if (!path_part.empty() && !exists(path)) {
          f.problems.push_back(at_line + path + " does not exist (paths are relative to " +
                               (folder.empty() ? std::string("the root") : folder) + ")");
          continue;
        }
        if (anchor.empty()) continue;
        const auto it = anchors.find(path);
        if (it == anchors.end()) {
          f.problems.push_back(at_line + "its anchor cannot be checked: " + path + " is not among the files read");
        } else if (!it->second.count(anchor)) {
          f.problems.push_back(at_line + path + " has no heading whose anchor is #" + anchor);
        }
      }
    }
  }
  return f;
}

}  // namespace hitcost::readme
