#include "server/log_mode.h"

#include <charconv>

#include "stores/store.h"  // parse_size: the one size grammar (64k, 1M)

namespace hitcost::server {
namespace {

Error bad(std::string_view text, const std::string& why) {
  return Error{Errc::invalid_argument,
               "log mode '" + std::string(text) + "': " + why +
                   " (off | line | buffered:SIZE, then +flush:MS, +sync:each|none|MS|interval:MS)"};
}

std::string size_text(uint64_t n) {
  if (n % (1ull << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n % (1ull << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

Result<uint32_t> parse_ms(std::string_view text, std::string_view ms) {
  uint32_t n = 0;
  auto [p, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), n);
  if (ms.empty() || ec != std::errc{} || p != ms.data() + ms.size() || n < 1 || n > 3'600'000)
    return bad(text, std::string("'").append(ms) + "' is not a number of ms in 1..3600000");
  return n;
}

}  // namespace

Result<LogMode> LogMode::parse(std::string_view text) {
  LogMode m;
  size_t plus = text.find('+');
  const std::string_view kind = text.substr(0, plus);
  if (kind == "off") {
    if (plus != std::string_view::npos) return bad(text, "'off' takes no options");
    return m;
  }
  if (kind == "line") {
    m.kind = Kind::line;
  } else if (kind.starts_with("buffered:")) {
    m.kind = Kind::buffered;
    auto size = parse_size(kind.substr(9));
    if (!size || *size < 1 || *size > kMaxBuffer) return bad(text, "buffer size must be 1..64M");
    m.buffer_bytes = *size;
  } else {
    return bad(text, "unknown kind '" + std::string(kind) + "'");
  }
  while (plus != std::string_view::npos) {
    const size_t next = text.find('+', plus + 1);
    const std::string_view opt = text.substr(plus + 1, next == std::string_view::npos ? next : next - plus - 1);
    plus = next;
    if (opt.starts_with("flush:")) {
      if (m.kind != Kind::buffered) return bad(text, "flush: applies to buffered only");
      auto ms = parse_ms(text, opt.substr(6));
      if (!ms) return ms.error();
      m.flush_ms = *ms;
    } else if (opt.starts_with("sync:")) {
      std::string policy(opt.substr(5));
      if (!policy.empty() && policy.find_first_not_of("0123456789") == std::string::npos) policy = "interval:" + policy;
      auto p = SyncPolicy::parse(policy);
      if (!p) return bad(text, p.error().message);
      m.sync = *p;
    } else {
      return bad(text, "unknown option '" + std::string(opt) + "'");
    }
  }
  return m;
}

Result<LogMode> LogMode::from_flags(bool have_file, uint64_t buffer_bytes, uint32_t flush_ms, std::string_view sync) {
  LogMode m;
  auto policy = SyncPolicy::parse(sync);
  if (!policy) return Error{Errc::invalid_argument, "--log-sync: " + policy.error().message};
  if (buffer_bytes > kMaxBuffer) return Error{Errc::invalid_argument, "--log-buffer: at most 64M"};
  if (flush_ms < 1 || flush_ms > 3'600'000) return Error{Errc::invalid_argument, "--log-flush-ms: 1..3600000"};
  if (!have_file) return m;
  m.kind = buffer_bytes == 0 ? Kind::line : Kind::buffered;
  m.buffer_bytes = buffer_bytes;
  m.flush_ms = flush_ms;
  m.sync = *policy;
  return m;
}

std::string LogMode::to_string() const {
  std::string s;
  switch (kind) {
    case Kind::off: return "off";
    case Kind::line: s = "line"; break;
    case Kind::buffered:
      s = "buffered:" + size_text(buffer_bytes);
      if (flush_ms != kDefaultFlushMs) s += "+flush:" + std::to_string(flush_ms);
      break;
  }
  if (sync.kind != SyncPolicy::Kind::none) s += "+sync:" + sync.to_string();
  return s;
}

}  // namespace hitcost::server
