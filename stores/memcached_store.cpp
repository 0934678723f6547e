#include "stores/memcached_store.h"

#include <libmemcached/memcached.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/clock.h"
#include "core/counter.h"

namespace hitcost {
namespace {

std::atomic<uint64_t> g_next_store_id{1};
constexpr size_t kMaxKeyBytes = 250;  // memcached's limit

}  // namespace

// Owns the master handle and every per-thread clone. Guarded by mu.
struct MemcachedStore::Registry {
  std::mutex mu;
  memcached_st* master = nullptr;
  // Binary stores only: the same nodes and settings over the text protocol, for the sets
  // the binary protocol cannot send (see MemcachedStore::set). memcached answers both
  // protocols on one port.
  memcached_st* text_master = nullptr;
  std::vector<memcached_st*> clones;

  ~Registry() {
    for (auto* h : clones) memcached_free(h);
    if (text_master) memcached_free(text_master);
    if (master) memcached_free(master);
  }
  memcached_st* make_clone(bool text = false) {
    std::lock_guard lk(mu);
    memcached_st* h = memcached_clone(nullptr, text ? text_master : master);
    if (h) clones.push_back(h);
    return h;
  }
  void release(memcached_st* h) {
    std::lock_guard lk(mu);
    for (auto it = clones.begin(); it != clones.end(); ++it) {
      if (*it == h) {
        clones.erase(it);
        memcached_free(h);
        return;
      }
    }
  }
};

struct MemcachedStore::Counters {
  SharedCounter gets, hits, misses, sets, removes, bytes_read, bytes_written;
  SharedCounter timeout, connection, server_error, too_large, invalid, other, fast_fails;
  // Stall breaker, shared by all threads (libmemcached 1.1.4 marks a node only on
  // *connect* failures; a node that accepts connections but does not answer — frozen,
  // overloaded — would cost a full poll timeout on every call). After a timeout the
  // node is skipped for retry_timeout_s: calls fail at once with Errc::timeout
  // ("fast_fails"); then one caller probes it. skip_until: steady-clock ns, 0 = healthy.
  std::unique_ptr<std::atomic<uint64_t>[]> skip_until;
  std::atomic<int> suspects{0};
};

int MemcachedStore::node_for(::memcached_st* h, std::string_view key) {
  memcached_return_t rc = MEMCACHED_SUCCESS;
  const memcached_instance_st* inst = memcached_server_by_key(h, key.data(), key.size(), &rc);
  if (!inst) return -1;
  const uint32_t n = memcached_server_count(h);
  for (uint32_t i = 0; i < n; ++i)
    if (memcached_server_instance_by_position(h, i) == inst) return node_index(h, i);
  return -1;
}

Status MemcachedStore::gate(::memcached_st* h, std::string_view key, int& node) {
  node = -1;
  if (c_->suspects.load(std::memory_order_relaxed) == 0) return ok_status();
  node = node_for(h, key);
  if (node < 0) return ok_status();
  auto& until = c_->skip_until[static_cast<size_t>(node)];
  uint64_t u = until.load(std::memory_order_relaxed);
  if (u == 0) return ok_status();
  const uint64_t now = now_ns();
  // Window over: let exactly one caller through as a probe (it re-arms on failure).
  if (now >= u && until.compare_exchange_strong(u, now + static_cast<uint64_t>(opts_.timeout_ms) * 2'000'000))
    return ok_status();
  c_->fast_fails.add();
  c_->timeout.add();
  return Error{Errc::timeout,
               "memcached: node " + std::to_string(node) + " stalled recently; skipped (retry_timeout_ms)"};
}

void MemcachedStore::node_ok(int node) {
  if (node < 0) return;
  auto& until = c_->skip_until[static_cast<size_t>(node)];
  if (until.load(std::memory_order_relaxed) != 0 && until.exchange(0) != 0) c_->suspects.fetch_sub(1);
}

void MemcachedStore::node_stalled(::memcached_st* h, std::string_view key, int node) {
  if (node < 0) node = node_for(h, key);
  if (node < 0) return;
  const uint64_t until = now_ns() + static_cast<uint64_t>(opts_.retry_ms()) * 1'000'000;
  if (c_->skip_until[static_cast<size_t>(node)].exchange(until) == 0) c_->suspects.fetch_add(1);
}

namespace {

// This thread's handles, keyed by store id. See memcached_store.h for the lifetime rules.
struct ThreadHandles {
  struct Entry {
    uint64_t id;
    memcached_st* h;
    std::weak_ptr<MemcachedStore::Registry> reg;
    uint64_t refresh_at_ns = 0;    // 0: healthy; else replace h at this steady-clock time
    memcached_st* text = nullptr;  // binary stores: text-protocol clone, made on first need
  };
  std::vector<Entry> v;
  ~ThreadHandles() {
    for (auto& e : v) {
      if (auto r = e.reg.lock()) {
        r->release(e.h);
        if (e.text) r->release(e.text);
      }
    }
  }
};
thread_local ThreadHandles t_handles;

}  // namespace

MemcachedStore::MemcachedStore(MemcachedOptions opts)
    : opts_(std::move(opts)),
      id_(g_next_store_id.fetch_add(1)),
      reg_(std::make_shared<Registry>()),
      c_(std::make_unique<Counters>()) {}

MemcachedStore::~MemcachedStore() {
  // Clones cached by this thread die with the registry; other threads' cache entries
  // keep a dead id and expire with the weak_ptr.
  auto& v = t_handles.v;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->id == id_) {
      v.erase(it);
      break;
    }
  }
}

