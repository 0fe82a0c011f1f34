// ParsedRequest: what every protocol's parsed request tells the layers that know
// no protocol (the server's counters and latency histogram, the batch core's
// counters). Each protocol's request type derives from it (HandlerSocket's Request,
// memcached's McRequest, ...) and carries the rest itself; a BatchItem names which
// protocol its request speaks, and only that protocol's code casts it back.
//
// The fields are set once the server's per-connection rules have decided the
// request (a refusal turns a request into an invalid one), before it is executed.
// Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rowsocket {

// What a request is counted as, in the counters and in ROWSOCKET_LATENCY.KIND
// (HandlerSocket's U, + and - are updates).
enum class RequestCategory : uint8_t { kOpen, kFind, kInsert, kUpdate, kDelete, kAuth, kInvalid };
constexpr size_t kRequestCategories = 7;

struct ParsedRequest {
  RequestCategory category = RequestCategory::kInvalid;
};

}  // namespace rowsocket
