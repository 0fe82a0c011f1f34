// The request parser: one line of the wire protocol in, one Request out.
//
// Called by the server's connection code on its event-loop thread, once per
// complete line, usually many times over one input buffer when a client pipelines.
// The line is walked once, left to right: a cursor cuts the next token at the next
// TAB, syntax tokens (numbers, operators) are compared as sent, and value tokens are
// decoded in place, so parsing copies no bytes and allocates only when a Request's
// vectors must grow past their largest shape so far.
//
// Every way a line can be malformed is a ParseError; ErrorFor() is the one table
// that maps them onto the wire's errors (wire_errors.h).
#include "protocol/request.h"

#include <cstring>

#include "protocol/codec.h"
#include "protocol/decimal.h"
#include "protocol/wire_errors.h"

namespace rowsocket {

namespace {

// What is wrong with a line. Finer-grained than the wire messages, so that each
// case can be mapped on its own in ErrorFor().
enum class ParseError : uint8_t {
  kNone,
  kUnknownCommand,      // first token is not P, A, ?describe, or a decimal index id
  kBadIndexId,          // index id overflows or exceeds kMaxIndexIdValue
  kOpenIndexArity,      // P without an index id
  kAuthArity,           // A without a type
  kDescribeArity,       // ?describe without a db and a table, or with more than an index
  kMissingOp,           // <id> alone
  kBadFindOp,           // op is not =, >, >=, <, <=
  kBadKeyCount,         // find key count missing, not decimal, or 0
  kMissingKeyValues,    // fewer key values than the count says
  kBadLimit,            // limit overflows
  kBadOffset,           // limit followed by a token that is not an offset
  kBadInHeader,         // @ without a decimal key part and a count of at least 1
  kMissingInValues,     // fewer IN values than the count says
  kShortFilter,         // F/W without op, column and value
  kBadFilterOp,         // filter op is not =, !=, <, <=, >, >=
  kBadFilterColumn,     // filter column is not decimal
  kBadFilterType,       // token in filter position that starts with F or W but is neither
  kBadModifyOp,         // any other token in filter position that is not a mop
  kBadInsertCount,      // insert count missing, not decimal, or 0
  kInsertValueCount,    // insert with more or fewer values than the count says
};

// The wire error for each ParseError. Adjust here, and only here.
WireError ErrorFor(ParseError error) {
  switch (error) {
    case ParseError::kNone:              break;
    case ParseError::kUnknownCommand:    return WireError::kCmd;
    case ParseError::kBadIndexId:        return WireError::kStmtNum;
    case ParseError::kOpenIndexArity:    return WireError::kSyntax;
    case ParseError::kAuthArity:         return WireError::kAuthType;
    case ParseError::kDescribeArity:     return WireError::kSyntax;
    case ParseError::kMissingOp:         return WireError::kOp;
    case ParseError::kBadFindOp:         return WireError::kOp;
    case ParseError::kBadKeyCount:       return WireError::kKlen;
    case ParseError::kMissingKeyValues:  return WireError::kKlen;
    case ParseError::kBadLimit:          return WireError::kSyntax;
    case ParseError::kBadOffset:         return WireError::kSyntax;
    case ParseError::kBadInHeader:       return WireError::kInValuesLen;
    case ParseError::kMissingInValues:   return WireError::kInValuesLen;
    case ParseError::kShortFilter:       return WireError::kSyntax;
    case ParseError::kBadFilterOp:       return WireError::kOp;
    case ParseError::kBadFilterColumn:   return WireError::kSyntax;
    case ParseError::kBadFilterType:     return WireError::kFilterType;
    case ParseError::kBadModifyOp:       return WireError::kModOp;
    case ParseError::kBadInsertCount:    return WireError::kKlen;
    case ParseError::kInsertValueCount:  return WireError::kKlen;
  }
  return WireError::kSyntax;
}

// One raw token: a slice of the line, not yet decoded.
struct Token {
  char* data = nullptr;
  size_t size = 0;

  std::string_view view() const { return std::string_view(data, size); }
  bool Is(std::string_view s) const { return view() == s; }
  bool IsNull() const { return size == 1 && data[0] == '\0'; }
  bool IsDigits() const {
    if (size == 0) return false;
    for (size_t i = 0; i < size; ++i) {
      if (data[i] < '0' || data[i] > '9') return false;
    }
    return true;
  }
};

// Cuts a line into TAB-separated tokens, left to right. A line of n TABs has n + 1
// tokens, so an empty line is one empty token and a trailing TAB one more.
class TokenCursor {
 public:
  TokenCursor(char* line, size_t size) : next_(line), end_(line + size) {}

