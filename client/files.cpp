#include "client/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace hitcost::client {

Result<nlohmann::json> load_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{Errc::io_error, path + ": " + std::strerror(errno)};
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{Errc::parse_error, path + ": not a JSON object"};
  return j;
}

Status write_output(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const char* step) -> Status {
    const int err = errno;
    return Error{Errc::io_error, "cannot write " + path + ": " + step + std::strerror(err)};
  };
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      errno = err;
      return fail("");
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    return fail("");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    errno = err;
    return fail("rename: ");
  }
  return ok_status();
}

void OutputWriter::write(const std::string& path, std::string_view text) {
  if (path.empty()) return;
  const Status written = write_output(path, text);
  if (written) return;
  std::fprintf(stderr, "%s: %s\n", who_.c_str(), written.error().message.c_str());
  all_written_ = false;
}

}  // namespace hitcost::client
