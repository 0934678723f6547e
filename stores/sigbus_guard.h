#pragma once
// Keeps a file mapping from killing the process when the file shrinks underneath it.
//
// Touching a page of a MAP_SHARED mapping past the file's end raises SIGBUS. A process-wide
// handler (installed once, chained to any previous handler) checks whether the faulting
// address lies in a registered range; if so it maps an anonymous zero page over the
// faulting page (MAP_FIXED) and returns, so the interrupted copy continues and reads
// zeros. The caller's checksum then fails and the store treats the record as damaged; the
// range's `faults` counter tells the owner to fstat and remap. Faults outside every range
// go to the previous handler (default: the process dies as it would have).
//
// Cost on the hot path: nothing (no syscall, no sigsetjmp); only faulting reads pay an
// mmap in the handler. Registration is a few atomic stores; at most kMaxRanges ranges.
// Thread-safety: all functions may be called from any thread; a range must be
// unregistered before its memory is unmapped or reused.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hitcost {

class SigbusGuard {
 public:
  static constexpr int kMaxRanges = 256;

  // Registers [base, base+len); faults inside it increment *faults. Returns a slot id, or
  // -1 when every slot is taken (the mapping then runs unguarded).
  static int add(const void* base, size_t len, std::atomic<uint64_t>* faults) noexcept;
  static void remove(int slot) noexcept;
  // Number of SIGBUS faults turned into zero pages since start (all ranges).
  static uint64_t total_recovered() noexcept;
};

// RAII registration of one range.
class SigbusRange {
 public:
  SigbusRange() = default;
  SigbusRange(const void* base, size_t len, std::atomic<uint64_t>* faults)
      : slot_(SigbusGuard::add(base, len, faults)) {}
  ~SigbusRange() { reset(); }
  SigbusRange(SigbusRange&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  SigbusRange& operator=(SigbusRange&& o) noexcept {
    if (this != &o) {
      reset();
      slot_ = o.slot_;
      o.slot_ = -1;
    }
    return *this;
  }
  SigbusRange(const SigbusRange&) = delete;
  SigbusRange& operator=(const SigbusRange&) = delete;
  void reset() noexcept {
    if (slot_ >= 0) SigbusGuard::remove(slot_);
    slot_ = -1;
  }
  bool active() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

}  // namespace hitcost
