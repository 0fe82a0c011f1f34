// libFuzzer target for ParseRequest (protocol/request.h), the parser every request
// line from the network goes through. One input is one line (no LF).
//
// Beyond "no crash, no memory error, no undefined behaviour", it checks what the
// parser promises:
//  - every value and name lies inside the line, at the start of a token of its own,
//    and is that token decoded (compared with a plain reference decoder); NULL is
//    the token 0x00 and nothing else;
//  - a line is invalid exactly when it carries an error, and the error is a word of
//    the wire's vocabulary (wire_errors.h);
//  - IsWrite() follows type and modify, and a valid request asks_to_write exactly
//    when it writes (the read listener refuses on that flag before anything else);
//  - each valid type has its shape (a find has a key and a limit of at least 1, ...);
//  - a reused Request parses a line as a fresh one does (Clear() forgets everything);
//  - a valid request written back in canonical form (codec.h) parses to itself.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "protocol/codec.h"
#include "protocol/request.h"
#include "protocol/wire_errors.h"

namespace rowsocket {
namespace {

using fuzz::LineCopy;

// Checks where values and names point, and collects their token offsets.
class PlacementCheck {
 public:
  PlacementCheck(const LineCopy& line, std::string_view original)
      : line_(line), original_(original) {}

  void Value(const WireValue& v) {
    ++fields_;
    if (v.is_null) {
      FUZZ_CHECK(v.data == nullptr && v.size == 0);
      return;
    }
    const std::string_view token = Place(v.data, v.size);
    FUZZ_CHECK(token != std::string_view("\0", 1));
    FUZZ_CHECK(v.view() == fuzz::ReferenceDecode(token));
  }

  void Values(const std::vector<WireValue>& values) {
    for (const WireValue& v : values) Value(v);
  }

  // A name left unset is the default empty view; a NULL token reads as empty.
  void Name(std::string_view name) {
    if (name.data() == nullptr) {
      FUZZ_CHECK(name.empty());
      return;
    }
    ++fields_;
    const std::string_view token = Place(name.data(), name.size());
    if (token == std::string_view("\0", 1)) {
      FUZZ_CHECK(name.empty());
    } else {
      FUZZ_CHECK(name == fuzz::ReferenceDecode(token));
    }
  }

  // No two fields share a token, and there are no more fields than tokens.
  void Finish() {
    std::sort(offsets_.begin(), offsets_.end());
    FUZZ_CHECK(std::adjacent_find(offsets_.begin(), offsets_.end()) == offsets_.end());
    FUZZ_CHECK(fields_ <= fuzz::SplitTabs(original_).size());
  }

 private:
  // The original token a field decoded from, after checking it sits at one's start.
  std::string_view Place(const char* data, size_t size) {
    FUZZ_CHECK(line_.Holds(data, size));
    const size_t offset = line_.OffsetOf(data);
    FUZZ_CHECK(offset == 0 || original_[offset - 1] == '\t');
    offsets_.push_back(offset);
    const std::string_view token = fuzz::TokenAt(original_, offset);
    FUZZ_CHECK(size <= token.size());
    return token;
  }