namespace {
// A new handle in `slot` (owned by the registry from then on, also on error) with every
// behaviour and node of `o`, over the binary or the text protocol.
Status configure_handle(memcached_st*& slot, const MemcachedOptions& o, bool binary) {
  memcached_st* m = memcached_create(nullptr);
  if (!m) return Error{Errc::io_error, "memcached_create failed"};
  slot = m;
  auto behave = [&](memcached_behavior_t b, uint64_t v) -> Status {
    memcached_return_t rc = memcached_behavior_set(m, b, v);
    if (rc != MEMCACHED_SUCCESS)
      return Error{Errc::invalid_argument, std::string("memcached_behavior_set: ") + memcached_strerror(m, rc)};
    return ok_status();
  };
  const uint64_t timeout_us = static_cast<uint64_t>(o.timeout_ms) * 1000;
  for (auto st : {
           behave(MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1),  // ketama + MD5, weighted
           behave(MEMCACHED_BEHAVIOR_TCP_NODELAY, 1),
           // NO_BLOCK=1 made every set 5-10x slower here (9 us -> 50-100 us on loopback);
           // timeouts hold without it (tests: killed, frozen, unroutable node).
           behave(MEMCACHED_BEHAVIOR_NO_BLOCK, 0),  // needed for the connect timeout
           behave(MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, static_cast<uint64_t>(o.connect_timeout_ms)),
           behave(MEMCACHED_BEHAVIOR_POLL_TIMEOUT, static_cast<uint64_t>(o.timeout_ms)),
           behave(MEMCACHED_BEHAVIOR_RCV_TIMEOUT, timeout_us),
           behave(MEMCACHED_BEHAVIOR_SND_TIMEOUT, timeout_us),
           behave(MEMCACHED_BEHAVIOR_SERVER_FAILURE_LIMIT, static_cast<uint64_t>(o.failure_limit)),
           // 1.1.x: I/O timeouts count too, so a frozen node is skipped like a dead one.
           behave(MEMCACHED_BEHAVIOR_SERVER_TIMEOUT_LIMIT, static_cast<uint64_t>(o.failure_limit)),
           behave(MEMCACHED_BEHAVIOR_RETRY_TIMEOUT, static_cast<uint64_t>(o.retry_timeout_s)),
           behave(MEMCACHED_BEHAVIOR_DEAD_TIMEOUT, static_cast<uint64_t>(o.retry_timeout_s)),
           behave(MEMCACHED_BEHAVIOR_REMOVE_FAILED_SERVERS, o.eject ? 1 : 0),
           // VERIFY_KEY is left off under both protocols: libmemcached refuses it (INVALID
           // ARGUMENTS) once BINARY_PROTOCOL is on, and check_key() applies the text protocol's
           // rule to every key before any call, so both protocols accept the same keys.
           behave(MEMCACHED_BEHAVIOR_BINARY_PROTOCOL, binary ? 1 : 0),
       }) {
    if (!st) return st.error();
  }
  for (const auto& [host, port] : o.nodes) {
    memcached_return_t rc = memcached_server_add(m, host.c_str(), static_cast<in_port_t>(port));
    if (rc != MEMCACHED_SUCCESS)
      return Error{Errc::invalid_argument,
                   "memcached: bad node " + host + ":" + std::to_string(port) + ": " + memcached_strerror(m, rc)};
  }
  return ok_status();
}
}  // namespace

