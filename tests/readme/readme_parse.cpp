#include "tests/readme/readme_parse.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

namespace hitcost::readme {

namespace {

const char* const kRunMarker = "<!-- readme-test: run -->";
// A block that goes on from the runnable block before it (the memcached it started, the file
// it wrote): both run as one script, in order, as a user pastes them one after the other.
const char* const kContinueMarker = "<!-- readme-test: run, continuing the block before -->";

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// Lines of a block as bash would get them: console blocks keep their `$ ` lines (and their
// continuations) only; elsewhere a leading `$ ` is dropped.
std::vector<SourceLine> command_lines(const CodeBlock& block) {
  const bool console = block.info == "console";
  std::vector<SourceLine> out;
  bool continuing = false;
  for (const auto& line : block.lines) {
    std::string text = line.text;
    if (!continuing) {
      const std::string t = trim(text);
      if (starts_with(t, "$ ")) {
        text = t.substr(2);
      } else if (t == "$") {
        text.clear();
      } else if (console) {
        continue;  // output shown after a prompt
      }
    }
    const std::string right = text.substr(0, text.find_last_not_of(" \t\r") + 1);
    continuing = !right.empty() && right.back() == '\\';
    out.push_back({line.number, text});
  }
  return out;
}

}  // namespace

const std::vector<OurBinary>& our_binaries() {
  static const std::vector<OurBinary> binaries = {
      {"hitcost-server", "server/hitcost-server", Subcommands::none},
      {"hitcost-load", "client/hitcost-load", Subcommands::optional},
      {"hitcost-corpus", "advise/hitcost-corpus", Subcommands::required},
  };
  return binaries;
}

const OurBinary* find_binary(const std::string& name) {
  for (const auto& b : our_binaries())
    if (b.name == name) return &b;
  return nullptr;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

bool option_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

std::string flag_of(const std::string& word) {
  if (word.size() > 2 && starts_with(word, "--") && std::isalnum(static_cast<unsigned char>(word[2]))) {
    std::string flag = word.substr(0, word.find('='));
    if (std::all_of(flag.begin() + 2, flag.end(), option_name_char)) return flag;
    return "";
  }
  if (word.size() == 2 && word[0] == '-' && std::isalpha(static_cast<unsigned char>(word[1]))) return word;
  return "";
}

std::string strip_brackets(std::string w) {
  while (!w.empty() && (w.front() == '[' || w.front() == '(')) w.erase(w.begin());
  while (!w.empty() && (w.back() == ']' || w.back() == ')' || w.back() == ',' || w.back() == ';')) w.pop_back();
  return w;
}

std::vector<std::string> inline_spans(const std::string& line) {
  std::vector<std::string> spans;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] != '`') {
      ++i;
      continue;
    }
    size_t run = 0;
    while (i + run < line.size() && line[i + run] == '`') ++run;
    const size_t start = i + run;
    size_t end = start;
    bool found = false;
    while ((end = line.find(std::string(run, '`'), end)) != std::string::npos) {
      const bool longer = end + run < line.size() && line[end + run] == '`';
      if (!longer) {
        found = true;
        break;
      }
      while (end < line.size() && line[end] == '`') ++end;
    }
    if (!found) {
      i = start;
      continue;
    }
    spans.push_back(trim(line.substr(start, end - start)));
    i = end + run;
  }
  return spans;
}

std::vector<std::string> span_words(std::string span) {
  span.erase(std::remove_if(span.begin(), span.end(), [](char c) { return c == '"' || c == '\''; }), span.end());
  std::vector<std::string> words;
  std::string w;
  for (char c : span) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(w);
  return words;
}

bool is_assignment(const std::string& w) {
  static const std::regex re("^[A-Za-z_][A-Za-z0-9_]*=");
  return std::regex_search(w, re);
}

int heading_level(const std::string& text) {
  size_t n = 0;
  while (n < text.size() && text[n] == '#') ++n;
  if (n == 0 || n > 6 || n >= text.size() || text[n] != ' ') return 0;
  return int(n);
}

std::vector<bool> lines_in_code(const std::vector<SourceLine>& lines, const std::vector<CodeBlock>& blocks) {
  std::vector<bool> in_code(lines.size() + 2, false);
  for (const auto& b : blocks)
    for (int n = b.fence_line; n <= b.end_line; ++n) in_code[size_t(n)] = true;
  return in_code;
}

std::vector<SourceLine> lines_of(const std::string& text) {
  std::vector<SourceLine> lines;
  size_t start = 0;
  int number = 1;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back({number++, line});
    start = end + 1;
  }
  return lines;
}