  const LineCopy& line_;
  std::string_view original_;
  std::vector<size_t> offsets_;
  size_t fields_ = 0;
};

void CheckPlacement(const Request& r, const LineCopy& line, std::string_view original) {
  PlacementCheck check(line, original);
  for (std::string_view name : {r.db, r.table, r.index, r.columns, r.filter_columns,
                                r.auth_type, r.auth_key}) {
    check.Name(name);
  }
  check.Values(r.key);
  check.Values(r.in_values);
  for (const RequestFilter& f : r.filters) check.Value(f.value);
  check.Values(r.modify_values);
  check.Values(r.insert_values);
  check.Finish();
}

void CheckShape(const Request& r) {
  FUZZ_CHECK((r.type == RequestType::kInvalid) == !r.error.ok());
  FUZZ_CHECK(r.IsWrite() == (r.type == RequestType::kInsert ||
                             (r.type == RequestType::kFind && r.modify != ModifyOp::kNone)));
  if (r.type == RequestType::kInvalid) {
    FUZZ_CHECK(r.error.code() == WireStatus::kBadRequest ||
               r.error.code() == WireStatus::kUnauthorized);
    FUZZ_CHECK(!MeaningOf(r.error.code(), r.error.message()).empty());
    return;
  }
  FUZZ_CHECK(r.asks_to_write == r.IsWrite());
  FUZZ_CHECK(r.index_id <= kMaxIndexIdValue);
  const bool find = r.type == RequestType::kFind;
  if (!find) {
    FUZZ_CHECK(r.key.empty() && r.in_values.empty() && r.filters.empty());
    FUZZ_CHECK(!r.has_in && r.modify == ModifyOp::kNone && r.modify_values.empty());
    FUZZ_CHECK(r.limit == 1 && r.offset == 0 && !r.return_rows);
  }
  if (r.type != RequestType::kInsert) FUZZ_CHECK(r.insert_values.empty());
  if (r.type != RequestType::kOpenIndex && r.type != RequestType::kDescribe)
    FUZZ_CHECK(r.db.empty() && r.table.empty() && r.index.empty());
  if (r.type != RequestType::kOpenIndex)
    FUZZ_CHECK(r.columns.empty() && r.filter_columns.empty());
  if (r.type != RequestType::kAuth) FUZZ_CHECK(r.auth_type.empty() && r.auth_key.empty());
  switch (r.type) {
    case RequestType::kAuth:
      FUZZ_CHECK(r.index_id == 0);
      break;
    case RequestType::kInsert:
      FUZZ_CHECK(!r.insert_values.empty());
      break;
    case RequestType::kFind:
      FUZZ_CHECK(!r.key.empty() && r.limit >= 1);
      FUZZ_CHECK(r.has_in == !r.in_values.empty());
      if (!r.has_in) FUZZ_CHECK(r.in_key_part == 0);
      if (r.modify == ModifyOp::kNone) FUZZ_CHECK(!r.return_rows && r.modify_values.empty());
      if (r.modify == ModifyOp::kDelete) FUZZ_CHECK(r.modify_values.empty());
      break;
    case RequestType::kDescribe:
      FUZZ_CHECK(r.index_id == 0);
      break;
    case RequestType::kOpenIndex:
    case RequestType::kInvalid:
      break;
  }
}

// Field-by-field equality, one check per field so that a failure names it.
bool SameValue(const WireValue& a, const WireValue& b) {
  return a.is_null == b.is_null && a.view() == b.view();
}

bool SameValues(const std::vector<WireValue>& a, const std::vector<WireValue>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), SameValue);
}

void CheckSame(const Request& a, const Request& b) {
  FUZZ_CHECK(a.type == b.type);
  FUZZ_CHECK(a.error == b.error);
  FUZZ_CHECK(a.index_id == b.index_id);
  FUZZ_CHECK(a.db == b.db && a.table == b.table && a.index == b.index);
  FUZZ_CHECK(a.columns == b.columns && a.filter_columns == b.filter_columns);
  FUZZ_CHECK(a.auth_type == b.auth_type && a.auth_key == b.auth_key);
  FUZZ_CHECK(a.op == b.op);
  FUZZ_CHECK(SameValues(a.key, b.key));
  FUZZ_CHECK(a.limit == b.limit && a.offset == b.offset);
  FUZZ_CHECK(a.has_in == b.has_in && a.in_key_part == b.in_key_part);
  FUZZ_CHECK(SameValues(a.in_values, b.in_values));
  FUZZ_CHECK(a.filters.size() == b.filters.size());
  for (size_t i = 0; i < a.filters.size(); ++i) {
    const RequestFilter& f = a.filters[i];
    const RequestFilter& g = b.filters[i];
    FUZZ_CHECK(f.kind == g.kind && f.op == g.op && f.column == g.column);
    FUZZ_CHECK(SameValue(f.value, g.value));
  }
  FUZZ_CHECK(a.modify == b.modify && a.return_rows == b.return_rows);
  FUZZ_CHECK(SameValues(a.modify_values, b.modify_values));
  FUZZ_CHECK(SameValues(a.insert_values, b.insert_values));
  FUZZ_CHECK(a.asks_to_write == b.asks_to_write);
}

