#include "trace/key_hash.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace hitcost::trace {

KeyHasher KeyHasher::random() {
  uint64_t secret[2] = {};
  auto* bytes = reinterpret_cast<unsigned char*>(secret);
  size_t got = 0;
  while (got < sizeof secret) {
    const ssize_t n = ::getrandom(bytes + got, sizeof secret - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  return KeyHasher(secret[0], secret[1]);
}

}  // namespace hitcost::trace
