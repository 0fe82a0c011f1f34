// Latency buckets and request category names for the statistics of stats.h.
#include "seam/stats.h"

#include "protocol/memcached.h"

namespace rowsocket {
namespace {

// memcached's commands count as the HandlerSocket requests they amount to; those
// without a key (version, stats, ...) with the P requests.
RequestCategory CategoryOfMemcached(const Request& r) {
  switch (r.memcached->command) {
    case McCommand::kGet:
    case McCommand::kGets:
    case McCommand::kMetaGet:
      return RequestCategory::kFind;
    case McCommand::kStore:
    case McCommand::kMetaSet:
      return RequestCategory::kInsert;
    case McCommand::kGat:
    case McCommand::kGats:
    case McCommand::kIncr:
    case McCommand::kDecr:
    case McCommand::kTouch:
    case McCommand::kMetaArithmetic:
      return RequestCategory::kUpdate;
    case McCommand::kDelete:
    case McCommand::kMetaDelete:
      return RequestCategory::kDelete;
    case McCommand::kInvalid:
      return RequestCategory::kInvalid;
    default:
      return RequestCategory::kOpen;
  }
}

}  // namespace

const char* RequestCategoryName(RequestCategory category) {
  static const char* const kNames[kRequestCategories] = {"open",   "find", "insert", "update",
                                                         "delete", "auth", "invalid"};
  return kNames[static_cast<size_t>(category)];
}

RequestCategory CategoryOf(const Request& r) {
  switch (r.type) {
    case RequestType::kOpenIndex: return RequestCategory::kOpen;
    case RequestType::kAuth: return RequestCategory::kAuth;
    case RequestType::kInsert: return RequestCategory::kInsert;
    case RequestType::kInvalid: return RequestCategory::kInvalid;
    case RequestType::kMemcached: return CategoryOfMemcached(r);
    case RequestType::kFind:
      if (r.modify == ModifyOp::kNone) return RequestCategory::kFind;
      return r.modify == ModifyOp::kDelete ? RequestCategory::kDelete : RequestCategory::kUpdate;
  }
  return RequestCategory::kInvalid;
}

size_t LatencyBucket(uint64_t micros) {
  size_t b = 0;
  while (b + 1 < kLatencyBuckets && micros > kLatencyBoundsUs[b]) ++b;
  return b;
}

}  // namespace rowsocket
