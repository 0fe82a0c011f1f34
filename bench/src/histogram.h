// LatencyHistogram: request latencies in nanoseconds, in log-linear buckets.
//
// Each power of two is split into 32 equal buckets, so a reported percentile is
// within about 3% of the true value, from 1 ns up to about 70 s, in a fixed 17 KB.
// Recording is a shift, a count-leading-zeros and an increment. One histogram per
// client thread (no locking); the main thread merges them after the threads end.
#pragma once

#include <cstdint>
#include <vector>

namespace bench {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void Record(int64_t ns);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  // The value at quantile q (0..1), in nanoseconds: the middle of its bucket.
  double Quantile(double q) const;
  double Mean() const { return count_ ? double(sum_ns_) / double(count_) : 0; }
  int64_t Max() const { return max_ns_; }

 private:
  static constexpr int kSubBits = 5;                 // 32 buckets per power of two
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kBuckets = (64 - kSubBits) * kSub;

  static int BucketOf(uint64_t v);
  static double BucketMiddle(int bucket);

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
  int64_t max_ns_ = 0;
};

}  // namespace bench
