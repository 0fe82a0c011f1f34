// Batch: encodes each request as it is added.
//
// A request is encoded once, into the batch's one buffer, as the line that follows
// its index id (`=\t1\t101\t1\t0`); the connection adds the id it uses for the index
// when it sends the batch. Every value goes through the protocol layer's codec, the
// same code the server decodes with. Anything that cannot be sent (a bad operator, a
// filter column name the Index lacks) is kept as a usage error for that request
// only. Called on the thread that owns the Batch.
#include <charconv>
#include <string>

#include "protocol/codec.h"
#include "rowsocket/batch.h"

namespace rowsocket {
namespace client {

namespace {

void AppendValue(std::string* out, const Value& v) {
  out->push_back('\t');
  if (v.is_null()) {
    ::rowsocket::AppendNull(out);
  } else {
    ::rowsocket::AppendEncoded(out, v.view());
  }
}

void AppendNumber(std::string* out, uint64_t n) {
  char buf[24];
  auto result = std::to_chars(buf, buf + sizeof(buf), n);
  out->push_back('\t');
  out->append(buf, static_cast<size_t>(result.ptr - buf));
}

void AppendValues(std::string* out, const Row& values) {
  AppendNumber(out, values.size());
  for (const Value& v : values) AppendValue(out, v);
}

const char* OpText(Op op) {
  switch (op) {
    case Op::kEq: return "=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
  }
  return "=";
}

bool ValidFilterOp(const std::string& op) {
  return op == "=" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

// Appends the find part of a request (no index id, no modify part). Returns a
// usage error text, or "" when the query could be encoded.
std::string AppendQuery(std::string* out, const IndexRef& index, const Query& q) {
  if (!q.valid_op()) return "unknown find operator (use = > >= < <=)";
  if (q.key().empty()) return "a find needs at least one key value";
  out->append(OpText(q.op()));
  AppendValues(out, q.key());
  AppendNumber(out, q.limit());
  AppendNumber(out, q.offset());
  if (q.has_in()) {
    out->append("\t@");
    AppendNumber(out, q.in_key_part());
    AppendValues(out, q.in_values());
  }
  for (const Filter& f : q.filters()) {
    if (!ValidFilterOp(f.op)) return "unknown filter operator '" + f.op + "' (use = != < <= > >=)";
    uint32_t column = f.column;
    if (!f.name.empty()) {
      const int position = index.is_id() ? -1 : index.index().FilterPosition(f.name);
      if (position < 0) return "filter column '" + f.name + "' is not a filter column of the index";
      column = static_cast<uint32_t>(position);
    }
    out->append(f.stop ? "\tW\t" : "\tF\t");
    out->append(f.op);
    AppendNumber(out, column);
    AppendValue(out, f.value);
  }
  return {};
}

}  // namespace

size_t Batch::Add(RequestKind kind, const IndexRef& index, size_t begin, std::string refused) {
  if (!refused.empty()) wire_.resize(begin);  // drop what was half-encoded
  items_.push_back(Item{kind, index, begin, wire_.size(), std::move(refused)});
  if (kind == RequestKind::kInsert || kind == RequestKind::kModify ||
      kind == RequestKind::kModifyReturning) {
    has_writes_ = true;
  }
  return items_.size() - 1;
}

size_t Batch::Auth(std::string_view secret) {
  const size_t begin = wire_.size();
  wire_.append("A\t1\t");
  ::rowsocket::AppendEncoded(&wire_, secret);
  return Add(RequestKind::kAuth, IndexRef(0u), begin, {});
}

size_t Batch::OpenIndex(uint32_t id, const Index& index) {
  const size_t begin = wire_.size();
  if (index.empty()) return Add(RequestKind::kOpenIndex, IndexRef(id), begin, "empty Index");
  wire_.append("P");
  AppendNumber(&wire_, id);
  wire_.push_back('\t');
  wire_.append(index.key());
  return Add(RequestKind::kOpenIndex, IndexRef(id), begin, {});
}

size_t Batch::Find(const IndexRef& index, const Query& query) {
  const size_t begin = wire_.size();
  std::string refused = AppendQuery(&wire_, index, query);
  return Add(RequestKind::kFind, index, begin, std::move(refused));
}

size_t Batch::AddModify(const IndexRef& index, const Query& query, std::string_view mop,
                        const Row& values, RequestKind kind) {
  const size_t begin = wire_.size();
  std::string refused = AppendQuery(&wire_, index, query);
  if (refused.empty()) {
    wire_.push_back('\t');
    wire_.append(mop);
    for (const Value& v : values) AppendValue(&wire_, v);
  }
  return Add(kind, index, begin, std::move(refused));
}

size_t Batch::Update(const IndexRef& index, const Query& query, Row values) {
  return AddModify(index, query, "U", values, RequestKind::kModify);
}

size_t Batch::Increment(const IndexRef& index, const Query& query, Row deltas) {
  return AddModify(index, query, "+", deltas, RequestKind::kModify);
}

size_t Batch::Decrement(const IndexRef& index, const Query& query, Row deltas) {
  return AddModify(index, query, "-", deltas, RequestKind::kModify);
}

size_t Batch::Remove(const IndexRef& index, const Query& query) {
  return AddModify(index, query, "D", {}, RequestKind::kModify);
}

size_t Batch::FindAndModify(const IndexRef& index, const Query& query, const Modify& modify) {
  const char* mop = "U?";
  switch (modify.kind()) {
    case Modify::Kind::kUpdate: mop = "U?"; break;
    case Modify::Kind::kIncrement: mop = "+?"; break;
    case Modify::Kind::kDecrement: mop = "-?"; break;
    case Modify::Kind::kDelete: mop = "D?"; break;
  }
  return AddModify(index, query, mop, modify.values(), RequestKind::kModifyReturning);
}

size_t Batch::Insert(const IndexRef& index, Row values) {
  const size_t begin = wire_.size();
  if (values.empty()) return Add(RequestKind::kInsert, index, begin, "an insert needs values");
  wire_.push_back('+');
  AppendValues(&wire_, values);
  return Add(RequestKind::kInsert, index, begin, {});
}

void Batch::Clear() {
  items_.clear();
  wire_.clear();
  has_writes_ = false;
}

}  // namespace client
}  // namespace rowsocket
