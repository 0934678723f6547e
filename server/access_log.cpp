#include "server/access_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "core/clock.h"

namespace hitcost::server {
namespace {

int open_for_append(const std::string& path) noexcept {
  return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

// Printable ASCII but '"' and '\' as is; everything else as \xHH (so a line is one line and a
// quoted field stays one field).
void append_escaped(std::string& out, std::string_view s) {
  if (s.empty()) {
    out += '-';
    return;
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      const char esc[4] = {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      out.append(esc, 4);
    }
  }
}

void append_number(std::string& out, uint64_t n) {
  char num[24];
  out.append(num, std::to_chars(num, num + sizeof num, n).ptr);
}

void append_peer(std::string& out, const boost::asio::ip::address& peer) {
  if (peer.is_unspecified()) {
    out += '-';  // no peer known (the request never had one: a test, a unit)
  } else if (peer.is_v4()) {
    const auto b = peer.to_v4().to_bytes();
    for (size_t i = 0; i < 4; ++i) {
      if (i) out += '.';
      append_number(out, b[i]);
    }
  } else {
    out += peer.to_string();  // IPv6: rare here, allocation accepted
  }
}

// "[02/Dec/2026:14:05:06 +0000]", formatted once per second per thread.
std::string_view log_time(std::time_t now) {
  thread_local std::time_t cached = -1;
  thread_local char buf[40];
  thread_local size_t len = 0;
  if (now != cached) {
    cached = now;
    std::tm tm{};
    gmtime_r(&now, &tm);
    len = std::strftime(buf, sizeof buf, "[%d/%b/%Y:%H:%M:%S +0000]", &tm);
  }
  return {buf, len};
}

}  // namespace

AccessLogFile::AccessLogFile(std::string path, std::function<SyncPolicy()> policy)
    : path_(std::move(path)), policy_(std::move(policy)) {
  const int fd = open_for_append(path_);
  if (fd < 0) throw std::runtime_error("--access-log " + path_ + ": " + std::strerror(errno));
  fd_ = std::make_shared<const UniqueFd>(fd);
  syncer_ = std::make_unique<IntervalSyncer>(
      [this] {
        const SyncPolicy p = policy_();
        return p.kind == SyncPolicy::Kind::interval ? p.interval_ms : 0u;
      },
      [this] { sync_tick(); });
}

AccessLogFile::~AccessLogFile() { syncer_.reset(); }

std::shared_ptr<const UniqueFd> AccessLogFile::descriptor() const {
  std::lock_guard lk(mu_);
  return fd_;
}

int AccessLogFile::reopen() noexcept {
  const int fd = open_for_append(path_);
  if (fd < 0) {
    const int err = errno;
    failed(err);
    return err;
  }
  std::shared_ptr<const UniqueFd> old;
  {
    std::lock_guard lk(mu_);
    old = std::exchange(fd_, std::make_shared<const UniqueFd>(fd));
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  reopens_.add();
  // What reached the old file before the switch is as durable as the policy promised.
  if (policy_().kind != SyncPolicy::Kind::none) timed_datasync(old->get(), sync_);
  return 0;
}

void AccessLogFile::sync_tick() {
  const uint64_t written = written_.get();
  if (written == synced_) return;  // idle: nothing to make durable
  if (const int err = timed_datasync(descriptor()->get(), sync_); err != 0) failed(err);
  synced_ = written;
}

void format_log_line(const LogLine& l, std::time_t now, std::string& out) {
  append_peer(out, l.peer);
  out += " - - ";
  out += log_time(now);
  out += " \"";
  if (l.method == "-") {
    out += '-';
  } else {
    append_escaped(out, l.method);
    out += ' ';
    append_escaped(out, l.target);
    out += l.version == 10 ? " HTTP/1.0" : " HTTP/1.1";
  }
  out += "\" ";
  append_number(out, static_cast<uint64_t>(l.status));
  out += ' ';
  append_number(out, l.body_bytes);
  out += " \"";
  append_escaped(out, l.referer);
  out += "\" \"";
  append_escaped(out, l.user_agent);
  out += "\" ";
  out += l.cache;
  out += ' ';
  append_escaped(out, l.strategy);
  out += ' ';
  append_number(out, l.service_us);
  out += '\n';
}

void AccessLogWriter::log(const LogMode& mode, const LogLine& line) {
  const size_t before = buffer_.size();
  if (before == 0) oldest_ns_ = now_ns();
  format_log_line(line, std::time(nullptr), buffer_);
  if (mode.kind != LogMode::Kind::buffered) return write_out(mode.sync);
  if (buffer_.size() <= mode.buffer_bytes) return;
  // The new line does not fit: what was there goes in one write, the line starts the next
  // buffer (or goes alone when it is larger than the whole buffer).
  if (before > 0) {
    std::string line_text = buffer_.substr(before);
    buffer_.resize(before);
    write_out(mode.sync);
    buffer_ = std::move(line_text);
    oldest_ns_ = now_ns();
  }
  if (buffer_.size() >= mode.buffer_bytes) write_out(mode.sync);
}

void AccessLogWriter::flush_if_due(const LogMode& mode) {
  if (buffer_.empty()) return;
  if (mode.kind == LogMode::Kind::buffered && now_ns() - oldest_ns_ < uint64_t{mode.flush_ms} * 1'000'000) return;
  write_out(mode.sync);
}

void AccessLogWriter::flush(SyncPolicy sync) {
  if (!buffer_.empty()) write_out(sync);
}

void AccessLogWriter::write_out(SyncPolicy sync) {
  if (!fd_ || fd_generation_ != file_.generation()) {
    fd_generation_ = file_.generation();  // read first: a reopen in between is seen next time
    fd_ = file_.descriptor();
  }
  const char* p = buffer_.data();
  size_t left = buffer_.size();
  int err = 0;
  while (left > 0) {
    const ssize_t n = ::write(fd_->get(), p, left);
    m_.log_write_calls.add();
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) {  // a regular file does not do this; do not spin if it does
      err = EIO;
      break;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  const size_t written = buffer_.size() - left;
  // Whole lines written: the newlines in the written part (a cut line counts as dropped).
  const char* const begin = buffer_.data();
  const char* const end = begin + buffer_.size();
  const auto lines_written = static_cast<uint64_t>(std::count(begin, p, '\n'));
  m_.log_lines.add(lines_written);
  m_.log_bytes.add(written);
  file_.wrote(written);
  if (err != 0) {
    m_.log_write_errors.add();
    m_.log_dropped_lines.add(static_cast<uint64_t>(std::count(p, end, '\n')));
    m_.log_dropped_bytes.add(left);
    file_.failed(err);
  } else if (sync.kind == SyncPolicy::Kind::each) {
    if (const int e = timed_datasync(fd_->get(), file_.sync_stats()); e != 0) file_.failed(e);
  }
  buffer_.clear();
}

}  // namespace hitcost::server