Result<std::unique_ptr<MemcachedStore>> MemcachedStore::open(MemcachedOptions opts) {
  if (opts.nodes.empty()) return Error{Errc::invalid_argument, "memcached: no nodes"};
  std::unique_ptr<MemcachedStore> s(new MemcachedStore(std::move(opts)));
  s->c_->skip_until = std::make_unique<std::atomic<uint64_t>[]>(s->opts_.nodes.size());
  const auto& o = s->opts_;
  if (auto st = configure_handle(s->reg_->master, o, o.binary); !st) return st.error();
  // The text twin is configured like the master, protocol aside (same ring, same nodes).
  if (o.binary)
    if (auto st = configure_handle(s->reg_->text_master, o, false); !st) return st.error();
  return s;
}

std::string MemcachedStore::describe() const {
  std::string d = "memcached:";
  for (size_t i = 0; i < opts_.nodes.size(); ++i) {
    if (i) d += ',';
    d += opts_.nodes[i].first + ":" + std::to_string(opts_.nodes[i].second);
  }
  d += "?timeout_ms=" + std::to_string(opts_.timeout_ms) +
       "&connect_timeout_ms=" + std::to_string(opts_.connect_timeout_ms);
  if (opts_.binary) d += "&binary=1";
  if (opts_.eject) d += "&eject=1";
  return d;
}

memcached_st* MemcachedStore::handle() {
  auto& v = t_handles.v;
  for (auto& e : v) {
    if (e.id != id_) continue;
    if (e.refresh_at_ns != 0 && now_ns() >= e.refresh_at_ns) {
      if (memcached_st* fresh = reg_->make_clone()) {
        reg_->release(e.h);
        e.h = fresh;
      }
      if (e.text) {  // its back-off state too: the next text set clones afresh
        reg_->release(e.text);
        e.text = nullptr;
      }
      e.refresh_at_ns = 0;
    }
    return e.h;
  }
  // Slow path: prune entries of stores that are gone, then clone.
  std::erase_if(v, [](const ThreadHandles::Entry& e) { return e.reg.expired(); });
  memcached_st* h = reg_->make_clone();
  if (h) v.push_back({id_, h, reg_});
  return h;
}

memcached_st* MemcachedStore::text_handle() {
  if (!handle()) return nullptr;  // makes this thread's entry (and refreshes it when due)
  for (auto& e : t_handles.v) {
    if (e.id != id_) continue;
    if (!e.text) e.text = reg_->make_clone(true);
    return e.text;
  }
  return nullptr;
}

void MemcachedStore::refresh_handle_later() {
  for (auto& e : t_handles.v)
    if (e.id == id_ && e.refresh_at_ns == 0)
      e.refresh_at_ns = now_ns() + static_cast<uint64_t>(opts_.retry_ms()) * 1'000'000;
}

Status MemcachedStore::fail(int rc_int, memcached_st* h) {
  auto rc = static_cast<memcached_return_t>(rc_int);
  std::string msg = std::string("memcached: ") + memcached_strerror(h, rc);
  switch (rc) {
    case MEMCACHED_TIMEOUT: c_->timeout.add(); return Error{Errc::timeout, msg};
    case MEMCACHED_ERRNO: {
      int e = h ? memcached_last_error_errno(h) : 0;
      if (e == ETIMEDOUT || e == EAGAIN) {
        c_->timeout.add();
        return Error{Errc::timeout, msg + " (" + std::strerror(e) + ")"};
      }
      if (h) refresh_handle_later();
      c_->connection.add();
      return Error{Errc::connection, msg};
    }
    case MEMCACHED_CONNECTION_FAILURE:
    case MEMCACHED_HOST_LOOKUP_FAILURE:
    case MEMCACHED_WRITE_FAILURE:
    case MEMCACHED_READ_FAILURE:
    case MEMCACHED_UNKNOWN_READ_FAILURE:
    case MEMCACHED_SERVER_MARKED_DEAD:
    case MEMCACHED_SERVER_TEMPORARILY_DISABLED:
    case MEMCACHED_NO_SERVERS:
    case MEMCACHED_PARTIAL_READ:
      if (h) refresh_handle_later();
      c_->connection.add();
      return Error{Errc::connection, msg};
    case MEMCACHED_E2BIG:
    case MEMCACHED_KEY_TOO_BIG: c_->too_large.add(); return Error{Errc::too_large, msg};
    case MEMCACHED_BAD_KEY_PROVIDED: c_->invalid.add(); return Error{Errc::invalid_argument, msg};
    default: c_->server_error.add(); return Error{Errc::server_error, msg};
  }
}

