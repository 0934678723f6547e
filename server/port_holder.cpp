#include "server/port_holder.h"

#include <dirent.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace hitcost::server {
namespace {

namespace ip = boost::asio::ip;

// The next space-separated field of `line`, advancing it.
std::string_view next_field(std::string_view& line) {
  size_t b = line.find_first_not_of(' ');
  if (b == std::string_view::npos) {
    line = {};
    return {};
  }
  line.remove_prefix(b);
  size_t e = line.find(' ');
  std::string_view f = line.substr(0, e);
  line.remove_prefix(e == std::string_view::npos ? line.size() : e);
  return f;
}

template <class T>
bool hex_number(std::string_view s, T& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

template <class T>
bool dec_number(std::string_view s, T& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

// The kernel prints an address as the 32-bit words of its bytes in host order (%08X each):
// reading each word back and storing it natively gives the bytes in network order again.
bool parse_hex_address(std::string_view hex, ip::address& out) {
  if (hex.size() != 8 && hex.size() != 32) return false;
  std::array<unsigned char, 16> bytes{};
  for (size_t w = 0; w < hex.size() / 8; ++w) {
    uint32_t word = 0;
    if (!hex_number(hex.substr(w * 8, 8), word)) return false;
    std::memcpy(bytes.data() + w * 4, &word, 4);
  }
  if (hex.size() == 8) {
    ip::address_v4::bytes_type b4;
    std::memcpy(b4.data(), bytes.data(), 4);
    out = ip::address_v4(b4);
  } else {
    out = ip::address_v6(bytes);
  }
  return true;
}

// Two listening addresses on one port collide when they are equal or either is a wildcard
// (an IPv4-mapped v6 address compares as its v4 form).
bool overlaps(const ip::address& a, const ip::address& b) {
  auto plain = [](const ip::address& x) -> ip::address {
    if (x.is_v6() && x.to_v6().is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, x.to_v6());
    return x;
  };
  const ip::address pa = plain(a), pb = plain(b);
  return pa.is_unspecified() || pb.is_unspecified() || pa == pb;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "4242 hitcost-server --port 8080" (the command line, NULs as spaces, cut at 120 bytes).
std::string describe_process(const std::string& pid) {
  std::string cmd = read_text("/proc/" + pid + "/cmdline");
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd)
    if (c == '\0') c = ' ';
  if (cmd.empty()) {
    cmd = read_text("/proc/" + pid + "/comm");
    while (!cmd.empty() && cmd.back() == '\n') cmd.pop_back();
  }
  if (cmd.size() > 120) cmd = cmd.substr(0, 117) + "...";
  return "pid " + pid + (cmd.empty() ? "" : " " + cmd);
}

// The pids whose fds include socket:[inode], among the processes this one may look into.
std::vector<std::string> pids_holding(uint64_t inode) {
  std::vector<std::string> pids;
  const std::string want = "socket:[" + std::to_string(inode) + "]";
  DIR* proc = ::opendir("/proc");
  if (!proc) return pids;
  while (dirent* p = ::readdir(proc)) {
    uint64_t pid = 0;
    if (!dec_number(std::string_view(p->d_name), pid)) continue;
    const std::string fd_dir = std::string("/proc/") + p->d_name + "/fd";
    DIR* fds = ::opendir(fd_dir.c_str());
    if (!fds) continue;  // another user's process, or gone
    bool found = false;
    while (dirent* f = ::readdir(fds)) {
      if (f->d_name[0] == '.') continue;
      char link[64];
      const ssize_t n = ::readlinkat(::dirfd(fds), f->d_name, link, sizeof link);
      if (n > 0 && std::string_view(link, static_cast<size_t>(n)) == want) {
        found = true;
        break;
      }
    }
    ::closedir(fds);
    if (found) pids.emplace_back(p->d_name);
  }
  ::closedir(proc);
  return pids;
}

}  // namespace

std::string format_endpoint(const ip::address& addr, int port) {
  return (addr.is_v6() ? std::string("[").append(addr.to_string()) + "]" : addr.to_string()) + ":" +
         std::to_string(port);
}

bool parse_listener_line(std::string_view line, ListenerLine& out) {
  // "  sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt   uid  timeout inode"
  std::string_view rest = line;
  std::string_view sl = next_field(rest), local = next_field(rest), remote = next_field(rest), st = next_field(rest);
  if (sl.empty() || sl.back() != ':' || remote.empty() || st != "0A") return false;  // 0A: TCP_LISTEN
  next_field(rest);                                                                  // tx_queue:rx_queue
  next_field(rest);                                                                  // tr:tm->when
  next_field(rest);                                                                  // retrnsmt
  std::string_view uid = next_field(rest);
  next_field(rest);  // timeout
  std::string_view inode = next_field(rest);
  const size_t colon = local.find(':');
  if (colon == std::string_view::npos) return false;
  return parse_hex_address(local.substr(0, colon), out.local) && hex_number(local.substr(colon + 1), out.port) &&
         dec_number(uid, out.uid) && dec_number(inode, out.inode);
}

std::string describe_listener(const ip::address& addr, uint16_t port) {
  std::vector<ListenerLine> found;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream lines(read_text(table));
    for (std::string line; std::getline(lines, line);) {
      ListenerLine l;
      if (parse_listener_line(line, l) && l.port == port && overlaps(l.local, addr)) found.push_back(l);
    }
  }
  if (found.empty())
    return "no listening socket on that port shows in this network namespace's /proc/net/tcp: another namespace's, "
           "or one not listening yet";
  std::string out;
  for (const ListenerLine& l : found) {
    if (!out.empty()) out += "; ";
    const std::string on = format_endpoint(l.local, l.port);
    const std::vector<std::string> pids = l.inode ? pids_holding(l.inode) : std::vector<std::string>{};
    if (pids.empty()) {
      out += "a socket of uid " + std::to_string(l.uid) + " listens on " + on +
             " (its process is not visible to this user)";
      continue;
    }
    out += "another process listens there: ";
    for (size_t i = 0; i < pids.size(); ++i) out += (i ? ", " : "") + describe_process(pids[i]);
    out += ", on " + on;
  }
  return out;
}

}  // namespace hitcost::server
