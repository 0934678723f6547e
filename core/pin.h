#pragma once
// Pinning the calling thread to one CPU: the server's io threads and the load threads use it
// so that every figure can say where it ran.
namespace hitcost {

// 0 on success, otherwise the errno-style code pthread_setaffinity_np returned (for example
// EINVAL for a CPU that is not online). A negative cpu means "not pinned": returns 0.
int pin_this_thread(int cpu) noexcept;

}  // namespace hitcost
