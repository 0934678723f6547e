#pragma once
// A tiny blocking memcached text-protocol client, for sampling a user's cache. It only ever
// reads: `lru_crawler metadump all`, `get`, `stats`, `stats settings`, `version`, `watch` (no command that stores,
// deletes or touches is in this file). One connection, one thread; not thread-safe.
//
// Every wait is bounded: connect by connect_timeout_ms, every send and receive by io_timeout_ms
// (SO_SNDTIMEO/SO_RCVTIMEO), so a frozen memcached (SIGSTOP: the kernel still accepts the
// connection) gives Errc::timeout instead of a hang. Errors name the node's address.
//
// What memcached 1.6 (Debian's 1.6.18, checked) does with `lru_crawler metadump all`:
//   - one line per item, ending in "\n" (not "\r\n"):
//       key=foo%2Fbar exp=-1 la=1733150000 cas=12 fetch=no cls=1 size=68
//     key URL-encoded; la = last access, unix seconds (bumped only from the second `get` on:
//     the first only marks the item fetched); size = the whole item (value + key + ~50 bytes
//     of header), not the value's length; then "END\r\n". An empty cache: just "END\r\n".
//   - crawler disabled (-o no_lru_crawler): "CLIENT_ERROR lru crawler disabled"; before
//     1.4.31: "ERROR"; another crawl running: "BUSY currently processing crawler request".
//   - it is not a snapshot: an item being moved between LRUs (a read item going cold -> warm)
//     while the crawler walks can be missing from the listing.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace hitcost::corpus {

struct DumpEntry {
  std::string key;                 // decoded (%XX -> byte)
  int64_t last_access_unix_s = 0;  // memcached's "la"
  uint32_t size = 0;               // memcached's "size": the whole item, not the value
};

struct FetchedValue {
  std::string key;
  uint32_t flags = 0;
  std::string value;  // the bytes exactly as stored
};

// Longest key the text protocol takes.
inline constexpr size_t kMaxTextKeyBytes = 250;
// Keys per `get` line.
inline constexpr size_t kGetBatchKeys = 100;
// Largest value a `get` answer may announce (memcached's -I limit tops out at 1 GiB).
inline constexpr uint64_t kMaxAnnouncedValueBytes = 1ull << 30;

// Ok when `key` can be asked for in the text protocol: 1..250 bytes, no space or control
// character (bytes <= 0x20 and 0x7f). Otherwise invalid_argument saying which rule it breaks.
Status check_text_protocol_key(std::string_view key);

// "host:port" or "[v6]:port" -> (host, port); invalid_argument otherwise.
Result<std::pair<std::string, int>> split_host_port(std::string_view address);

// %XX -> byte (either case of hex); a '%' not followed by two hex digits is kept as is.
std::string url_decode(std::string_view text);

class MemcachedTextClient {
 public:
  static constexpr int kDefaultConnectTimeoutMs = 2000;
  static constexpr int kDefaultIoTimeoutMs = 5000;

  // Errc::connection (refused, unreachable, name not found), Errc::timeout (no answer to the
  // connect within connect_timeout_ms), invalid_argument (bad address).
  static Result<MemcachedTextClient> connect(const std::string& address,
                                             int connect_timeout_ms = kDefaultConnectTimeoutMs,
                                             int io_timeout_ms = kDefaultIoTimeoutMs);

  // Every item in the cache (see above). server_error "lru_crawler metadump not available
  // (memcached >= 1.4.31 with lru_crawler enabled)" when the server refuses; a BUSY crawler is
  // retried for ~2 s first.
  Result<std::vector<DumpEntry>> metadump_all();
  // `get` in batches of kGetBatchKeys; keys absent from the cache are absent from the answer.
  // Every key must pass is_text_protocol_key (invalid_argument otherwise, naming it).
  Result<std::vector<FetchedValue>> get_many(const std::vector<std::string>& keys);
  // `stats` (or `stats settings`): (name, value) pairs in the server's order.
  enum class StatsGroup { general, settings };
  Result<std::vector<std::pair<std::string, std::string>>> stats(StatsGroup group = StatsGroup::general);
  // `version`: e.g. "1.6.18".
  Result<std::string> version();
  // `watch WHAT` (e.g. "fetchers mutations"): from its OK on, the connection only streams log
  // lines (trace/watch_events.h), so nothing else may be asked on it. server_error when the
  // server refuses (memcached before 1.5, or a watcher kind it does not know).
  Status watch(std::string_view what);
  // The next streamed line (without "\r\n") into `line`: true with one, false when none came
  // within wait_ms (the stream is still usable). Errc::connection when the server closed it.
  Result<bool> next_streamed_line(std::string& line, int wait_ms);

  const std::string& address() const noexcept { return address_; }

 private:
  MemcachedTextClient(std::string address, UniqueFd fd) : address_(std::move(address)), fd_(std::move(fd)) {}
  Status send_all(std::string_view bytes);
  // One line without its "\n" (and "\r"); server_error if longer than max_bytes.
  Result<std::string> read_line(size_t max_bytes);
  // Exactly n bytes appended to `out`.
  Status read_exact(size_t n, std::string& out);
  Status fill();  // one recv into the buffer
  Error io_failure(const char* what, int err);

  std::string address_;
  UniqueFd fd_;
  std::string in_;       // received, not yet consumed
  size_t in_pos_ = 0;    // first unconsumed byte of in_
  bool broken_ = false;  // after an I/O error or a protocol error the stream is out of step
};

}  // namespace hitcost::corpus