std::vector<CodeBlock> code_blocks(const std::vector<SourceLine>& lines) {
  std::vector<CodeBlock> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string t = trim(lines[i].text);
    if (!starts_with(t, "```")) continue;
    CodeBlock b;
    b.fence_line = lines[i].number;
    b.info = trim(t.substr(3));
    if (const auto sp = b.info.find_first_of(" {"); sp != std::string::npos) b.info.resize(sp);
    for (size_t k = i; k-- > 0;) {
      const std::string before = trim(lines[k].text);
      if (before.empty()) continue;
      b.continues = before == kContinueMarker;
      b.runnable = before == kRunMarker || b.continues;
      break;
    }
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      if (starts_with(trim(lines[j].text), "```") && trim(lines[j].text).find_first_not_of('`') == std::string::npos)
        break;
      b.lines.push_back(lines[j]);
    }
    b.end_line = j < lines.size() ? lines[j].number : lines.back().number;
    blocks.push_back(std::move(b));
    i = j;
  }
  return blocks;
}

bool holds_commands(const CodeBlock& block) {
  static const std::set<std::string> shells = {"", "sh", "bash", "shell", "console", "shell-session"};
  return shells.count(block.info) > 0;
}

std::vector<ShellCommand> shell_commands(const CodeBlock& block) {
  // Logical lines: a line ending in \ continues on the next.
  std::vector<std::pair<int, std::string>> logical;
  bool continuing = false;
  for (const auto& line : command_lines(block)) {
    std::string text = line.text;
    const std::string right = text.substr(0, text.find_last_not_of(" \t\r") + 1);
    const bool continues = !right.empty() && right.back() == '\\';
    if (continues) text = right.substr(0, right.size() - 1) + " ";
    if (continuing) {
      logical.back().second += text;
    } else {
      logical.push_back({line.number, text});
    }
    continuing = continues;
  }

  std::vector<ShellCommand> commands;
  for (const auto& [number, s] : logical) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    int substitution = 0;  // depth of $( ... ): its words belong to the enclosing word
    int brackets = 0;      // inside [ ... ]: a | there is a synopsis's "or", not a pipe
    auto end_word = [&] {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    };
    auto end_command = [&] {
      end_word();
      if (!words.empty()) commands.push_back({number, words});
      words.clear();
      brackets = 0;
    };
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      const char next = i + 1 < s.size() ? s[i + 1] : '\0';
      if (quote) {
        if (c == quote)
          quote = 0;
        else
          word += c;
        continue;
      }
      if (substitution > 0) {
        word += c;
        if (c == '(') ++substitution;
        if (c == ')') --substitution;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
        in_word = true;
        continue;
      }
      if (c == '$' && next == '(') {
        word += "$(";
        ++i;
        substitution = 1;
        in_word = true;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) {
        end_word();
        continue;
      }
      if (c == '#' && !in_word) break;  // a comment runs to the end of the line
      if (c == ';') {
        end_command();
        continue;
      }
      if (c == '|') {
        if (brackets > 0) {
          word += c;
          in_word = true;
          continue;
        }
        end_command();
        if (next == '|' || next == '&') ++i;
        continue;
      }
      if (c == '&') {
        if (in_word && (word.back() == '>' || word.back() == '<')) {  // 2>&1, >&2
          word += c;
          continue;
        }
        end_command();
        if (next == '&') ++i;
        continue;
      }
      if (c == '[' && !in_word) ++brackets;
      if (c == ']' && brackets > 0) --brackets;
      word += c;
      in_word = true;
    }
    end_command();
  }
  return commands;
}

std::string our_program(const std::string& word) {
  std::string w = word;
  while (starts_with(w, "./")) w = w.substr(2);
  if (w.empty()) return "";
  const std::string base = w.substr(w.find_last_of('/') == std::string::npos ? 0 : w.find_last_of('/') + 1);
  if (find_binary(base)) return base;
  static const std::regex script("(?:^|/)scripts/([A-Za-z0-9_.+-]+\\.sh)$");
  std::smatch m;
  if (std::regex_search(w, m, script)) return "scripts/" + m[1].str();
  if (base == "run.sh" || base == "test.sh") return base;
  return "";
}

bool to_our_command(const std::vector<std::string>& words, int line, OurCommand& command) {
  static const std::set<std::string> wrappers = {"sudo", "exec", "nohup", "time", "setsid", "env", "command", "bash",
                                                 "sh",   "then", "do",    "else", "(",      "{",   "!"};
  size_t i = 0;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (is_assignment(w)) {
      ++i;
    } else if (w == "timeout") {  // timeout [-s SIG] DURATION cmd
      ++i;
      while (i < words.size() && starts_with(words[i], "-")) ++i;
      ++i;
    } else if (w == "taskset") {  // taskset [-c] CPUS cmd
      ++i;
      if (i < words.size() && words[i] == "-c") ++i;
      ++i;
    } else if (wrappers.count(w)) {
      ++i;
    } else {
      break;
    }
  }
  if (i >= words.size()) return false;
  const std::string program = our_program(words[i]);
  if (program.empty()) return false;
  command.line = line;
  command.program = program;
  command.args.assign(words.begin() + long(i) + 1, words.end());
  return true;
}

