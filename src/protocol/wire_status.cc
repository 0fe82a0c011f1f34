// WireStatus constructors that need more than a header line.
//
// Called by the engine when the storage engine returns a numeric error, so the
// answer reads `1 1 <number>` like the original plugin's. Pure; any thread.
#include "protocol/wire_status.h"

#include <charconv>

namespace rowsocket {

WireStatus WireStatus::StorageCode(int engine_error) {
  char buf[16];  // "-2147483648" is 11 bytes
  auto result = std::to_chars(buf, buf + sizeof(buf), engine_error);
  return WireStatus(kStorage, std::string_view(buf, static_cast<size_t>(result.ptr - buf)));
}

}  // namespace rowsocket
