#pragma once
// What hitcost-corpus's verbs share: the error line, byte sizes in text, and leaving no
// half-written FILE.tmp behind on Ctrl-C.
#include <cstdint>
#include <string>

namespace hitcost::corpus_cli {

inline constexpr const char* kWho = "hitcost-corpus";

// Prints "hitcost-corpus: MESSAGE" to stderr; returns `code` (report/exit_code.h).
int fail(int code, const std::string& message);
// "812 B", "457.3 KiB", "1.7 MiB", "2.0 GiB": binary units, as --max-bytes takes them.
std::string bytes_text(uint64_t bytes);
// Ctrl-C or SIGTERM: exit 130 and remove `tmp_path` (the output appears only when complete,
// renamed over at the end, so it is never half a file). on_stop_signal is the handler.
void remove_on_signal(const std::string& tmp_path);
extern "C" void on_stop_signal(int);
// A secret for --redact nobody has to think about: random, printed nowhere, kept nowhere.
uint64_t random_secret();

}  // namespace hitcost::corpus_cli
