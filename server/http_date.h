#pragma once
// The HTTP Date header value, formatted at most once per second per thread
// (a strftime per response is a known waste in peer servers).
#include <ctime>
#include <string_view>

namespace hitcost::server {

class HttpDate {
 public:
  // "Sun, 06 Nov 1994 08:49:37 GMT"; valid until the next call on this object.
  std::string_view now() {
    std::time_t t = std::time(nullptr);  // vDSO, a few ns
    if (t != cached_) {
      cached_ = t;
      std::tm tm{};
      gmtime_r(&t, &tm);
      len_ = std::strftime(buf_, sizeof buf_, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    }
    return {buf_, len_};
  }

 private:
  std::time_t cached_ = -1;
  char buf_[64] = {};
  size_t len_ = 0;
};

}  // namespace hitcost::server
