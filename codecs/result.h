#pragma once
// Errors as values at module boundaries: a Result<T> holds a T or an Error.
// `not_found` is a normal answer; the others are counted and reported by the server.
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace hitcost {

enum class Errc {
  not_found,          // key absent: a normal miss
  unknown_flags,      // flags word names a scheme/serializer/compressor we do not know
  inconsistent_flags, // flags contradict each other or the payload
  bad_length,         // a length prefix is absurd or does not match the data
  decompress_failed,  // truncated or corrupt compressed stream
  parse_error,        // malformed JSON / msgpack / serialize text / HTML envelope
  corrupt,            // checksum mismatch, torn record
  too_large,          // value exceeds a configured limit
  io_error,           // syscall failure on a local store
  timeout,            // remote store did not answer in time
  connection,         // remote store unreachable / connection lost
  server_error,       // remote store answered with an error
  invalid_argument,   // caller error (bad key, bad config)
};

const char* to_string(Errc e) noexcept;

struct Error {
  Errc code;
  std::string message;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}         // NOLINT
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
