// The memcached side of rowsocket-bench: memcached's text protocol for the same
// workloads, over the same rows (see options.h for the keys and values). A get of
// several keys is one multi-key `get`; the secondary-index case reads the value a
// cache would hold for a user_name (the rows of that name, denormalized); inserts
// are `add` (fresh keys must not exist), updates `set`, deletes `delete`. There is
// no range scan. One instance per connection, used by its worker thread.
#include <cstring>
#include <string_view>

#include "driver.h"
#include "protocol/decimal.h"

namespace bench {

namespace {

// The end of the first "\r\n"-terminated line in data[0..size): offset of '\r', or
// npos when no whole line is there yet.
size_t LineEnd(const char* data, size_t size) {
  const char* lf = static_cast<const char*>(size ? std::memchr(data, '\n', size) : nullptr);
  if (lf == nullptr) return std::string_view::npos;
  size_t end = size_t(lf - data);
  return end > 0 && data[end - 1] == '\r' ? end - 1 : end;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

class MemcachedProtocol : public StreamProtocol {
 public:
  explicit MemcachedProtocol(const Options& o) : o_(o) {}

  std::string Handshake(const Link&) override { return ""; }

  void Append(const Op& op, std::string* out) override {
    switch (op.kind) {
      case OpKind::kGet:
        out->append("get");
        for (uint32_t i = 0; i < op.nkeys; ++i) {
          out->push_back(' ');
          out->append(o_.item_keys);
          AppendUint(out, op.keys[i]);
        }
        out->append("\r\n");
        return;
      case OpKind::kIndexGet:
        out->append("get n");
        AppendUint(out, op.key);
        out->append("\r\n");
        return;
      case OpKind::kInsert:
      case OpKind::kUpdate: {
        value_.clear();
        AppendMemcachedRow(&value_, op.key, op.kind == OpKind::kUpdate ? op.stamp : 0);
        out->append(op.kind == OpKind::kInsert ? "add u" : "set u");
        AppendUint(out, op.key);
        out->append(" 0 0 ");
        AppendUint(out, value_.size());
        out->append("\r\n");
        out->append(value_);
        out->append("\r\n");
        return;
      }
      case OpKind::kDelete:
        out->append("delete u");
        AppendUint(out, op.key);
        out->append("\r\n");
        return;
      case OpKind::kRange:
        return;  // refused by ParseOptions
    }
  }

  Parse Reply(char* data, size_t size, const Op& op, size_t* consumed,
              std::string* error) override {
    if (op.kind == OpKind::kGet || op.kind == OpKind::kIndexGet)
      return GetReply(data, size, op, consumed, error);
    const size_t end = LineEnd(data, size);
    if (end == std::string_view::npos) return Parse::kIncomplete;
    *consumed = size_t(static_cast<const char*>(std::memchr(data + end, '\n', size - end)) - data) + 1;
    std::string_view line(data, end);
    const char* want = op.kind == OpKind::kDelete ? "DELETED" : "STORED";
    if (line == want) return Parse::kOk;
    *error = "memcached: " + std::string(line);
    return Parse::kFailed;
  }

 private:
  // VALUE <key> <flags> <bytes>\r\n<data>\r\n ... END\r\n
  Parse GetReply(char* data, size_t size, const Op& op, size_t* consumed, std::string* error) {
    size_t at = 0;
    uint32_t found = 0;
    error->clear();
    for (;;) {
      const size_t end = LineEnd(data + at, size - at);
      if (end == std::string_view::npos) return Parse::kIncomplete;
      std::string_view line(data + at, end);
      const size_t next = at + end + (data[at + end] == '\r' ? 2 : 1);
      if (line == "END") {
        *consumed = next;
        if (error->empty() && found != (op.kind == OpKind::kGet ? op.nkeys : 1))
          *error = "memcached: " + std::to_string(found) + " values for " +
                   std::to_string(op.kind == OpKind::kGet ? op.nkeys : 1) + " keys";
        return error->empty() ? Parse::kOk : Parse::kFailed;
      }
      if (!StartsWith(line, "VALUE ")) {  // an error line ends the reply
        *consumed = next;
        *error = "memcached: " + std::string(line);
        return Parse::kFailed;
      }
      // key, flags, bytes
      std::string_view rest = line.substr(6);
      const size_t sp1 = rest.find(' ');
      const size_t sp2 = sp1 == rest.npos ? rest.npos : rest.find(' ', sp1 + 1);
      uint64_t bytes = 0;
      if (sp2 == rest.npos ||
          !rowsocket::ParseDecimal(rest.substr(sp2 + 1), &bytes))
        return Parse::kBroken;
      if (size - next < bytes + 2) return Parse::kIncomplete;
      if (error->empty()) CheckValue(op, found, rest.substr(0, sp1),
                                     std::string_view(data + next, bytes), error);
      ++found;
      at = next + bytes + 2;
    }
  }

  void CheckValue(const Op& op, uint32_t i, std::string_view key, std::string_view value,
                  std::string* error) {
    expect_.clear();
    if (op.kind == OpKind::kIndexGet) {
      expect_.push_back('n');
      AppendUint(&expect_, op.key);
      if (key != expect_) { *error = "memcached: wrong key"; return; }
      size_t rows = value.empty() ? 0 : 1;
      for (char c : value) rows += c == '\n';
      if (rows != RowsInGroup(op.key, o_.rows)) *error = "memcached: wrong rows for a name";
      return;
    }
    if (i >= op.nkeys) { *error = "memcached: more values than keys"; return; }
    expect_.append(o_.item_keys);
    AppendUint(&expect_, op.keys[i]);
    if (key != expect_) { *error = "memcached: wrong key (or order)"; return; }
    expect_.erase(0, o_.item_keys.size());
    expect_.push_back('\t');
    if (!StartsWith(value, expect_)) *error = "memcached: value of another row";
  }

  const Options& o_;
  std::string value_;   // scratch: a value being written
  std::string expect_;  // scratch: an expected key
};

}  // namespace

std::unique_ptr<StreamProtocol> MakeMemcachedProtocol(const Options& options) {
  return std::make_unique<MemcachedProtocol>(options);
}

}  // namespace bench