// Sets every field of `r` away from its default, as an earlier line could have.
void Dirty(Request* r) {
  static const char kJunk[] = "junk";
  const WireValue junk = WireValue::Of(kJunk);
  r->type = RequestType::kFind;
  r->error = WireStatus::BadRequest("junk");
  r->index_id = 7;
  r->db = r->table = r->index = r->columns = r->filter_columns = kJunk;
  r->auth_type = r->auth_key = kJunk;
  r->op = FindOp::kLe;
  r->key.assign(3, junk);
  r->limit = 9;
  r->offset = 9;
  r->has_in = true;
  r->in_key_part = 9;
  r->in_values.assign(2, WireValue::Null());
  r->filters.assign(2, RequestFilter{FilterKind::kStop, CompareOp::kGe, 9, junk});
  r->modify = ModifyOp::kDecrement;
  r->return_rows = true;
  r->modify_values.assign(2, junk);
  r->insert_values.assign(2, junk);
  r->asks_to_write = true;
}

// Canonical form: every part written out, values encoded with the codec.
void Put(std::string* line, std::string_view raw) {
  line->push_back('\t');
  AppendEncoded(line, raw);
}
void Put(std::string* line, const WireValue& v) {
  line->push_back('\t');
  if (v.is_null) AppendNull(line); else AppendEncoded(line, v.view());
}
void PutNumber(std::string* line, uint64_t n) {
  line->push_back('\t');
  line->append(std::to_string(n));
}
void PutCounted(std::string* line, const std::vector<WireValue>& values) {
  PutNumber(line, values.size());
  for (const WireValue& v : values) Put(line, v);
}

std::string Canonical(const Request& r) {
  static const char* const kFindOps[] = {"=", ">", ">=", "<", "<="};
  static const char* const kCompareOps[] = {"=", "!=", "<", "<=", ">", ">="};
  static const char* const kModifyOps[] = {"", "U", "+", "-", "D"};
  std::string line;
  switch (r.type) {
    case RequestType::kOpenIndex:
      line = "P";
      PutNumber(&line, r.index_id);
      for (std::string_view name : {r.db, r.table, r.index, r.columns, r.filter_columns}) {
        Put(&line, name);
      }
      break;
    case RequestType::kDescribe:
      line = std::string(kDescribeCommand);
      for (std::string_view name : {r.db, r.table, r.index}) Put(&line, name);
      break;
    case RequestType::kAuth:
      line = "A";
      Put(&line, r.auth_type);
      Put(&line, r.auth_key);
      break;
    case RequestType::kInsert:
      line = std::to_string(r.index_id) + "\t+";
      PutCounted(&line, r.insert_values);
      break;
    case RequestType::kFind:
      line = std::to_string(r.index_id) + "\t" + kFindOps[static_cast<int>(r.op)];
      PutCounted(&line, r.key);
      PutNumber(&line, r.limit);
      PutNumber(&line, r.offset);
      if (r.has_in) {
        line.append("\t@");
        PutNumber(&line, r.in_key_part);
        PutCounted(&line, r.in_values);
      }
      for (const RequestFilter& f : r.filters) {
        line.append(f.kind == FilterKind::kSkip ? "\tF\t" : "\tW\t");
        line.append(kCompareOps[static_cast<int>(f.op)]);
        PutNumber(&line, f.column);
        Put(&line, f.value);
      }
      if (r.modify != ModifyOp::kNone) {
        line.push_back('\t');
        line.append(kModifyOps[static_cast<int>(r.modify)]);
        if (r.return_rows) line.push_back('?');
        for (const WireValue& v : r.modify_values) Put(&line, v);
      }
      break;
    case RequestType::kInvalid:
      FUZZ_CHECK(false);
  }
  return line;
}

}  // namespace
}  // namespace rowsocket

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rowsocket;
  const std::string_view original(reinterpret_cast<const char*>(data), size);

  // Guide: parse into a fresh Request and check it.
  fuzz::LineCopy line(original);
  Request fresh;
  ParseRequest(line.data(), line.size(), &fresh);
  CheckShape(fresh);
  CheckPlacement(fresh, line, original);

  // Guide: a Request left full by an earlier line parses the same.
  static Request reused;
  Dirty(&reused);
  fuzz::LineCopy again(original);
  ParseRequest(again.data(), again.size(), &reused);
  CheckSame(fresh, reused);

  // Guide: the canonical form of a valid request parses back to it.
  if (fresh.type != RequestType::kInvalid) {
    const std::string canonical = Canonical(fresh);
    fuzz::LineCopy canonical_line(canonical);
    Request round_trip;
    ParseRequest(canonical_line.data(), canonical_line.size(), &round_trip);
    CheckSame(fresh, round_trip);
    CheckShape(round_trip);
    CheckPlacement(round_trip, canonical_line, canonical);
  }
  return 0;
}