  // Looks at the next token without taking it; false when none is left.
  bool Peek(Token* token) const {
    if (done_) return false;
    const size_t left = static_cast<size_t>(end_ - next_);
    const void* tab = left > 0 ? std::memchr(next_, '\t', left) : nullptr;
    token->data = next_;
    token->size = static_cast<size_t>((tab ? static_cast<const char*>(tab) : end_) - next_);
    return true;
  }

  // Takes the next token; false when none is left.
  bool Next(Token* token) {
    if (!Peek(token)) return false;
    next_ = token->data + token->size;
    if (next_ == end_) done_ = true; else ++next_;  // step over the TAB
    return true;
  }

  bool AtEnd() const { return done_; }

 private:
  char* next_;         // start of the next token
  char* end_;          // end of the line
  bool done_ = false;  // the last token has been taken
};

// A token as a decimal uint32 (decimal.h).
bool ParseDecimal(const Token& token, uint32_t* value) {
  return ::rowsocket::ParseDecimal(token.view(), value);
}

bool ParseFindOp(const Token& t, FindOp* op) {
  if (t.Is("=")) { *op = FindOp::kEq; return true; }
  if (t.Is(">")) { *op = FindOp::kGt; return true; }
  if (t.Is(">=")) { *op = FindOp::kGe; return true; }
  if (t.Is("<")) { *op = FindOp::kLt; return true; }
  if (t.Is("<=")) { *op = FindOp::kLe; return true; }
  return false;
}

bool ParseCompareOp(const Token& t, CompareOp* op) {
  if (t.Is("=")) { *op = CompareOp::kEq; return true; }
  if (t.Is("!=")) { *op = CompareOp::kNe; return true; }
  if (t.Is("<")) { *op = CompareOp::kLt; return true; }
  if (t.Is("<=")) { *op = CompareOp::kLe; return true; }
  if (t.Is(">")) { *op = CompareOp::kGt; return true; }
  if (t.Is(">=")) { *op = CompareOp::kGe; return true; }
  return false;
}

bool ParseFilterKind(const Token& t, FilterKind* kind) {
  if (t.Is("F")) { *kind = FilterKind::kSkip; return true; }
  if (t.Is("W")) { *kind = FilterKind::kStop; return true; }
  return false;
}

// U, +, -, D, each optionally followed by `?`.
bool ParseModifyOp(const Token& t, ModifyOp* op, bool* return_rows) {
  if (t.size == 0 || t.size > 2) return false;
  if (t.size == 2 && t.data[1] != '?') return false;
  switch (t.data[0]) {
    case 'U': *op = ModifyOp::kUpdate; break;
    case '+': *op = ModifyOp::kIncrement; break;
    case '-': *op = ModifyOp::kDecrement; break;
    case 'D': *op = ModifyOp::kDelete; break;
    default: return false;
  }
  *return_rows = t.size == 2;
  return true;
}

// An unknown token where a filter or the modify part may stand is a bad filter
// type when it starts like one ("FX", "WW"), and a bad modify op otherwise ("Z",
// "u", "extra") — the answers existing clients get from the original plugin.
bool LooksLikeFilter(const Token& t) {
  return t.size > 0 && (t.data[0] == 'F' || t.data[0] == 'W');
}

// Decodes a value token in place.
WireValue DecodeValue(const Token& t) {
  if (t.IsNull()) return WireValue::Null();
  return WireValue::Of(std::string_view(t.data, DecodeInPlace(t.data, t.size)));
}

// Decodes a name token (db, table, ...) in place; NULL reads as empty.
std::string_view DecodeName(const Token& t) {
  if (t.IsNull()) return std::string_view(t.data, 0);
  return std::string_view(t.data, DecodeInPlace(t.data, t.size));
}

class Parser {
 public:
  Parser(char* line, size_t size, Request* out) : tokens_(line, size), out_(out) {}

  ParseError Parse() {
    Token first;
    tokens_.Next(&first);  // a line always has a first token, maybe empty
    if (first.Is("P")) return ParseOpenIndex();
    if (first.Is("A")) return ParseAuth();
    if (first.Is(kDescribeCommand)) return ParseDescribe();
    if (!first.IsDigits()) return ParseError::kUnknownCommand;
    if (!ParseIndexId(first)) return ParseError::kBadIndexId;

    Token op_token;
    if (!tokens_.Next(&op_token)) return ParseError::kMissingOp;
    if (op_token.Is("+")) return ParseInsert();
    if (!ParseFindOp(op_token, &out_->op)) return ParseError::kBadFindOp;
    return ParseFind();
  }

 private:
  bool ParseIndexId(const Token& t) {
    return ParseDecimal(t, &out_->index_id) && out_->index_id <= kMaxIndexIdValue;
  }