std::vector<OurCommand> our_commands(const std::string& readme) {
  const auto lines = lines_of(readme);
  const auto blocks = code_blocks(lines);
  std::vector<OurCommand> commands;
  for (const auto& block : blocks) {
    if (!holds_commands(block)) continue;
    for (const auto& sc : shell_commands(block)) {
      OurCommand c;
      c.in_code_block = true;
      if (to_our_command(sc.words, sc.line, c)) commands.push_back(c);
    }
  }
  const auto in_code = lines_in_code(lines, blocks);
  for (const auto& line : lines) {
    if (in_code[size_t(line.number)]) continue;
    for (const auto& span : inline_spans(line.text)) {
      OurCommand c;
      if (to_our_command(span_words(span), line.number, c)) commands.push_back(c);
    }
  }
  std::stable_sort(commands.begin(), commands.end(),
                   [](const OurCommand& a, const OurCommand& b) { return a.line < b.line; });
  return commands;
}

std::set<std::string> cli11_flags(const std::string& help) {
  std::set<std::string> flags;
  for (const auto& line : lines_of(help)) {
    const std::string& t = line.text;
    // An option line: two spaces, then its names ("-c,--connections INT=16").
    if (t.size() < 4 || !starts_with(t, "  -") || t[3] == ' ') continue;
    const std::string names = t.substr(2, t.find(' ', 2) == std::string::npos ? std::string::npos : t.find(' ', 2) - 2);
    size_t start = 0;
    while (start <= names.size()) {
      size_t end = names.find(',', start);
      if (end == std::string::npos) end = names.size();
      std::string name = names.substr(start, end - start);
      name = name.substr(0, name.find('{'));  // --no-metrics{false}
      name = name.substr(0, name.find('='));
      if (!flag_of(name).empty()) flags.insert(flag_of(name));
      start = end + 1;
    }
  }
  return flags;
}

std::set<std::string> loose_flags(const std::string& help) {
  std::set<std::string> flags;
  for (size_t i = 0; i < help.size(); ++i) {
    if (help[i] != '-' || (i > 0 && (option_name_char(help[i - 1]) || help[i - 1] == '-'))) continue;
    size_t end = i + 1;
    if (end < help.size() && help[end] == '-') ++end;
    const size_t name_start = end;
    while (end < help.size() && option_name_char(help[end])) ++end;
    if (end == name_start) continue;
    const std::string word = help.substr(i, end - i);
    const bool is_short = word.size() == 2;
    // -x only when it stands alone ("-c LIST", "-h|--help"), not as "-x86" or a range.
    if (is_short && end < help.size() && !std::strchr(" \t\n,]|)=", help[end])) continue;
    if (!flag_of(word).empty()) flags.insert(word);
    i = end - 1;
  }
  return flags;
}

std::vector<std::string> cli11_subcommands(const std::string& help) {
  std::vector<std::string> subs;
  bool in_list = false;
  for (const auto& line : lines_of(help)) {
    if (trim(line.text) == "Subcommands:") {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    if (trim(line.text).empty()) break;
    if (starts_with(line.text, "  ") && line.text.size() > 2 && line.text[2] != ' ') {
      const std::string rest = line.text.substr(2);
      subs.push_back(rest.substr(0, rest.find(' ')));
    }
  }
  return subs;
}

std::vector<RunnableBlock> runnable_blocks(const std::string& readme, const std::string& build_dir, int port,
                                           int memcached_port) {
  std::vector<RunnableBlock> out;
  for (const auto& block : code_blocks(lines_of(readme))) {
    if (!block.runnable) continue;
    std::string script;
    for (const auto& line : command_lines(block)) script += line.text + "\n";
    replace_all(script, "build/release/", build_dir + "/");
    replace_all(script, "8080", std::to_string(port));
    if (memcached_port > 0) replace_all(script, "11211", std::to_string(memcached_port));
    if (block.continues && !out.empty()) {
      out.back().script += script;
      out.back().fence_lines.push_back(block.fence_line);
    } else {
      out.push_back({block.fence_line, {block.fence_line}, script});
    }
  }
  return out;
}

}  // namespace hitcost::readme
