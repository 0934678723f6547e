// Store-file recovery on damaged files: the input is written as the store file, opened by
// MmapStore and by PreadStore (the open scan drops what does not verify), and read.
// Every get must be a value or a typed error; after recovery the store must still take
// a write and read it back (the repaired chain is whole).
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "fuzz/fuzz_common.h"
#include "stores/store.h"

using namespace hitcost;

namespace {

std::string path_for_this_process() {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  static std::string path = std::string(dir) + "/hitcost-fuzz-store-" + std::to_string(getpid()) + ".dat";
  std::atexit([] { ::unlink(path.c_str()); });
  return path;
}

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) fuzz::violated("cannot create the store file");
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::write(fd, data + off, size - off);
    if (n <= 0) fuzz::violated("cannot write the store file");
    off += static_cast<size_t>(n);
  }
  ::close(fd);
}

void exercise(const std::string& spec, size_t file_size) {
  auto opened = open_store(spec);
  if (!opened) return;  // a typed refusal is a fine answer
  Store& s = **opened;
  std::string value;
  uint32_t flags = 0;
  // make_corpus writes keys k0..k15; mutations keep some of them.
  for (int i = 0; i < 16; ++i) {
    Status st = s.get("k" + std::to_string(i), value, flags);
    if (st && value.size() > file_size) fuzz::violated("a value larger than the file");
  }
  const std::string v(300, 'x');
  if (!s.set("fuzz-probe", v, 0x68100000)) return;  // io_error on a hostile file is allowed
  Status got = s.get("fuzz-probe", value, flags);
  if (!got || value != v || flags != 0x68100000) fuzz::violated("a write after recovery did not read back");
  s.stats();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = path_for_this_process();
  // size=64K: the seed's capacity, so a file whose header survives is opened as is.
  for (const char* kind : {"mmap:", "pread:"}) {
    write_file(path, data, size);
    exercise(std::string(kind) + path + "?size=64K", size);
  }
  return 0;
}
