#include "report/files.h"

#include <fcntl.h>
#include <sys/stat.h>
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
  // The rename below would replace a read-only file as readily as any other: ask first.
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0) return fail("");
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

namespace {
// The directory PATH.tmp would be created in: "." for a bare name, "/" for "/name".
std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

Status check_output_path(const OutputPath& out) {
  auto refuse = [&](const std::string& why) -> Status {
    return Error{Errc::invalid_argument, out.option + " " + out.path + ": " + why};
  };
  struct stat st {};
  if (::stat(out.path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return refuse("is a directory (name a file in it)");
    if (::access(out.path.c_str(), W_OK) != 0) return refuse(std::strerror(errno));
  } else if (errno != ENOENT) {
    return refuse(std::strerror(errno));  // ENOTDIR, EACCES, ELOOP on the way to it
  }
  const std::string dir = directory_of(out.path);
  if (::stat(dir.c_str(), &st) != 0) return refuse("directory " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return refuse(dir + " is not a directory");
  // W_OK also answers EROFS on a read-only file system, for root too.
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return refuse("cannot create files in " + dir + ": " + std::strerror(errno));
  return ok_status();
}

// The same file under two names (a.json, ./a.json, a hard link) is one inode; a file not there
// yet is compared by its directory's inode and its name.
std::string identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    return std::string("f").append(std::to_string(st.st_dev)).append(":").append(std::to_string(st.st_ino));
  const size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (::stat(directory_of(path).c_str(), &st) == 0)
    return std::string("d").append(std::to_string(st.st_dev)).append(":").append(std::to_string(st.st_ino)) + "/" +
           name;
  return "p" + path;
}
}  // namespace

bool same_file(const std::string& a, const std::string& b) { return identity_of(a) == identity_of(b); }

Status check_output_paths(const std::vector<OutputPath>& outputs) {
  std::vector<std::pair<std::string, const OutputPath*>> seen;  // identity, first option naming it
  for (const OutputPath& out : outputs) {
    if (out.path.empty()) continue;
    if (Status st = check_output_path(out); !st) return st;
    const std::string id = identity_of(out.path);
    for (const auto& [other_id, other] : seen)
      if (other_id == id)
        return Error{Errc::invalid_argument, other->option + " and " + out.option + " both name " + out.path +
                                                 ": one would overwrite the other"};
    seen.emplace_back(id, &out);
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
