#pragma once
// A small blocking HTTP/1.1 client for tests: real sockets over loopback, nothing mocked.
#include <map>
#include <string>

namespace hitcost::testing {

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// One keep-alive connection. Throws std::runtime_error on I/O errors or timeouts.
class HttpConnection {
 public:
  explicit HttpConnection(int port, int timeout_ms = 5000);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  void send_raw(const std::string& bytes);
  HttpResponse read_response();  // parses one response (Content-Length framed)
  HttpResponse get(const std::string& target);
  HttpResponse post(const std::string& target, const std::string& body);
  // true when the peer has closed (read returns 0) within timeout_ms
  bool closed_by_peer(int timeout_ms);

 private:
  int fd_ = -1;
  std::string buf_;
};

// One request on a fresh connection.
HttpResponse http_get(int port, const std::string& target);
HttpResponse http_post(int port, const std::string& target, const std::string& body);

}  // namespace hitcost::testing