  // Takes `n` value tokens into `values`; false if the line ends first.
  bool TakeValues(uint32_t n, std::vector<WireValue>* values) {
    Token t;
    for (uint32_t i = 0; i < n; ++i) {
      if (!tokens_.Next(&t)) return false;
      values->push_back(DecodeValue(t));
    }
    return true;
  }

  // P <indexid> <db> <table> <index> <columns> [<fcolumns>]. Names after the id
  // that the line leaves out read as empty, and tokens after <fcolumns> are
  // ignored, as the original plugin reads them: `P 1 db t` opens db.t's primary
  // key with no columns (enough to delete through), and an empty db or table
  // fails to open like any unknown one.
  ParseError ParseOpenIndex() {
    Token id;
    if (!tokens_.Next(&id)) return ParseError::kOpenIndexArity;
    if (!ParseIndexId(id)) return ParseError::kBadIndexId;
    out_->type = RequestType::kOpenIndex;
    std::string_view* const names[] = {&out_->db, &out_->table, &out_->index,
                                       &out_->columns, &out_->filter_columns};
    Token name;
    for (std::string_view* field : names) {
      if (!tokens_.Next(&name)) break;
      *field = DecodeName(name);
    }
    return ParseError::kNone;
  }

  // A <atyp> <akey> [<arg>]. A missing key reads as empty (it then fails to match
  // the secret: `unauth`); the token after the key is the account logins' response
  // or password; tokens after it are ignored, as existing clients expect.
  ParseError ParseAuth() {
    Token type, key, arg;
    if (!tokens_.Next(&type)) return ParseError::kAuthArity;
    out_->type = RequestType::kAuth;
    out_->auth_type = DecodeName(type);
    if (tokens_.Next(&key)) out_->auth_key = DecodeName(key);
    if (tokens_.Next(&arg)) out_->auth_arg = DecodeName(arg);
    return ParseError::kNone;
  }

  // ?describe <db> <table> [<index>]. Our own request is read strictly, so that
  // arguments a later version may add are refused here rather than ignored: a
  // db and a table, then at most an index (left out: the primary key, as `P` reads
  // an empty name).
  ParseError ParseDescribe() {
    std::string_view* const names[] = {&out_->db, &out_->table, &out_->index};
    Token name;
    size_t given = 0;
    for (std::string_view* field : names) {
      if (!tokens_.Next(&name)) break;
      *field = DecodeName(name);
      ++given;
    }
    if (given < 2 || !tokens_.AtEnd()) return ParseError::kDescribeArity;
    out_->type = RequestType::kDescribe;
    return ParseError::kNone;
  }

  // <indexid> + <n> <v1..vn>, after the `+`. An empty token after the values (the
  // line ends with a TAB) adds nothing.
  ParseError ParseInsert() {
    Token t;
    uint32_t n;
    if (!tokens_.Next(&t) || !ParseDecimal(t, &n) || n == 0) return ParseError::kBadInsertCount;
    out_->asks_to_write = true;  // a count that reads (the original's order)
    if (!TakeValues(n, &out_->insert_values)) return ParseError::kInsertValueCount;
    if (tokens_.Next(&t) && !(t.size == 0 && tokens_.AtEnd())) {
      return ParseError::kInsertValueCount;
    }
    out_->type = RequestType::kInsert;
    return ParseError::kNone;
  }

  // Takes an optional number: a token of digits, or an empty token, which stands
  // for the number left out (as from a client that ends its line with a TAB).
  // Leaves any other token for the next part of the request. Sets *taken when it
  // took a token; false only when the number overflows.
  bool TakeOptionalNumber(uint32_t* value, bool* taken) {
    Token t;
    *taken = tokens_.Peek(&t) && (t.size == 0 || t.IsDigits());
    if (!*taken) return true;
    tokens_.Next(&t);
    return t.size == 0 || ParseDecimal(t, value);
  }

