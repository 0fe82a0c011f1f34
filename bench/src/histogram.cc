// LatencyHistogram: bucket arithmetic and quantiles. See histogram.h.
#include "histogram.h"

namespace bench {

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

// Values below kSub map to themselves; above, the bucket is (power, top kSubBits bits
// below the leading one).
int LatencyHistogram::BucketOf(uint64_t v) {
  if (v < uint64_t(kSub)) return int(v);
  const int msb = 63 - __builtin_clzll(v);          // >= kSubBits
  const int shift = msb - kSubBits;
  const int sub = int((v >> shift) & (kSub - 1));
  const int bucket = (shift + 1) * kSub + sub;
  return bucket < kBuckets ? bucket : kBuckets - 1;
}

double LatencyHistogram::BucketMiddle(int bucket) {
  if (bucket < kSub) return bucket;
  const int shift = bucket / kSub - 1;
  const int sub = bucket % kSub;
  const double low = double((uint64_t(kSub) | uint64_t(sub)) << shift);
  const double width = double(uint64_t(1) << shift);
  return low + width / 2;
}

void LatencyHistogram::Record(int64_t ns) {
  if (ns < 0) ns = 0;
  ++counts_[BucketOf(uint64_t(ns))];
  ++count_;
  sum_ns_ += uint64_t(ns);
  if (ns > max_ns_) max_ns_ = ns;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  if (other.max_ns_ > max_ns_) max_ns_ = other.max_ns_;
}

double LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  // The smallest bucket whose cumulative count reaches ceil(q * count).
  uint64_t rank = uint64_t(q * double(count_));
  if (double(rank) < q * double(count_)) ++rank;
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const double mid = BucketMiddle(i);
      return mid < double(max_ns_) ? mid : double(max_ns_);
    }
  }
  return double(max_ns_);
}

}  // namespace bench
