// The HandlerSocket side of rowsocket-bench: the index ids a connection opens, the
// request line for each Op, and the checks every answer must pass. Speaks only the
// compatible protocol (PROTOCOL.md Part 1), so the same bytes go to rowsocket and to
// the original plugin. Answers are split by the project's one answer reader
// (protocol/answer.h); values are escaped with protocol/codec.h.
// One instance per connection, used by that connection's worker thread.
#include <string_view>

#include "driver.h"
#include "protocol/answer.h"
#include "protocol/codec.h"
#include "protocol/decimal.h"

namespace bench {

namespace {

// Index ids opened on every connection.
constexpr int kPrimary = 0;      // user by PRIMARY: user_id,user_name,user_email,created
constexpr int kPrimaryEmail = 1; // user by PRIMARY: user_email (updates)
constexpr int kByName = 2;       // index table by user_name: the four columns
constexpr uint32_t kColumns = 4;
constexpr const char* kColumnList = "user_id,user_name,user_email,created";
// --kv: the columns rowsocket's memcached listener reads and writes (KvContainer).
constexpr const char* kItemColumns = "v,cas,flags,expires";

bool ValueIs(const rowsocket::WireValue& v, uint64_t key) {
  uint64_t got;
  return !v.is_null && rowsocket::ParseDecimal(v.view(), &got) && got == key;
}

class HandlerSocketProtocol : public StreamProtocol {
 public:
  explicit HandlerSocketProtocol(const Options& o) : o_(o) {}

  std::string Handshake(const Link& link) override {
    std::string req;
    int lines = 0;
    auto open = [&](int id, const std::string& table, const std::string& index,
                    const char* columns) {
      req += "P\t" + std::to_string(id) + "\t";
      rowsocket::AppendEncoded(&req, o_.db);
      req += '\t';
      rowsocket::AppendEncoded(&req, table);
      req += '\t';
      rowsocket::AppendEncoded(&req, index);
      req += '\t';
      req += columns;
      req += '\n';
      ++lines;
    };
    open(kPrimary, o_.table, "PRIMARY", o_.kv ? kItemColumns : kColumnList);
    open(kPrimaryEmail, o_.table, "PRIMARY", o_.kv ? kItemColumns : "user_email");
    if (o_.workload == Workload::kIndexGet) open(kByName, o_.index_table, o_.index_name, kColumnList);
    std::string reply;
    std::string error = ExchangeLines(link, req, lines, 10000, &reply);
    if (!error.empty()) return error;
    for (size_t at = 0; at < reply.size();) {
      size_t end = rowsocket::FindLineEnd(reply.data() + at, reply.size() - at);
      std::string_view line(reply.data() + at, end);
      if (line != "0\t1") return "open index failed: " + std::string(line);
      at += end + 1;
    }
    return "";
  }

  void Append(const Op& op, std::string* out) override {
    switch (op.kind) {
      case OpKind::kGet:
        out->append("0\t=\t1\t");
        AppendKey(out, op.keys[0]);
        if (op.nkeys > 1) {  // IN: limit = number of keys, key part 0 takes each value
          out->push_back('\t');
          AppendUint(out, op.nkeys);
          out->append("\t0\t@\t0\t");
          AppendUint(out, op.nkeys);
          for (uint32_t i = 0; i < op.nkeys; ++i) {
            out->push_back('\t');
            AppendKey(out, op.keys[i]);
          }
        }
        break;
      case OpKind::kIndexGet:
        out->append("2\t=\t1\t");
        AppendUserName(out, op.key);
        out->push_back('\t');
        AppendUint(out, o_.limit);
        out->append("\t0");
        break;
      case OpKind::kRange:
        out->append("0\t>=\t1\t");
        AppendUint(out, op.key);
        out->push_back('\t');
        AppendUint(out, o_.limit);
        out->append("\t0");
        break;
      case OpKind::kInsert:
        out->append("0\t+\t4\t");
        AppendUint(out, op.key);
        out->push_back('\t');
        AppendUserName(out, NameGroupOf(op.key));
        out->push_back('\t');
        AppendUserEmail(out, op.key, 0);
        out->push_back('\t');
        out->append(kCreated);
        break;
      case OpKind::kUpdate:
        out->append("1\t=\t1\t");
        AppendKey(out, op.key);
        out->append("\t1\t0\tU\t");
        if (o_.kv) {  // the whole item, as memcached's set writes it; the stamp is its CAS
          value_.clear();
          AppendMemcachedRow(&value_, op.key, op.stamp);
          rowsocket::AppendEncoded(out, value_);
          out->push_back('\t');
          AppendUint(out, op.stamp);
          out->append("\t0\t0");
        } else {
          AppendUserEmail(out, op.key, op.stamp);
        }
        break;
      case OpKind::kDelete:
        out->append("0\t=\t1\t");
        AppendUint(out, op.key);
        out->append("\t1\t0\tD");
        break;
    }
    out->push_back('\n');
  }