  // <indexid> <op> <n> <v1..vn> [<limit> [<offset>]] [@ ...] [<F|W> ...]... [<mop> ...],
  // after the op.
  ParseError ParseFind() {
    Token t;
    uint32_t n;

    // Key values.
    if (!tokens_.Next(&t) || !ParseDecimal(t, &n) || n == 0) return ParseError::kBadKeyCount;
    if (!TakeValues(n, &out_->key)) return ParseError::kMissingKeyValues;

    // Limit and offset. Clients leave the offset out when it is 0 and nothing
    // follows, and send a limit of 0 when their caller gave none: that is the
    // default, 1, as in the original plugin. Anything but an offset right after a
    // limit is an error, not the next part: the original reads that token as the
    // offset, so `<limit> D` is a find there, and must not be a delete here.
    bool taken;
    if (!TakeOptionalNumber(&out_->limit, &taken)) return ParseError::kBadLimit;
    if (out_->limit == 0) out_->limit = 1;
    if (taken) {
      if (!TakeOptionalNumber(&out_->offset, &taken)) return ParseError::kBadOffset;
      if (!taken && !tokens_.AtEnd()) return ParseError::kBadOffset;
    }

    // IN: @ <key part> <m> <v1..vm>.
    if (tokens_.Peek(&t) && t.Is("@")) {
      tokens_.Next(&t);
      Token part, count;
      uint32_t m;
      if (!tokens_.Next(&part) || !ParseDecimal(part, &out_->in_key_part) ||
          !tokens_.Next(&count) || !ParseDecimal(count, &m) || m == 0) {
        return ParseError::kBadInHeader;
      }
      if (!TakeValues(m, &out_->in_values)) return ParseError::kMissingInValues;
      out_->has_in = true;
    }

    // Filters, then at most one modify part, which takes the rest of the line. An
    // empty last token (the line ends with a TAB) adds nothing.
    while (tokens_.Next(&t)) {
      if (t.size == 0 && tokens_.AtEnd()) break;
      FilterKind kind;
      if (ParseFilterKind(t, &kind)) {
        const ParseError error = ParseFilter(kind);
        if (error != ParseError::kNone) return error;
        continue;
      }
      if (LooksLikeFilter(t)) return ParseError::kBadFilterType;
      out_->asks_to_write = true;
      if (ParseModifyOp(t, &out_->modify, &out_->return_rows)) return ParseModify();
      return ParseError::kBadModifyOp;
    }
    out_->type = RequestType::kFind;
    return ParseError::kNone;
  }

  // <fop> <fcol> <fval>, after the F or W.
  ParseError ParseFilter(FilterKind kind) {
    Token op, column, value;
    if (!tokens_.Next(&op) || !tokens_.Next(&column) || !tokens_.Next(&value)) {
      return ParseError::kShortFilter;
    }
    RequestFilter filter;
    filter.kind = kind;
    if (!ParseCompareOp(op, &filter.op)) return ParseError::kBadFilterOp;
    if (!ParseDecimal(column, &filter.column)) return ParseError::kBadFilterColumn;
    filter.value = DecodeValue(value);
    out_->filters.push_back(filter);
    return ParseError::kNone;
  }

  // <m1..mk>, after the mop: every remaining token. A delete has no use for values
  // and ignores any it is sent, as the original plugin does.
  ParseError ParseModify() {
    Token t;
    while (tokens_.Next(&t)) {
      if (out_->modify != ModifyOp::kDelete) out_->modify_values.push_back(DecodeValue(t));
    }
    out_->type = RequestType::kFind;
    return ParseError::kNone;
  }

  TokenCursor tokens_;
  Request* out_;
};

}  // namespace

void Request::Clear() {
  category = RequestCategory::kInvalid;
  type = RequestType::kInvalid;
  error = WireStatus::OK();
  index_id = 0;
  db = table = index = columns = filter_columns = std::string_view();
  auth_type = auth_key = auth_arg = std::string_view();
  op = FindOp::kEq;
  key.clear();
  limit = 1;
  offset = 0;
  has_in = false;
  in_key_part = 0;
  in_values.clear();
  filters.clear();
  modify = ModifyOp::kNone;
  return_rows = false;
  modify_values.clear();
  modify_columns.clear();
  insert_values.clear();
  asks_to_write = false;
}

void ParseRequest(char* line, size_t size, Request* out) {
  out->Clear();
  const ParseError error = Parser(line, size, out).Parse();
  if (error != ParseError::kNone) {
    out->type = RequestType::kInvalid;
    // (A bare `A` is an authentication failure, code 3, as for any bad type.)
    out->error = ErrorStatus(ErrorFor(error));
  }
}

RequestCategory CategoryOf(const Request& r) {
  switch (r.type) {
    case RequestType::kOpenIndex: return RequestCategory::kOpen;
    case RequestType::kDescribe: return RequestCategory::kOpen;  // reads what `P` opens
    case RequestType::kAuth: return RequestCategory::kAuth;
    case RequestType::kInsert: return RequestCategory::kInsert;
    case RequestType::kInvalid: return RequestCategory::kInvalid;
    case RequestType::kFind:
      if (r.modify == ModifyOp::kNone) return RequestCategory::kFind;
      return r.modify == ModifyOp::kDelete ? RequestCategory::kDelete : RequestCategory::kUpdate;
  }
  return RequestCategory::kInvalid;
}

}  // namespace rowsocket
