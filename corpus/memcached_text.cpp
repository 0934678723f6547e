#include "corpus/memcached_text.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <thread>
#include <unordered_set>

#include "core/parse_number.h"

namespace hitcost::corpus {
namespace {

// Longest answer line we accept: a metadump line is key (<= 750 bytes URL-encoded) plus
// fields; a VALUE line is key plus three numbers. Anything longer is not memcached talking.
constexpr size_t kMaxLineBytes = 8192;
constexpr const char* kNoMetadump = "lru_crawler metadump not available (memcached >= 1.4.31 with lru_crawler enabled)";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits on single spaces (memcached's answers never hold runs of them).
std::vector<std::string_view> split_spaces(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= line.size()) {
    const size_t sp = line.find(' ', start);
    const size_t end = sp == std::string_view::npos ? line.size() : sp;
    if (end > start) out.push_back(line.substr(start, end - start));
    if (sp == std::string_view::npos) break;
    start = sp + 1;
  }
  return out;
}

std::string printable(std::string_view s, size_t max = 120) {
  std::string out;
  for (char c : s.substr(0, max)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      static const char* kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

}  // namespace

Status check_text_protocol_key(std::string_view key) {
  auto refuse = [](std::string why) -> Status { return Error{Errc::invalid_argument, std::move(why)}; };
  if (key.empty()) return refuse("empty key");
  if (key.size() > kMaxTextKeyBytes)
    return refuse("key of " + std::to_string(key.size()) + " bytes (the text protocol takes at most 250)");
  for (size_t i = 0; i < key.size(); ++i) {
    const auto u = static_cast<unsigned char>(key[i]);
    if (u <= 0x20 || u == 0x7f) return refuse("key holds a space or control character at byte " + std::to_string(i));
  }
  return ok_status();
}

Result<std::pair<std::string, int>> split_host_port(std::string_view address) {
  std::string host;
  std::string_view port_text;
  if (!address.empty() && address.front() == '[') {
    const size_t close = address.find(']');
    if (close == std::string_view::npos || close + 1 >= address.size() || address[close + 1] != ':')
      return Error{Errc::invalid_argument, "bad address \"" + std::string(address) + "\" (want [v6]:port)"};
    host = std::string(address.substr(1, close - 1));
    port_text = address.substr(close + 2);
  } else {
    const size_t colon = address.rfind(':');
    if (colon == std::string_view::npos || address.find(':') != colon)
      return Error{Errc::invalid_argument, "bad address \"" + std::string(address) + "\" (want host:port)"};
    host = std::string(address.substr(0, colon));
    port_text = address.substr(colon + 1);
  }
  int port = 0;
  if (host.empty() || !parse_number(port_text, port) || port < 1 || port > 65535)
    return Error{Errc::invalid_argument, "bad address \"" + std::string(address) + "\" (want host:port, port 1-65535)"};
  return std::pair<std::string, int>{host, port};
}

std::string url_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = hex_digit(text[i + 1]), lo = hex_digit(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

Result<MemcachedTextClient> MemcachedTextClient::connect(const std::string& address, int connect_timeout_ms,
                                                         int io_timeout_ms) {
  auto hp = split_host_port(address);
  if (!hp) return hp.error();
  const auto& [host, port] = *hp;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* list = nullptr;
  const std::string port_text = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), port_text.c_str(), &hints, &list); rc != 0)
    return Error{Errc::connection, address + ": cannot resolve \"" + host + "\": " + ::gai_strerror(rc)};

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(connect_timeout_ms);
  Error last{Errc::connection, address + ": no address to connect to"};
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!fd) {
      last = Error{Errc::connection, address + ": socket: " + std::strerror(errno)};
      continue;
    }
    int rc = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno != EINPROGRESS && errno != EINTR) {
      last = Error{Errc::connection, address + ": connect: " + std::strerror(errno)};
      continue;
    }
    if (rc != 0) {
      // Wait for the handshake, EINTR resumed with what is left of the deadline.
      int ready = 0;
      for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{fd.get(), POLLOUT, 0};
        ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
        if (ready < 0 && errno == EINTR) continue;
        break;
      }
      if (ready == 0) {
        last =
            Error{Errc::timeout, address + ": connect: no answer within " + std::to_string(connect_timeout_ms) + " ms"};
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      if (ready < 0)
        err = errno;
      else if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
      if (err != 0) {
        last = Error{Errc::connection, address + ": connect: " + std::strerror(err)};
        continue;
      }
    }
    // Blocking from here on, every wait bounded by the socket timeouts.
    const int fl = ::fcntl(fd.get(), F_GETFL);
    ::fcntl(fd.get(), F_SETFL, fl & ~O_NONBLOCK);
    timeval tv{};
    tv.tv_sec = io_timeout_ms / 1000;
    tv.tv_usec = (io_timeout_ms % 1000) * 1000;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    const int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::freeaddrinfo(list);
    return MemcachedTextClient(address, std::move(fd));
  }
  ::freeaddrinfo(list);
  return last;
}