// OK for a key memcached takes, else invalid_argument saying why.
// The text protocol's rule (libmemcached's VERIFY_KEY: isgraph), for both protocols: the
// binary protocol would take a space or a control byte, but a value stored under such a key
// could not be read by a text-protocol client (PHP's, hitcost's default) sharing the cache.
static Status check_key(std::string_view key) {
  if (key.empty() || key.size() > kMaxKeyBytes) return Error{Errc::invalid_argument, "memcached keys are 1..250 bytes"};
  for (unsigned char c : key)
    if (c <= ' ' || c >= 127) return Error{Errc::invalid_argument, "memcached keys are printable ASCII without spaces"};
  return ok_status();
}

// What every operation does first: count it, check the key, take this thread's handle and the
// key's node past its stall breaker. On success `h` and `node` are set.
Status MemcachedStore::begin(SharedCounter& op, std::string_view key, memcached_st*& h, int& node) {
  op.add();
  if (auto s = check_key(key); !s) {
    c_->invalid.add();
    return s;
  }
  h = handle();
  if (!h) return fail(MEMCACHED_MEMORY_ALLOCATION_FAILURE, nullptr);
  return gate(h, key, node);
}

Status MemcachedStore::get(std::string_view key, std::string& value, uint32_t& flags) {
  memcached_st* h = nullptr;
  int node = -1;
  if (Status ready = begin(c_->gets, key, h, node); !ready) return ready;
  size_t len = 0;
  uint32_t f = 0;
  memcached_return_t rc = MEMCACHED_SUCCESS;
  char* p = memcached_get(h, key.data(), key.size(), &len, &f, &rc);
  if (rc == MEMCACHED_SUCCESS) {
    value.assign(p ? p : "", p ? len : 0);
    std::free(p);
    flags = f;
    node_ok(node);
    c_->hits.add();
    c_->bytes_read.add(value.size());
    return ok_status();
  }
  std::free(p);
  if (rc == MEMCACHED_NOTFOUND) {
    node_ok(node);
    c_->misses.add();
    return Error{Errc::not_found, {}};
  }
  if (rc == MEMCACHED_TIMEOUT) node_stalled(h, key, node);
  return fail(rc, h);
}

namespace {

size_t decimal_digits(uint64_t v) {
  size_t n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}

}  // namespace

// libmemcached 1.1.4 never sends the end of a "set" whose whole request is an exact
// multiple of its 8196-byte write buffer: each full buffer goes out with MSG_MORE, and
// the final flush finds the buffer empty and sends nothing, so the kernel holds the
// corked tail and the call waits for the I/O timeout (the breaker then skips the node).
// Found in a sweep (a 24536-byte page under a 34-byte key: 3 x 8196).
//   text:   "set KEY FLAGS EXPTIME BYTES\r\n" + value + "\r\n". Such a request is sent
//           with an absolute expiry at the end of int32 time (2038-01-19) instead of 0
//           ("never"): a different length, the same meaning for the next twelve years.
//   binary: 24-byte header + 8 bytes of extras + key + value, no field of variable
//           length: such a set goes over the text protocol instead (text_handle()), whose
//           request is 20 - digits(flags) - digits(bytes) bytes shorter, never a multiple too.
constexpr size_t kLibmemcachedWriteBuffer = 8196;  // MEMCACHED_MAX_BUFFER

uint32_t MemcachedStore::text_exptime_for(std::string_view key, size_t value_size, uint32_t flags) {
  const size_t request =
      4 + key.size() + 1 + decimal_digits(flags) + 1 + 1 + 1 + decimal_digits(value_size) + 2 + value_size + 2;
  return request % kLibmemcachedWriteBuffer == 0 ? 2147483647u : 0u;
}

bool MemcachedStore::binary_set_would_hang(std::string_view key, size_t value_size) {
  return (24 + 8 + key.size() + value_size) % kLibmemcachedWriteBuffer == 0;
}

Status MemcachedStore::set(std::string_view key, std::string_view value, uint32_t flags) {
  memcached_st* h = nullptr;
  int node = -1;
  if (Status ready = begin(c_->sets, key, h, node); !ready) return ready;
  const bool text = !opts_.binary || binary_set_would_hang(key, value.size());
  if (opts_.binary && text) {
    h = text_handle();
    if (!h) return fail(MEMCACHED_MEMORY_ALLOCATION_FAILURE, nullptr);
  }
  const uint32_t exptime = text ? text_exptime_for(key, value.size(), flags) : 0;
  memcached_return_t rc =
      memcached_set(h, key.data(), key.size(), value.data(), value.size(), static_cast<time_t>(exptime), flags);
  if (rc == MEMCACHED_TIMEOUT) node_stalled(h, key, node);
  if (rc != MEMCACHED_SUCCESS) return fail(rc, h);
  node_ok(node);
  c_->bytes_written.add(value.size());
  return ok_status();
}

