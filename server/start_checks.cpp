#include "server/start_checks.h"

#include <sys/resource.h>

#include <boost/asio/ip/address.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace hitcost::server {
namespace {

std::string limit_text(uint64_t v) { return v == UINT64_MAX ? "unlimited" : std::to_string(v); }

uint64_t as_u64(rlim_t v) { return v == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(v); }

}  // namespace

Result<std::string> read_admin_token_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{Errc::io_error, "--admin-token-file " + path + ": " + std::strerror(errno)};
  std::string line;
  std::getline(in, line);
  const size_t first = line.find_first_not_of(" \t\r");
  const size_t last = line.find_last_not_of(" \t\r");
  if (first == std::string::npos)
    return Error{Errc::invalid_argument, "--admin-token-file " + path + ": holds no token (its first line is empty)"};
  return line.substr(first, last - first + 1);
}

bool listens_beyond_loopback(const std::string& host) {
  if (host == "localhost") return false;
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  return ec || !address.is_loopback();  // a name other than localhost: whatever it resolves to
}

OpenFileLimit raise_open_file_limit() noexcept {
  OpenFileLimit out;
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0) {
    out.error = errno;
    return out;
  }
  out.soft_before = out.soft = as_u64(l.rlim_cur);
  out.hard = as_u64(l.rlim_max);
  if (l.rlim_cur == l.rlim_max) return out;
  l.rlim_cur = l.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &l) != 0) {
    out.error = errno;
    return out;
  }
  out.soft = out.hard;
  return out;
}

std::string open_file_line(const OpenFileLimit& l) {
  if (l.error != 0 && l.hard == 0)
    return std::string("open files: limit unknown (getrlimit: ") + std::strerror(l.error) + ")";
  if (l.error != 0)
    return "open files: " + limit_text(l.soft) + " (raising it to the hard limit " + limit_text(l.hard) +
           " failed: " + std::strerror(l.error) + ")";
  if (l.soft_before == l.soft) return "open files: " + limit_text(l.soft) + " (the hard limit already)";
  return "open files: " + limit_text(l.soft) + " (raised from " + limit_text(l.soft_before) + ", the hard limit)";
}

}  // namespace hitcost::server
