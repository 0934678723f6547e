#pragma once
// A TCP connection over loopback to a peer thread of this process: the network steps of a
// calibration. What this thread's CPU pays for a step is what the server's io thread pays for
// the same bytes — on the kernels measured here a send's receive path runs in the sender's
// context, so each side pays for delivering what it sends (the peer for the reply, this thread
// for the request and for a response it sends). Both ends set TCP_NODELAY, as the server does.
// The peer runs on `peer_cpu` when it is given (the CPU the server's real peers use), so that a
// round trip wakes a thread on another CPU as a memcached round trip does.
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "core/result.h"
#include "core/unique_fd.h"

namespace hitcost::floor {

class LoopbackPeer {
 public:
  enum class Role {
    drain,  // reads and drops everything: the other end of a send
    reply,  // for every `request_bytes` read, writes `reply_bytes`: a cache's get
    feed,   // keeps writing `reply_bytes`-byte messages while there is room: requests to receive
  };
  // Errors: io_error naming the call that failed.
  static Result<std::unique_ptr<LoopbackPeer>> open(Role role, size_t request_bytes, size_t reply_bytes, int peer_cpu);
  ~LoopbackPeer();  // shuts the connection down and joins the peer
  LoopbackPeer(const LoopbackPeer&) = delete;
  LoopbackPeer& operator=(const LoopbackPeer&) = delete;

  // This end's blocking I/O, full loops over short counts and EINTR; false on an error or EOF.
  bool send_all(const char* p, size_t n);
  bool send_two(const char* a, size_t an, const char* b, size_t bn);  // one writev of both, as a response is sent
  bool recv_exact(char* p, size_t n);
  int peer_cpu() const noexcept { return peer_cpu_; }

 private:
  LoopbackPeer() = default;
  void run_peer(Role role, size_t request_bytes, size_t reply_bytes);

  UniqueFd ours_, theirs_;
  int peer_cpu_ = -1;
  std::thread peer_;
};

}  // namespace hitcost::floor
