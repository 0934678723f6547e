#pragma once
// Who holds a TCP port, for the message of a server that cannot listen on it: the listening
// sockets of /proc/net/tcp and /proc/net/tcp6 on that port, and the processes whose
// /proc/PID/fd links name those sockets' inodes. Only read when a bind failed (never on a
// request). What /proc cannot show is said, not guessed: another user's process keeps its fds
// to itself (unless this one may read them), and a socket in another network namespace is not
// in this namespace's /proc/net/tcp.
#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace hitcost::server {

// "127.0.0.1:8080", "[::1]:8080".
std::string format_endpoint(const boost::asio::ip::address& addr, int port);

// One clause naming what listens on `port` where it overlaps `addr` (the same address, or a
// wildcard on either side), e.g. "another process listens there: pid 4242 hitcost-server
// --port 8080, on 127.0.0.1:8080", or why nothing more can be said.
std::string describe_listener(const boost::asio::ip::address& addr, uint16_t port);

// One listening socket read from a /proc/net/tcp{,6} line (for tests of the parser).
struct ListenerLine {
  boost::asio::ip::address local;
  uint16_t port = 0;
  uint32_t uid = 0;
  uint64_t inode = 0;
};
// Parses a /proc/net/tcp or tcp6 line; false for the header, another state than LISTEN, or a
// line that does not parse.
bool parse_listener_line(std::string_view line, ListenerLine& out);

}  // namespace hitcost::server
