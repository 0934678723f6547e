#pragma once
// A response as the router builds it; the session formats the status line and headers.
#include <string>
#include <string_view>

namespace hitcost::server {

struct Response {
  int status = 200;
  std::string_view content_type = "text/html; charset=utf-8";
  std::string extra_headers;  // preformatted "Name: value\r\n" lines
  bool close = false;         // send Connection: close and close after writing
  // For the access log: what the cache answered (hit | miss | - when no page was asked) and the
  // strategy that answered.
  std::string_view cache = "-";
  std::string strategy;
  std::string key;  // the store key a page or value used (the slow log); "" for other routes

  void header(std::string_view name, std::string_view value) {
    extra_headers.append(name);
    extra_headers.append(": ");
    extra_headers.append(value);
    extra_headers.append("\r\n");
  }
};

const char* reason_phrase(int status) noexcept;

}  // namespace hitcost::server
