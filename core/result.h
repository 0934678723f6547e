#pragma once
// Errors as values at module boundaries: a Result<T> holds a T or an Error.
// `not_found` is a normal answer; the others are counted and reported by the server.
// Every library and both programs use this one convention (no optional + string* pairs).
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace hitcost {

// The error kinds, in one list: the enum, to_string and kErrcCount all come from it, so a
// new kind is one row and every array indexed by Errc grows with it.
// clang-format off: the list is a table
#define HITCOST_ERRC_LIST(X)                                                                 \
  X(not_found)          /* key absent: a normal miss */                                      \
  X(unknown_flags)      /* flags word names a scheme/serializer/compressor we do not know */ \
  X(inconsistent_flags) /* flags contradict each other or the payload */                     \
  X(bad_length)         /* a length prefix is absurd or does not match the data */           \
  X(decompress_failed)  /* truncated or corrupt compressed stream */                         \
  X(parse_error)        /* malformed JSON / msgpack / serialize text / HTML envelope */      \
  X(corrupt)            /* checksum mismatch, torn record */                                 \
  X(too_large)          /* value exceeds a configured limit */                               \
  X(io_error)           /* syscall failure on a local store or file */                       \
  X(timeout)            /* remote store did not answer in time */                            \
  X(connection)         /* remote store unreachable / connection lost */                     \
  X(server_error)       /* remote store answered with an error */                            \
  X(invalid_argument)   /* caller error (bad key, bad config, bad option value) */

enum class Errc {
#define HITCOST_ERRC_ENUM(name) name,
  HITCOST_ERRC_LIST(HITCOST_ERRC_ENUM)
#undef HITCOST_ERRC_ENUM
      count_  // sentinel: the number of kinds, never an error
};
// clang-format on
constexpr size_t kErrcCount = static_cast<size_t>(Errc::count_);

const char* to_string(Errc e) noexcept;

struct Error {
  Errc code;
  std::string message;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  Result(Errc code, std::string message) : v_(Error{code, std::move(message)}) {}

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// For operations that return nothing but may fail.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace hitcost
