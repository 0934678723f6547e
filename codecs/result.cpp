#include "codecs/result.h"

namespace hitcost {

const char* to_string(Errc e) noexcept {
  switch (e) {
    case Errc::not_found: return "not_found";
    case Errc::unknown_flags: return "unknown_flags";
    case Errc::inconsistent_flags: return "inconsistent_flags";
    case Errc::bad_length: return "bad_length";
    case Errc::decompress_failed: return "decompress_failed";
    case Errc::parse_error: return "parse_error";
    case Errc::corrupt: return "corrupt";
    case Errc::too_large: return "too_large";
    case Errc::io_error: return "io_error";
    case Errc::timeout: return "timeout";
    case Errc::connection: return "connection";
    case Errc::server_error: return "server_error";
    case Errc::invalid_argument: return "invalid_argument";
  }
  return "unknown";
}

}  // namespace hitcost
