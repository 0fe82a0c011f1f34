// Latency buckets and request category names for the statistics of stats.h.
#include "seam/stats.h"

#include "protocol/memcached_commands.h"

namespace rowsocket {
namespace {

// memcached's commands count as their table says (memcached_commands.h).
RequestCategory CategoryOfMemcached(const Request& r) {
  switch (McCommandProperties(r.memcached->command).counts_as) {
    case McCountsAs::kFind: return RequestCategory::kFind;
    case McCountsAs::kInsert: return RequestCategory::kInsert;
    case McCountsAs::kUpdate: return RequestCategory::kUpdate;
    case McCountsAs::kDelete: return RequestCategory::kDelete;
    case McCountsAs::kInvalid: return RequestCategory::kInvalid;
    case McCountsAs::kOther: break;
  }
  return RequestCategory::kOpen;
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
    case RequestType::kDescribe: return RequestCategory::kOpen;  // reads what `P` opens
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
