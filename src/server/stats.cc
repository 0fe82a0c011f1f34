// Latency buckets and request kind names for the statistics of stats.h.
#include "server/stats.h"

namespace rowsocket {

const char* RequestKindName(RequestKind kind) {
  static const char* const kNames[kRequestKinds] = {"open",   "find", "insert", "update",
                                                    "delete", "auth", "invalid"};
  return kNames[static_cast<size_t>(kind)];
}

RequestKind KindOf(const Request& r) {
  switch (r.type) {
    case RequestType::kOpenIndex: return RequestKind::kOpen;
    case RequestType::kAuth: return RequestKind::kAuth;
    case RequestType::kInsert: return RequestKind::kInsert;
    case RequestType::kInvalid: return RequestKind::kInvalid;
    case RequestType::kFind:
      if (r.modify == ModifyOp::kNone) return RequestKind::kFind;
      return r.modify == ModifyOp::kDelete ? RequestKind::kDelete : RequestKind::kUpdate;
  }
  return RequestKind::kInvalid;
}

size_t LatencyBucket(uint64_t micros) {
  size_t b = 0;
  while (b + 1 < kLatencyBuckets && micros > kLatencyBoundsUs[b]) ++b;
  return b;
}

}  // namespace rowsocket
