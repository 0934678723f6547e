#pragma once
// A tiny blocking HTTP/1.1 server for the load generator's end-to-end tests: an accept
// thread plus one thread per connection, keep-alive, fixed answers. Knobs make it misbehave
// on purpose (stall once, hang, close, answer 500) so that error counting and coordinated
// omission correction can be tested without hitcost-server.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hitcost::client::test {

struct FakeBehavior {
  std::string body = "<html>ok</html>";
  uint64_t hit_below = UINT64_MAX;  // ids below this answer X-Cache: hit, others miss
  bool always_hit = false;          // answer hit even for never-seen ids (validation test)
  std::string strategy = "html";    // X-Strategy
  uint64_t pause_at = 0;            // the n-th request (1-based, all connections) stalls once...
  int pause_ms = 0;                 // ...for this long
  uint64_t hang_at = 0;             // the n-th request is never answered
  uint64_t hang_every = 0;          // every n-th request is never answered (its connection idles)
  uint64_t status_500_every = 0;    // every n-th request answers 500
  uint64_t close_every = 0;         // every n-th answer carries Connection: close
  uint64_t drop_every = 0;          // every n-th request: close the socket without answering
  std::string stats_json;           // non-empty: GET /stats answers this JSON (not counted)
};

class FakeHttpServer {
 public:
  explicit FakeHttpServer(FakeBehavior b);
  ~FakeHttpServer();
  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  uint64_t requests() const { return requests_.load(); }
  uint64_t connections() const { return connections_.load(); }
  uint64_t ignored() const { return ignored_.load(); }  // requests left unanswered (hang_at, hang_every)
  std::vector<uint64_t> ids();                          // every id requested, in arrival order
  std::vector<std::string> targets();                   // every request target (path?query), in arrival order
  struct Arrival {
    uint64_t ns;    // CLOCK_MONOTONIC when recv() returned the request's last bytes
    uint64_t conn;  // which accepted connection (1, 2, ... in accept order)
  };
  std::vector<Arrival> arrivals();  // one per request, in lock order (sort by ns to compare)
  // The exact bytes of an answer to a /page request, as serve() sends them.
  static std::string answer(const FakeBehavior& b, bool status_500, bool close, bool hit);

 private:
  void accept_loop();
  void serve(int fd, uint64_t conn);
  FakeBehavior b_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> ignored_{0};
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;
  std::vector<uint64_t> ids_;
  std::vector<std::string> targets_;
  std::vector<Arrival> arrivals_;
  std::thread acceptor_;
};

}  // namespace hitcost::client::test
