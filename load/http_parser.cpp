#include "load/http_parser.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace hitcost::client {

namespace {
bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}
std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
// true when the comma-separated header value contains `token` (case-insensitive)
bool has_token(std::string_view value, std::string_view token) noexcept {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (iequals(trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}
}  // namespace

void ResponseParser::reset() noexcept {
  state_ = State::status;
  info_ = ResponseInfo{};
  have_length_ = chunked_ = http10_ = keep_alive_ = false;
  body_left_ = 0;
  line_len_ = 0;
  error_ = "";
  error_body_len_ = 0;
}

ResponseParser::Result ResponseParser::feed(const char* data, size_t n, size_t* consumed) noexcept {
  size_t pos = 0;
  *consumed = 0;
  while (pos < n) {
    if (state_ == State::failed) return Result::error;
    if (state_ == State::done) break;
    if (state_ == State::body) {
      const uint64_t take = std::min<uint64_t>(body_left_, n - pos);
      if (info_.status < 200 || info_.status > 299) {
        const size_t keep = std::min<size_t>(size_t(take), kErrorBodyMax - error_body_len_);
        std::memcpy(error_body_ + error_body_len_, data + pos, keep);
        error_body_len_ += keep;
      }
      pos += size_t(take);
      body_left_ -= take;
      if (body_left_ == 0) state_ = State::done;
      continue;
    }
    // status line or header line: find its end
    const char* nl = static_cast<const char*>(std::memchr(data + pos, '\n', n - pos));
    const size_t chunk = nl ? size_t(nl - (data + pos)) + 1 : n - pos;
    info_.header_bytes += chunk;
    if (!nl || line_len_ > 0) {  // the line is split across reads: assemble it
      if (line_len_ + chunk > kMaxLine) {
        *consumed = pos + chunk;
        return fail("header line too long");
      }
      std::memcpy(line_ + line_len_, data + pos, chunk);
      line_len_ += chunk;
      pos += chunk;
      if (!nl) break;
      std::string_view line(line_, line_len_ - 1);
      line_len_ = 0;
      if (!on_line(line)) {
        *consumed = pos;
        return Result::error;
      }
    } else {
      std::string_view line(data + pos, chunk - 1);
      pos += chunk;
      if (!on_line(line)) {
        *consumed = pos;
        return Result::error;
      }
    }
  }
  *consumed = pos;
  if (state_ == State::failed) return Result::error;
  return state_ == State::done ? Result::complete : Result::need_more;
}

bool ResponseParser::on_line(std::string_view line) noexcept {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (state_ == State::status) {
    // "HTTP/1.1 200 OK" — the reason phrase may be empty
    if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || (line[7] != '0' && line[7] != '1') || line[8] != ' ' ||
        (line.size() > 12 && line[12] != ' ')) {
      fail("bad status line");
      return false;
    }
    int status = 0;
    for (size_t i = 9; i < 12; ++i) {
      if (line[i] < '0' || line[i] > '9') {
        fail("bad status code");
        return false;
      }
      status = status * 10 + (line[i] - '0');
    }
    if (status < 100) {
      fail("bad status code");
      return false;
    }
    info_.status = status;
    http10_ = line[7] == '0';
    state_ = State::headers;
    return true;
  }
  if (line.empty()) return finish_headers();
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    fail("bad header line");
    return false;
  }
  const std::string_view name = line.substr(0, colon);
  const std::string_view value = trim(line.substr(colon + 1));
  if (iequals(name, "content-length")) {
    uint64_t len = 0;
    const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), len);
    if (ec != std::errc() || p != value.data() + value.size() || value.empty() ||
        (have_length_ && len != info_.content_length)) {
      fail("bad content-length");
      return false;
    }
    have_length_ = true;
    info_.content_length = len;
  } else if (iequals(name, "transfer-encoding")) {
    if (!iequals(value, "identity")) chunked_ = true;
  } else if (iequals(name, "connection")) {
    if (has_token(value, "close")) info_.close = true;
    if (has_token(value, "keep-alive")) keep_alive_ = true;
  } else if (iequals(name, "x-cache")) {
    info_.cache = iequals(value, "hit") ? CacheTag::hit : iequals(value, "miss") ? CacheTag::miss : CacheTag::unknown;
  } else if (iequals(name, "x-strategy")) {
    const size_t len = std::min(value.size(), sizeof info_.strategy - 1);
    std::memcpy(info_.strategy, value.data(), len);
    info_.strategy[len] = '\0';
  }
  return true;
}

bool ResponseParser::finish_headers() noexcept {
  if (chunked_) {
    fail("chunked transfer-encoding not supported");
    return false;
  }
  if (http10_ && !keep_alive_) info_.close = true;
  const int s = info_.status;
  const bool no_body = (s >= 100 && s < 200) || s == 204 || s == 304;
  if (no_body) {
    body_left_ = 0;
    info_.content_length = 0;
  } else if (!have_length_) {
    fail("response without content-length");
    return false;
  } else {
    body_left_ = info_.content_length;
  }
  state_ = body_left_ ? State::body : State::done;
  return true;
}

}  // namespace hitcost::client
