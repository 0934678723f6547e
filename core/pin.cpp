#include "core/pin.h"

#include <pthread.h>
#include <sched.h>

#include <cerrno>

namespace hitcost {

int pin_this_thread(int cpu) noexcept {
  if (cpu < 0) return 0;
  if (cpu >= CPU_SETSIZE) return EINVAL;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

}  // namespace hitcost
