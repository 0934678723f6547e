#include "core/unique_fd.h"

#include <unistd.h>

namespace hitcost {

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace hitcost
