// The Redis side of rowsocket-bench: RESP2 requests for the same workloads over the
// key-value container's items (options.h: "u<id>" -> the row's values joined by TAB),
// as redis-server holds them and as rowsocket's Redis listener reads them from
// rowsocket.kv. A get of one key is GET, of several one MGET; an update is a SET of
// the whole value. With --hash a get is HGETALL user:<id>: the fields of test.user's
// row (user_name, user_email, created), a hash in redis-server, the row itself
// through rowsocket's container `user`. One instance per connection, used by its
// worker thread.
#include <cstring>
#include <string_view>

#include "driver.h"
#include "protocol/decimal.h"

namespace bench {

namespace {

// Fields of a user hash: every column of test.user but its key.
constexpr uint32_t kHashFields = 3;

class RedisProtocol : public StreamProtocol {
 public:
  explicit RedisProtocol(const Options& o) : o_(o) {}

  std::string Handshake(const Link&) override { return ""; }

  void Append(const Op& op, std::string* out) override {
    switch (op.kind) {
      case OpKind::kGet:
        if (o_.hash) {
          key_ = "user:";
          AppendUint(&key_, op.key);
          AppendCommand(out, {"HGETALL", key_});
          return;
        }
        ArrayHeader(out, op.nkeys + 1);
        Bulk(out, op.nkeys == 1 ? "GET" : "MGET");
        for (uint32_t i = 0; i < op.nkeys; ++i) {
          key_.clear();
          AppendItemKey(&key_, op.keys[i]);
          Bulk(out, key_);
        }
        return;
      case OpKind::kUpdate:
        key_.clear();
        AppendItemKey(&key_, op.key);
        value_.clear();
        AppendMemcachedRow(&value_, op.key, op.stamp);
        AppendCommand(out, {"SET", key_, value_});
        return;
      case OpKind::kIndexGet:
      case OpKind::kRange:
      case OpKind::kInsert:
      case OpKind::kDelete:
        return;  // refused by ParseOptions
    }
  }

  Parse Reply(char* data, size_t size, const Op& op, size_t* consumed,
              std::string* error) override {
    size_t at = 0;
    std::string_view line;
    if (!Line(data, size, &at, &line)) return Parse::kIncomplete;
    if (line.empty()) return Parse::kBroken;
    if (line[0] == '-') {
      *consumed = at;
      *error = "redis: " + std::string(line.substr(1));
      return Parse::kFailed;
    }
    if (op.kind == OpKind::kUpdate) {
      *consumed = at;
      if (line == "+OK") return Parse::kOk;
      *error = "redis: SET answered " + std::string(line);
      return Parse::kFailed;
    }
    const bool array = line[0] == '*' || line[0] == '%';  // RESP3's map for HGETALL
    uint64_t count = 1;
    if (array) {  // the elements follow the header
      if (!rowsocket::ParseDecimal(line.substr(1), &count)) return Parse::kBroken;
      if (line[0] == '%') count *= 2;
    } else {
      at = 0;  // the reply is one bulk string
    }
    error->clear();
    for (uint64_t i = 0; i < count; ++i) {
      std::string_view value;
      bool nil = false;
      const Parse p = BulkAt(data, size, &at, &value, &nil);
      if (p != Parse::kOk) return p;
      if (error->empty()) Check(op, i, nil, value, error);
    }
    *consumed = at;
    const uint64_t want = o_.hash ? 2 * kHashFields : op.nkeys;
    if (error->empty() && (count != want || array != (o_.hash || op.nkeys > 1)))
      *error = "redis: " + std::to_string(count) + " elements for " + std::to_string(want);
    return error->empty() ? Parse::kOk : Parse::kFailed;
  }

 private:
  static void ArrayHeader(std::string* out, uint64_t n) {
    out->push_back('*');
    AppendUint(out, n);
    out->append("\r\n");
  }
  static void Bulk(std::string* out, std::string_view s) {
    out->push_back('$');
    AppendUint(out, s.size());
    out->append("\r\n");
    out->append(s);
    out->append("\r\n");
  }
  static void AppendCommand(std::string* out, std::initializer_list<std::string_view> argv) {
    ArrayHeader(out, argv.size());
    for (std::string_view a : argv) Bulk(out, a);
  }

  // The line at *at (without its CRLF), *at moved past it; false: not all there yet.
  static bool Line(const char* data, size_t size, size_t* at, std::string_view* line) {
    const char* lf = static_cast<const char*>(
        *at < size ? std::memchr(data + *at, '\n', size - *at) : nullptr);
    if (lf == nullptr) return false;
    size_t end = size_t(lf - data);
    *line = std::string_view(data + *at, (end > *at && data[end - 1] == '\r' ? end - 1 : end) - *at);
    *at = end + 1;
    return true;
  }

  // One bulk string ($<n> or the nil $-1 / RESP3's _) at *at.
  static Parse BulkAt(const char* data, size_t size, size_t* at, std::string_view* value,
                      bool* nil) {
    std::string_view line;
    size_t next = *at;
    if (!Line(data, size, &next, &line)) return Parse::kIncomplete;
    if (line == "$-1" || line == "_") {
      *nil = true;
      *at = next;
      return Parse::kOk;
    }
    uint64_t n = 0;
    if (line.empty() || line[0] != '$' || !rowsocket::ParseDecimal(line.substr(1), &n))
      return Parse::kBroken;
    if (size - next < n + 2) return Parse::kIncomplete;
    *value = std::string_view(data + next, n);
    *at = next + n + 2;
    return Parse::kOk;
  }

  // Element i of a get's reply: the value of key i (it starts with the row's id), or
  // for HGETALL a field or its value (user_name's is the row's name).
  void Check(const Op& op, uint64_t i, bool nil, std::string_view value, std::string* error) {
    if (nil) {
      *error = "redis: a key the run expects is missing";
      return;
    }
    if (o_.hash) {
      if (i % 2 == 0) {
        field_ = value;
      } else if (field_ == "user_name") {
        expect_.clear();
        AppendUserName(&expect_, NameGroupOf(op.key));
        if (value != expect_) *error = "redis: the hash of another row";
      }
      return;
    }
    if (i < op.nkeys && LeadingId(value) != op.keys[i]) *error = "redis: value of another key";
  }

  const Options& o_;
  std::string key_;     // scratch: a key being written
  std::string value_;   // scratch: a value being written
  std::string expect_;  // scratch: an expected value
  std::string field_;   // the HGETALL field whose value comes next
};

}  // namespace

std::unique_ptr<StreamProtocol> MakeRedisProtocol(const Options& options) {
  return std::make_unique<RedisProtocol>(options);
}

}  // namespace bench