Error MemcachedTextClient::io_failure(const char* what, int err) {
  broken_ = true;
  if (err == EAGAIN || err == EWOULDBLOCK)
    return Error{Errc::timeout,
                 address_ + ": " + what + ": no progress within the I/O timeout (a frozen or overloaded memcached?)"};
  return Error{Errc::connection, address_ + ": " + what + ": " + std::strerror(err)};
}

Status MemcachedTextClient::send_all(std::string_view bytes) {
  if (broken_) return Error{Errc::connection, address_ + ": connection unusable after an earlier error"};
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_failure("send", errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return ok_status();
}

Status MemcachedTextClient::watch(std::string_view what) {
  if (auto s = send_all("watch " + std::string(what) + "\r\n"); !s) return s;
  auto line = read_line(kMaxLineBytes);
  if (!line) return line.error();
  if (*line != "OK") {
    broken_ = true;
    return Error{Errc::server_error, address_ + ": `watch " + std::string(what) + "` refused (\"" + printable(*line) +
                                         "\"): memcached 1.5 or later logs to watchers"};
  }
  return ok_status();
}

Result<bool> MemcachedTextClient::next_streamed_line(std::string& line, int wait_ms) {
  for (bool waited = false;; waited = true) {
    const size_t nl = in_.find('\n', in_pos_);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > in_pos_ && in_[end - 1] == '\r') --end;
      line.assign(in_, in_pos_, end - in_pos_);
      in_pos_ = nl + 1;
      return true;
    }
    if (in_.size() - in_pos_ > kMaxLineBytes) {
      broken_ = true;
      return Error{Errc::server_error,
                   address_ + ": streamed line longer than " + std::to_string(kMaxLineBytes) + " bytes"};
    }
    if (waited) return false;
    pollfd pfd{fd_.get(), POLLIN, 0};
    const int ready = ::poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno != EINTR) return io_failure("poll", errno);
    if (ready <= 0) return false;
    if (auto s = fill(); !s) return s.error();
  }
}

Status MemcachedTextClient::fill() {
  // Drop what was consumed before growing the buffer.
  if (in_pos_ > 0 && in_pos_ >= in_.size() / 2) {
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  char buf[64 * 1024];
  for (;;) {
    const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_failure("recv", errno);
    }
    if (n == 0) {
      broken_ = true;
      return Error{Errc::connection, address_ + ": connection closed by the server"};
    }
    in_.append(buf, static_cast<size_t>(n));
    return ok_status();
  }
}

Result<std::string> MemcachedTextClient::read_line(size_t max_bytes) {
  size_t searched = in_pos_;
  for (;;) {
    const size_t nl = in_.find('\n', searched);
    if (nl != std::string::npos) {
      size_t end = nl;
      if (end > in_pos_ && in_[end - 1] == '\r') --end;
      std::string line = in_.substr(in_pos_, end - in_pos_);
      in_pos_ = nl + 1;
      return line;
    }
    if (in_.size() - in_pos_ > max_bytes) {
      broken_ = true;
      return Error{Errc::server_error, address_ + ": answer line longer than " + std::to_string(max_bytes) +
                                           " bytes: \"" + printable(std::string_view(in_).substr(in_pos_)) + "\""};
    }
    const size_t consumed_before = in_pos_;
    searched = in_.size();
    if (auto s = fill(); !s) return s.error();
    searched -= consumed_before - in_pos_;  // fill() may have moved the unconsumed bytes down
  }
}

Status MemcachedTextClient::read_exact(size_t n, std::string& out) {
  for (;;) {
    const size_t have = in_.size() - in_pos_;
    const size_t take = std::min(have, n);
    out.append(in_, in_pos_, take);
    in_pos_ += take;
    n -= take;
    if (n == 0) return ok_status();
    in_.clear();
    in_pos_ = 0;
    if (auto s = fill(); !s) return s;
  }
}

