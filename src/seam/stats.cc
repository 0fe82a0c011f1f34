// Latency buckets and request category names for the statistics of stats.h.
#include "seam/stats.h"

namespace rowsocket {

const char* RequestCategoryName(RequestCategory category) {
  static const char* const kNames[kRequestCategories] = {"open",   "find", "insert", "update",
                                                         "delete", "auth", "invalid"};
  return kNames[static_cast<size_t>(category)];
}

size_t LatencyBucket(uint64_t micros) {
  size_t b = 0;
  while (b + 1 < kLatencyBuckets && micros > kLatencyBoundsUs[b]) ++b;
  return b;
}

}  // namespace rowsocket