Status MemcachedStore::remove(std::string_view key) {
  memcached_st* h = nullptr;
  int node = -1;
  if (Status ready = begin(c_->removes, key, h, node); !ready) return ready;
  memcached_return_t rc = memcached_delete(h, key.data(), key.size(), 0);
  if (rc == MEMCACHED_SUCCESS || rc == MEMCACHED_NOTFOUND) node_ok(node);
  if (rc == MEMCACHED_SUCCESS) return ok_status();
  if (rc == MEMCACHED_NOTFOUND) return Error{Errc::not_found, {}};
  if (rc == MEMCACHED_TIMEOUT) node_stalled(h, key, node);
  return fail(rc, h);
}

int MemcachedStore::node_index(memcached_st* h, uint32_t position) const {
  const memcached_instance_st* inst = memcached_server_instance_by_position(h, position);
  if (!inst) return static_cast<int>(position);
  const int port = memcached_server_port(inst);
  const std::string name = memcached_server_name(inst);
  for (size_t i = 0; i < opts_.nodes.size(); ++i)
    if (opts_.nodes[i].second == port && opts_.nodes[i].first == name) return static_cast<int>(i);
  return static_cast<int>(position);
}

int MemcachedStore::node_of(std::string_view key) {
  memcached_st* h = handle();
  return h ? node_for(h, key) : -1;
}

StoreStats MemcachedStore::stats() {
  StoreStats s;
  const Counters& c = *c_;
  s.gets = c.gets.get();
  s.hits = c.hits.get();
  s.misses = c.misses.get();
  s.sets = c.sets.get();
  s.removes = c.removes.get();
  s.bytes_read = c.bytes_read.get();
  s.bytes_written = c.bytes_written.get();
  auto& x = s.extra;
  x["errors.timeout"] = static_cast<double>(c.timeout.get());
  x["errors.connection"] = static_cast<double>(c.connection.get());
  x["errors.server_error"] = static_cast<double>(c.server_error.get());
  x["errors.too_large"] = static_cast<double>(c.too_large.get());
  x["errors.invalid_argument"] = static_cast<double>(c.invalid.get());
  x["fast_fails"] = static_cast<double>(c.fast_fails.get());
  s.errors = c.timeout.get() + c.connection.get() + c.server_error.get() + c.too_large.get() + c.invalid.get();
  x["nodes"] = static_cast<double>(opts_.nodes.size());

  memcached_st* h = handle();
  if (!h) return s;
  memcached_return_t rc = MEMCACHED_SUCCESS;
  memcached_stat_st* st = memcached_stat(h, nullptr, &rc);
  if (!st) return s;
  double ru = 0, rs = 0, br = 0, bw = 0, cg = 0, gh = 0, ci = 0, up = 0;
  const uint32_t n = memcached_server_count(h);
  for (uint32_t i = 0; i < n; ++i) {
    const memcached_stat_st& t = st[i];
    const std::string p = "node." + std::to_string(node_index(h, i)) + ".";
    const bool alive = t.pid > 0;  // libmemcached sets -1 for a node that did not answer
    x[p + "up"] = alive ? 1 : 0;
    if (!alive) continue;
    up += 1;
    const double node_user = static_cast<double>(t.rusage_user_seconds) + t.rusage_user_microseconds / 1e6;
    const double node_system = static_cast<double>(t.rusage_system_seconds) + t.rusage_system_microseconds / 1e6;
    ru += node_user;
    rs += node_system;
    x[p + "cpu_s"] = node_user + node_system;  // each node's own, for per-node idle baselines
    br += static_cast<double>(t.bytes_read);
    bw += static_cast<double>(t.bytes_written);
    cg += static_cast<double>(t.cmd_get);
    gh += static_cast<double>(t.get_hits);
    ci += static_cast<double>(t.curr_items);
    x[p + "curr_items"] = static_cast<double>(t.curr_items);
    x[p + "cmd_get"] = static_cast<double>(t.cmd_get);
    x[p + "pid"] = static_cast<double>(t.pid);  // lets a local reader find where it runs
  }
  memcached_stat_free(nullptr, st);
  x["nodes_up"] = up;
  x["rusage_user_s"] = ru;
  x["rusage_system_s"] = rs;
  x["bytes_read"] = br;
  x["bytes_written"] = bw;
  x["cmd_get"] = cg;
  x["get_hits"] = gh;
  x["curr_items"] = ci;
  return s;
}

}  // namespace hitcost
