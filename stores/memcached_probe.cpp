#include "stores/memcached_probe.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace hitcost {
namespace {

using Clock = std::chrono::steady_clock;

// The request, in the store's protocol. Binary: a 24-byte header, opcode 0x0b (version),
// no key, no body.
const std::string& version_request(bool binary) {
  static const std::string text = "version\r\n";
  static const std::string bin = [] {
    std::string h(24, '\0');
    h[0] = static_cast<char>(0x80);  // request magic
    h[1] = 0x0b;                     // version
    return h;
  }();
  return binary ? bin : text;
}

std::string lowercase_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

// What the bytes received so far say: incomplete (wait for more), or the version, or why
// the node does not count as up.
struct Parsed {
  bool complete = false, up = false;
  std::string text;  // the version when up, else why not
};

Parsed parse_answer(const std::string& got, bool binary) {
  Parsed p;
  auto printable = [](std::string s) {
    for (char& c : s)
      if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
    return s.size() > 60 ? s.substr(0, 60) + "..." : s;
  };
  if (!binary) {
    const size_t eol = got.find("\r\n");
    if (eol == std::string::npos) return p;
    p.complete = true;
    const std::string line = got.substr(0, eol);
    if (line.rfind("VERSION ", 0) == 0) {
      p.up = true;
      p.text = line.substr(8);
    } else {
      p.text = "answered '" + printable(line) + "' to version";
    }
    return p;
  }
  if (got.size() < 24) return p;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(got[i]); };
  if (byte(0) != 0x81) {
    p.complete = true;
    p.text = "answered '" + printable(got) + "' to a binary version request";
    return p;
  }
  const uint32_t body = (uint32_t{byte(8)} << 24) | (uint32_t{byte(9)} << 16) | (uint32_t{byte(10)} << 8) | byte(11);
  if (got.size() < 24 + size_t{body}) return p;
  p.complete = true;
  const unsigned status = (unsigned{byte(6)} << 8) | byte(7);
  if (status != 0) {
    p.text = "binary status " + std::to_string(status) + " to version";
    return p;
  }
  p.up = true;
  p.text = got.substr(24, body);
  return p;
}

enum class Phase { connecting, reading, done };

struct Probe {
  MemcachedNodeState state;
  std::vector<std::pair<sockaddr_storage, socklen_t>> addresses;  // tried in order
  size_t next_address = 0;
  int fd = -1;
  Phase phase = Phase::done;
  std::string got;
  std::string last_error;

  Probe() = default;
  Probe(const Probe&) = delete;  // owns fd
  Probe& operator=(const Probe&) = delete;
  ~Probe() {
    if (fd >= 0) ::close(fd);
  }
  void finish(bool up, std::string text, Clock::time_point start) {
    if (fd >= 0) ::close(fd);
    fd = -1;
    phase = Phase::done;
    state.up = up;
    (up ? state.version : state.reason) = std::move(text);
    state.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }
  // Sends the request on a connected socket: a few bytes into an empty send buffer.
  void send_request(bool binary, Clock::time_point start) {
    const std::string& req = version_request(binary);
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size()))
      return finish(false, "connected, but sending version failed: " + lowercase_first(std::strerror(errno)), start);
    phase = Phase::reading;
  }
  // Starts a connection to the next address; done (down) when none is left.
  void connect_next(bool binary, Clock::time_point start) {
    while (next_address < addresses.size()) {
      const auto& [addr, len] = addresses[next_address++];
      fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        last_error = lowercase_first(std::strerror(errno));
        continue;
      }
      if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), len) == 0) return send_request(binary, start);
      if (errno == EINPROGRESS) {
        phase = Phase::connecting;
        return;
      }
      last_error = lowercase_first(std::strerror(errno));
      ::close(fd);
      fd = -1;
    }
    finish(false, last_error.empty() ? "no address to connect to" : last_error, start);
  }
};

}  // namespace

std::vector<MemcachedNodeState> probe_memcached_nodes(const std::vector<std::pair<std::string, int>>& nodes,
                                                      bool binary, int timeout_ms) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(timeout_ms);
  std::vector<Probe> probes(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& [host, port] = nodes[i];
    Probe& p = probes[i];
    const bool v6 = host.find(':') != std::string::npos;
    p.state.address = (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (rc != 0) {
      p.finish(false, "cannot resolve " + host + ": " + lowercase_first(::gai_strerror(rc)), start);
      continue;
    }
    for (const addrinfo* a = found; a; a = a->ai_next) {
      sockaddr_storage s{};
      std::memcpy(&s, a->ai_addr, a->ai_addrlen);
      p.addresses.emplace_back(s, a->ai_addrlen);
    }
    ::freeaddrinfo(found);
    p.connect_next(binary, start);
  }

  std::vector<pollfd> fds;
  std::vector<Probe*> owners;
  for (;;) {
    fds.clear();
    owners.clear();
    for (Probe& p : probes) {
      if (p.phase == Phase::done) continue;
      fds.push_back({p.fd, static_cast<short>(p.phase == Phase::connecting ? POLLOUT : POLLIN), 0});
      owners.push_back(&p);
    }
    if (fds.empty()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    const int n = ::poll(fds.data(), fds.size(), static_cast<int>(left));
    if (n < 0 && errno != EINTR) break;
    for (size_t i = 0; n > 0 && i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Probe& p = *owners[i];
      if (p.phase == Phase::connecting) {
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
          p.last_error = lowercase_first(std::strerror(err));
          ::close(p.fd);
          p.fd = -1;
          p.connect_next(binary, start);  // the host's next address, if it has one
        } else {
          p.send_request(binary, start);
        }
        continue;
      }
      char buf[512];
      const ssize_t r = ::recv(p.fd, buf, sizeof buf, 0);
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      if (r < 0) {
        p.finish(false, "connected, but reading failed: " + lowercase_first(std::strerror(errno)), start);
        continue;
      }
      if (r == 0) {
        p.finish(false, "connected, but it closed the connection without answering version", start);
        continue;
      }
      p.got.append(buf, static_cast<size_t>(r));
      Parsed a = parse_answer(p.got, binary);
      if (a.complete)
        p.finish(a.up, std::move(a.text), start);
      else if (p.got.size() > 4096)
        p.finish(false, "answered version with more than 4 KiB and no end", start);
    }
  }
  const std::string within = " within " + std::to_string(timeout_ms) + " ms";
  for (Probe& p : probes) {
    if (p.phase == Phase::connecting)
      p.finish(false, "no connection" + within, start);
    else if (p.phase == Phase::reading)
      p.finish(false, "connected, but no answer to version" + within, start);
  }
  std::vector<MemcachedNodeState> out;
  out.reserve(probes.size());
  for (Probe& p : probes) out.push_back(std::move(p.state));
  return out;
}

}  // namespace hitcost
