#include "core/result.h"

namespace hitcost {

const char* to_string(Errc e) noexcept {
  switch (e) {
#define HITCOST_ERRC_NAME(name) \
  case Errc::name: return #name;
    HITCOST_ERRC_LIST(HITCOST_ERRC_NAME)
#undef HITCOST_ERRC_NAME
    case Errc::count_: break;
  }
  return "unknown";
}

}  // namespace hitcost