  Parse Reply(char* data, size_t size, const Op& op, size_t* consumed,
              std::string* error) override {
    const size_t end = rowsocket::FindLineEnd(data, size);
    if (end == size) return Parse::kIncomplete;
    *consumed = end + 1;
    if (!rowsocket::ParseAnswer(data, end, &answer_)) {
      *error = "not an answer line";
      return Parse::kFailed;
    }
    if (!answer_.ok()) {
      *error = "error answer " + std::to_string(answer_.code) + " " +
               std::string(answer_.message());
      return Parse::kFailed;
    }
    *error = Check(op);
    return error->empty() ? Parse::kOk : Parse::kFailed;
  }

 private:
  // A key as the table holds it: user_id, or with --kv the item's key "u<id>".
  void AppendKey(std::string* out, uint64_t id) const {
    if (o_.kv) AppendItemKey(out, id);
    else AppendUint(out, id);
  }

  // The shape and the keys of a successful answer to `op`; "" when right.
  std::string Check(const Op& op) const {
    const auto& v = answer_.values;
    switch (op.kind) {
      case OpKind::kGet:
        if (answer_.count != kColumns || v.size() != kColumns * op.nkeys)
          return "get: wrong number of values";
        for (uint32_t i = 0; i < op.nkeys; ++i) {
          const auto& first = v[kColumns * i];  // --kv: v, which starts with the row's id
          if (o_.kv ? first.is_null || LeadingId(first.view()) != op.keys[i]
                    : !ValueIs(first, op.keys[i]))
            return "get: wrong key in answer";
        }
        return "";
      case OpKind::kIndexGet: {
        uint64_t want = RowsInGroup(op.key, o_.rows);
        if (want > o_.limit) want = o_.limit;
        if (answer_.count != kColumns || v.size() != kColumns * want)
          return "index get: wrong number of rows";
        std::string name;
        AppendUserName(&name, op.key);
        for (size_t i = 1; i < v.size(); i += kColumns)
          if (v[i].view() != name) return "index get: wrong user_name in answer";
        return "";
      }
      case OpKind::kRange:
        if (answer_.count != kColumns || v.size() != kColumns * o_.limit)
          return "range: wrong number of rows";
        for (uint32_t i = 0; i < o_.limit; ++i)
          if (!ValueIs(v[kColumns * i], op.key + i)) return "range: wrong key in answer";
        return "";
      case OpKind::kInsert:
        return answer_.count == 1 && v.size() <= 1 ? "" : "insert: unexpected answer";
      case OpKind::kUpdate:
      case OpKind::kDelete:
        if (answer_.count != 1 || v.size() != 1) return "modify: unexpected answer";
        return ValueIs(v[0], 1) ? "" : "modify: changed " + std::string(v[0].view()) + " rows, not 1";
    }
    return "unknown op";
  }

  const Options& o_;
  rowsocket::Answer answer_;
  std::string value_;  // scratch: an item being written (--kv)
};

}  // namespace

std::unique_ptr<StreamProtocol> MakeHandlerSocketProtocol(const Options& options) {
  return std::make_unique<HandlerSocketProtocol>(options);
}

}  // namespace bench
