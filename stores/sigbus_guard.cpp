#include "stores/sigbus_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mutex>

namespace hitcost {
namespace {

struct Slot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};  // 0 = free
  std::atomic<std::atomic<uint64_t>*> faults{nullptr};
};

Slot g_slots[SigbusGuard::kMaxRanges];
std::atomic<uint64_t> g_recovered{0};
struct sigaction g_previous;  // written once before the handler is installed
std::mutex g_slots_mu;        // serializes add/remove (not used by the handler)

void on_sigbus(int sig, siginfo_t* info, void* ctx) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (auto& s : g_slots) {
    uintptr_t e = s.end.load(std::memory_order_acquire);
    if (e == 0) continue;
    uintptr_t b = s.begin.load(std::memory_order_relaxed);
    if (addr < b || addr >= e) continue;
    const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    void* at = reinterpret_cast<void*>(addr & ~(page - 1));
    if (::mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      break;  // cannot patch: fall through to the previous handler
    if (auto* f = s.faults.load(std::memory_order_relaxed)) f->fetch_add(1, std::memory_order_relaxed);
    g_recovered.fetch_add(1, std::memory_order_relaxed);
    return;  // the faulting instruction runs again and reads zeros
  }
  // Not ours: behave as if we had never been installed.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) {
      g_previous.sa_sigaction(sig, info, ctx);
      return;
    }
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  ::signal(sig, SIG_DFL);  // returning re-executes the access and dies with SIGBUS
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous);
  });
}

}  // namespace

int SigbusGuard::add(const void* base, size_t len, std::atomic<uint64_t>* faults) noexcept {
  install_once();
  std::lock_guard lk(g_slots_mu);
  for (int i = 0; i < kMaxRanges; ++i) {
    Slot& s = g_slots[i];
    if (s.end.load(std::memory_order_relaxed) != 0) continue;
    s.faults.store(faults, std::memory_order_relaxed);
    s.begin.store(reinterpret_cast<uintptr_t>(base), std::memory_order_relaxed);
    s.end.store(reinterpret_cast<uintptr_t>(base) + len, std::memory_order_release);
    return i;
  }
  return -1;
}

void SigbusGuard::remove(int slot) noexcept {
  if (slot < 0 || slot >= kMaxRanges) return;
  std::lock_guard lk(g_slots_mu);
  g_slots[slot].end.store(0, std::memory_order_release);
  g_slots[slot].faults.store(nullptr, std::memory_order_relaxed);
}

uint64_t SigbusGuard::total_recovered() noexcept { return g_recovered.load(std::memory_order_relaxed); }

}  // namespace hitcost
