// Who holds a port (server/port_holder.h): /proc/net/tcp{,6} lines as this kernel writes them,
// and a real listening socket of this process found by its inode.
#include "server/port_holder.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

using hitcost::server::describe_listener;
using hitcost::server::ListenerLine;
using hitcost::server::parse_listener_line;
namespace ip = boost::asio::ip;

TEST(PortHolder, ParsesListeningLinesOfTcpAndTcp6) {
  ListenerLine l;
  ASSERT_TRUE(parse_listener_line(
      "   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 45678 1 "
      "0000000000000000 100 0 0 10 0",
      l));
  EXPECT_EQ(l.local.to_string(), "127.0.0.1");
  EXPECT_EQ(l.port, 8080);
  EXPECT_EQ(l.uid, 1000u);
  EXPECT_EQ(l.inode, 45678u);
  // ::1 is 00000000 00000000 00000000 01000000 in the kernel's words
  ASSERT_TRUE(parse_listener_line(
      "   0: 00000000000000000000000001000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 "
      "00:00000000 00000000     0        0 99 1 0000000000000000 100 0 0 10 0",
      l));
  EXPECT_EQ(l.local.to_string(), "::1");
  EXPECT_EQ(l.port, 80);
  EXPECT_EQ(l.inode, 99u);
  size_t refused = 0;
  for (
      const char* not_a_listener :
      {"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
       "   1: 0100007F:1F90 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 4567 1",  // ESTABLISHED
       "   2: 0100007F:ZZZZ 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4567 1", ""}) {
    EXPECT_FALSE(parse_listener_line(not_a_listener, l)) << not_a_listener;
    ++refused;
  }
  EXPECT_EQ(refused, 4u);
}

// A socket this process listens on is found, and named by this process's pid.
TEST(PortHolder, NamesThisProcessForItsOwnListeningSocket) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const uint16_t port = ntohs(a.sin_port);
  const std::string said = describe_listener(ip::make_address("127.0.0.1"), port);
  EXPECT_NE(said.find("pid " + std::to_string(::getpid()) + " "), std::string::npos) << said;
  EXPECT_NE(said.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << said;
  // The wildcard overlaps it; another loopback address does not.
  EXPECT_NE(describe_listener(ip::make_address("0.0.0.0"), port).find("pid "), std::string::npos);
  EXPECT_EQ(describe_listener(ip::make_address("127.0.0.2"), port).find("pid "), std::string::npos);
  ::close(fd);
}
