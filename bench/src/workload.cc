// OpSource and Zipf: key choice for every workload, and the data-model helpers that
// format keys and values. Runs on each client thread (OpSource is per thread; Zipf
// is built once on the main thread and copied).
#include "workload.h"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace bench {

namespace {

uint64_t Mix64(uint64_t x) {  // splitmix64 finalizer: a cheap, good scramble
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double Zeta(uint64_t n, double theta) {
  double sum = 0;
  for (uint64_t i = 1; i <= n; ++i) sum += 1.0 / std::pow(double(i), theta);
  return sum;
}

}  // namespace

Zipf::Zipf(uint64_t n, double theta) : n_(n), theta_(theta) {
  zetan_ = Zeta(n, theta);
  const double zeta2 = Zeta(2, theta);
  alpha_ = 1.0 / (1.0 - theta);
  eta_ = (1.0 - std::pow(2.0 / double(n), 1.0 - theta)) / (1.0 - zeta2 / zetan_);
  half_pow_theta_ = 1.0 + std::pow(0.5, theta);
}

uint64_t Zipf::Rank(double u) const {
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < half_pow_theta_) return n_ > 1 ? 1 : 0;
  uint64_t r = uint64_t(double(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return r < n_ ? r : n_ - 1;
}

// Update stamps must differ from every earlier run's, or an update may rewrite a
// value that is already there (SQL then reports 0 rows changed): they start at the
// wall clock in microseconds and step by kStampStep, so a thread would have to make
// more than one update per microsecond to catch up with the clock. The low bits keep
// threads apart.
constexpr uint64_t kStampStep = 1024;

OpSource::OpSource(const Options& options, const Zipf& zipf, KeyPool* pool, uint64_t seed)
    : options_(options), zipf_(zipf), pool_(pool), rng_(seed) {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  const uint64_t now_us = uint64_t(ts.tv_sec) * 1000000 + uint64_t(ts.tv_nsec) / 1000;
  stamp_ = now_us * kStampStep + seed % kStampStep;
}

uint64_t OpSource::Pick(uint64_t n) {
  if (options_.dist == Distribution::kUniform) return 1 + rng_() % n;
  const double u = double(rng_() >> 11) * (1.0 / 9007199254740992.0);
  // The Zipf table covers options_.rows ranks; scramble into 1..n.
  return 1 + Mix64(zipf_.Rank(u)) % n;
}

bool OpSource::Next(Op* op) {
  op->nkeys = 1;
  switch (options_.workload) {
    case Workload::kGet: {
      op->kind = OpKind::kGet;
      op->nkeys = options_.keys;
      for (uint32_t i = 0; i < op->nkeys; ++i) {
        uint64_t k;
        do {  // distinct keys: SQL IN would fold duplicates, HS and memcached not
          k = Pick(options_.rows);
        } while (std::find(op->keys, op->keys + i, k) != op->keys + i);
        op->keys[i] = k;
      }
      op->key = op->keys[0];
      return true;
    }
    case Workload::kIndexGet:
      op->kind = OpKind::kIndexGet;
      op->key = Pick(NameGroups(options_.rows)) - 1;
      return true;
    case Workload::kRange:
      op->kind = OpKind::kRange;
      op->key = Pick(options_.rows - options_.limit + 1);
      return true;
    case Workload::kInsert:
    case Workload::kDelete:
      op->kind = options_.workload == Workload::kInsert ? OpKind::kInsert : OpKind::kDelete;
      op->key = pool_->Take();
      return op->key != 0;
    case Workload::kUpdate:
      op->kind = OpKind::kUpdate;
      op->key = Pick(options_.rows);
      op->stamp = stamp_ += kStampStep;
      return true;
    case Workload::kMix:
      op->key = Pick(options_.rows);
      op->keys[0] = op->key;
      if (int(rng_() % 100) < options_.write_pct) {
        op->kind = OpKind::kUpdate;
        op->stamp = stamp_ += kStampStep;
      } else {
        op->kind = OpKind::kGet;
      }
      return true;
  }
  return false;
}

void AppendUint(std::string* out, uint64_t v) {
  char buf[24];
  char* p = buf + sizeof buf;
  do {
    *--p = char('0' + v % 10);
    v /= 10;
  } while (v);
  out->append(p, size_t(buf + sizeof buf - p));
}

void AppendUserName(std::string* out, uint64_t group) {
  out->append("user");
  AppendUint(out, group);
}

void AppendUserEmail(std::string* out, uint64_t id, uint64_t stamp) {
  out->append("user");
  AppendUint(out, id);
  if (stamp) {
    out->push_back('.');
    AppendUint(out, stamp);
  }
  out->append("@example.com");
}

void AppendMemcachedRow(std::string* out, uint64_t id, uint64_t stamp) {
  AppendUint(out, id);
  out->push_back('\t');
  AppendUserName(out, NameGroupOf(id));
  out->push_back('\t');
  AppendUserEmail(out, id, stamp);
  out->push_back('\t');
  out->append(kCreated);
}

void AppendItemKey(std::string* out, uint64_t id) {
  out->push_back('u');
  AppendUint(out, id);
}

uint64_t LeadingId(std::string_view value) {
  uint64_t id = 0;
  size_t i = 0;
  for (; i < value.size() && value[i] >= '0' && value[i] <= '9' && i < 19; ++i)
    id = id * 10 + uint64_t(value[i] - '0');
  return i > 0 && i < value.size() && (value[i] < '0' || value[i] > '9') ? id : 0;
}

}  // namespace bench
