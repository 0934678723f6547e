#pragma once
// README.md (and docs/*.md) read as a user copies from it: its code blocks and the shell commands in them,
// its inline code, which commands are ours (the programs of our_binaries(), run.sh, test.sh,
// scripts/*.sh) and with what arguments, the options a --help prints, and the blocks marked
// <!-- readme-test: run --> as scripts to run.
#include <set>
#include <string>
#include <vector>

namespace hitcost::readme {

// The programs this repository builds whose every option README.md documents. One table for
// all of them: the checker has no per-program special case but run.sh's and test.sh's.
enum class Subcommands {
  none,      // hitcost-server: `hitcost-server [OPTIONS]`
  optional,  // hitcost-load: `hitcost-load --url URL ...` is a plain run, `hitcost-load sweep ...` one of its
             // subcommands
  required,  // hitcost-corpus: always `hitcost-corpus SUB ...`; its top level has nothing but --help
};
struct OurBinary {
  std::string name;        // as the README runs it: "hitcost-corpus"
  std::string build_path;  // under the build directory: "advise/hitcost-corpus"
  Subcommands subcommands = Subcommands::none;
};
const std::vector<OurBinary>& our_binaries();
const OurBinary* find_binary(const std::string& name);  // nullptr for scripts and anything else

std::string trim(const std::string& s);
bool starts_with(const std::string& s, const std::string& prefix);
std::string join(const std::vector<std::string>& words, const std::string& sep = " ");
bool option_name_char(char c);  // [A-Za-z0-9_-]
// "--flag" of "--flag" or "--flag=value", "-c" of "-c"; "" when the word is no option name.
std::string flag_of(const std::string& word);
// A usage synopsis writes optional parts as [--json F]: the brackets are not the word's.
std::string strip_brackets(std::string word);
// Inline code of one line: `x`, ``x``; unmatched backticks are text.
std::vector<std::string> inline_spans(const std::string& line);
// Inline code read as words: quotes dropped ("--duration 10s --repeat 5" is three words).
std::vector<std::string> span_words(std::string span);
bool is_assignment(const std::string& word);  // NAME=value
int heading_level(const std::string& line);   // 1..6 for "# ".."###### ", else 0

// A markdown file the checker reads: README.md, or one of docs/*.md, which took over its
// sections (a doc per program, so a heading there names the program as the README's did).
struct Doc {
  std::string path;  // from the source root: "README.md", "docs/hitcost-load.md"; problems say path:LINE
  std::string text;
};

struct SourceLine {
  int number = 0;  // 1-based line of its file
  std::string text;
};

struct CodeBlock {
  int fence_line = 0;  // the opening ``` line
  int end_line = 0;    // the closing one (the last line when the block is left open)
  std::string info;    // what follows the ``` ("sh", "console", "")
  std::vector<SourceLine> lines;
  bool runnable = false;  // preceded by <!-- readme-test: run --> (blank lines between allowed)
  // preceded by <!-- readme-test: run, continuing the block before -->: runnable, and run in
  // one script with the runnable block before it
  bool continues = false;
};

// A simple command of a code block: split at && || ; | &, comments dropped, \-continued
// lines joined, `$ ` prompts removed (in console blocks only prompt lines are commands).
struct ShellCommand {
  int line = 0;
  std::vector<std::string> words;  // quotes removed
};

// A command whose program is one of ours, with what follows the program name.
struct OurCommand {
  int line = 0;
  std::string program;  // a name of our_binaries(), "run.sh", "test.sh", "scripts/x.sh"
  std::vector<std::string> args;
  bool in_code_block = false;
};

std::vector<SourceLine> lines_of(const std::string& text);
std::vector<CodeBlock> code_blocks(const std::vector<SourceLine>& lines);
// Languages whose blocks hold shell commands: "", sh, bash, shell, console.
bool holds_commands(const CodeBlock& block);
std::vector<ShellCommand> shell_commands(const CodeBlock& block);
// "hitcost-load" for "build/release/client/hitcost-load" (any name of our_binaries()), "scripts/x.sh" for
// "./scripts/x.sh", "run.sh" for "./run.sh"; "" for a program that is not ours.
std::string our_program(const std::string& word);
// Env assignments (A=b) and wrappers (sudo, exec, nohup, setsid, timeout 60, bash ...) skipped.
bool to_our_command(const std::vector<std::string>& words, int line, OurCommand& command);
// Every command of ours in code blocks and in inline code (`./run.sh --repeat 8`).
std::vector<OurCommand> our_commands(const std::string& readme);

// The option names of a CLI11 help (only its option lines, not flags named in descriptions).
std::set<std::string> cli11_flags(const std::string& help);
// Every --flag or -x written anywhere in a free-form usage text (the scripts', ctest's).
std::set<std::string> loose_flags(const std::string& help);
std::vector<std::string> cli11_subcommands(const std::string& help);

// Indexed by line number: inside a code block (fences included).
std::vector<bool> lines_in_code(const std::vector<SourceLine>& lines, const std::vector<CodeBlock>& blocks);

// Blocks marked runnable, as bash scripts: prompts removed (console blocks keep their prompt
// lines only), build/release/ pointed at build_dir, the literal port 8080 replaced by port and
// 11211 (memcached's) by memcached_port when it is > 0. A block marked as continuing the one
// before is appended to that one's script: they run as one, in order.
struct RunnableBlock {
  int fence_line = 0;            // the first block's
  std::vector<int> fence_lines;  // every block of the script, in order
  std::string script;
};
std::vector<RunnableBlock> runnable_blocks(const std::string& readme, const std::string& build_dir, int port,
                                           int memcached_port = 0);

}  // namespace hitcost::readme