Result<std::vector<DumpEntry>> MemcachedTextClient::metadump_all() {
  std::vector<DumpEntry> entries;
  std::string line;
  // A crawl already running (another client's, or memcached's own autocrawl) answers BUSY.
  for (int attempt = 0;; ++attempt) {
    if (auto s = send_all("lru_crawler metadump all\r\n"); !s) return s.error();
    auto first = read_line(kMaxLineBytes);
    if (!first) return first.error();
    line = std::move(*first);
    if (line.rfind("BUSY", 0) != 0) break;
    if (attempt == 20)
      return Error{Errc::server_error,
                   address_ + ": " + kNoMetadump + ": still busy after 2 s: \"" + printable(line) + "\""};
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (line == "ERROR" || line.rfind("CLIENT_ERROR", 0) == 0 || line.rfind("SERVER_ERROR", 0) == 0)
    return Error{Errc::server_error, address_ + ": " + kNoMetadump + ": server said \"" + printable(line) + "\""};

  for (uint64_t line_no = 1;; ++line_no) {
    if (line == "END") return entries;
    DumpEntry e;
    bool has_key = false, has_la = false, has_size = false;
    for (std::string_view field : split_spaces(line)) {
      const size_t eq = field.find('=');
      if (eq == std::string_view::npos) continue;  // later versions may add bare words
      const std::string_view name = field.substr(0, eq), value = field.substr(eq + 1);
      if (name == "key") {
        e.key = url_decode(value);
        has_key = !e.key.empty();
      } else if (name == "la") {
        has_la = parse_number(value, e.last_access_unix_s);
      } else if (name == "size") {
        has_size = parse_number(value, e.size);
      }
    }
    if (!has_key || !has_la || !has_size) {
      broken_ = true;
      return Error{Errc::server_error, address_ + ": metadump line " + std::to_string(line_no) +
                                           " lacks key=, la= or size=: \"" + printable(line) + "\""};
    }
    entries.push_back(std::move(e));
    auto next = read_line(kMaxLineBytes);
    if (!next) return next.error();
    line = std::move(*next);
  }
}

Result<std::vector<FetchedValue>> MemcachedTextClient::get_many(const std::vector<std::string>& keys) {
  std::vector<FetchedValue> found;
  for (const std::string& k : keys) {
    if (Status key_ok = check_text_protocol_key(k); !key_ok)
      return Error{Errc::invalid_argument, "cannot get \"" + printable(k) + "\": " + key_ok.error().message};
  }
  for (size_t start = 0; start < keys.size(); start += kGetBatchKeys) {
    const size_t end = std::min(keys.size(), start + kGetBatchKeys);
    std::string request = "get";
    std::unordered_set<std::string_view> asked;
    for (size_t i = start; i < end; ++i) {
      request += ' ';
      request += keys[i];
      asked.insert(keys[i]);
    }
    request += "\r\n";
    if (auto s = send_all(request); !s) return s.error();
    for (;;) {
      auto line = read_line(kMaxLineBytes);
      if (!line) return line.error();
      if (*line == "END") break;
      const auto parts = split_spaces(*line);
      uint32_t flags = 0;
      uint64_t bytes = 0;
      if (parts.size() < 4 || parts.size() > 5 || parts[0] != "VALUE" || !parse_number(parts[2], flags) ||
          !parse_number(parts[3], bytes)) {
        broken_ = true;
        return Error{Errc::server_error, address_ + ": unexpected answer to get: \"" + printable(*line) + "\""};
      }
      if (asked.count(parts[1]) == 0) {
        broken_ = true;
        return Error{Errc::server_error,
                     address_ + ": get answered a key not asked for: \"" + printable(parts[1]) + "\""};
      }
      if (bytes > kMaxAnnouncedValueBytes) {
        broken_ = true;
        return Error{Errc::server_error, address_ + ": get announced a value of " + std::to_string(bytes) + " bytes"};
      }
      FetchedValue v;
      v.key = std::string(parts[1]);
      v.flags = flags;
      v.value.reserve(static_cast<size_t>(std::min<uint64_t>(bytes, 16u << 20)));
      if (auto s = read_exact(static_cast<size_t>(bytes), v.value); !s) return s.error();
      std::string crlf;
      if (auto s = read_exact(2, crlf); !s) return s.error();
      if (crlf != "\r\n") {
        broken_ = true;
        return Error{Errc::server_error, address_ + ": value of \"" + printable(v.key) + "\" not followed by \\r\\n"};
      }
      found.push_back(std::move(v));
    }
  }
  return found;
}

Result<std::vector<std::pair<std::string, std::string>>> MemcachedTextClient::stats(StatsGroup group) {
  const char* command = group == StatsGroup::settings ? "stats settings\r\n" : "stats\r\n";
  if (auto s = send_all(command); !s) return s.error();
  std::vector<std::pair<std::string, std::string>> out;
  for (;;) {
    auto line = read_line(kMaxLineBytes);
    if (!line) return line.error();
    if (*line == "END") return out;
    const auto parts = split_spaces(*line);
    if (parts.size() < 2 || parts[0] != "STAT") {
      broken_ = true;
      return Error{Errc::server_error, address_ + ": unexpected answer to stats: \"" + printable(*line) + "\""};
    }
    const size_t value_at = parts[1].data() + parts[1].size() - line->data();
    out.emplace_back(std::string(parts[1]), value_at < line->size() ? line->substr(value_at + 1) : std::string());
  }
}

Result<std::string> MemcachedTextClient::version() {
  if (auto s = send_all("version\r\n"); !s) return s.error();
  auto line = read_line(kMaxLineBytes);
  if (!line) return line.error();
  if (line->rfind("VERSION ", 0) != 0) {
    broken_ = true;
    return Error{Errc::server_error, address_ + ": unexpected answer to version: \"" + printable(*line) + "\""};
  }
  return line->substr(8);
}

}  // namespace hitcost::corpus
