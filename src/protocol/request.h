// Requests of the HandlerSocket wire protocol, and the parser that makes them.
//
// ParseRequest turns one line (a request without its LF) into a Request. Tokens are
// decoded in place inside the line, so every WireValue and string_view of a Request
// points into the caller's line buffer: keep the buffer unchanged while the Request
// is in use. Requests are meant to be reused: Clear() keeps vector capacity, so a
// connection that parses many requests allocates only while its shapes grow.
//
// The parser checks shape only (token counts, numbers, operators); whether an index
// id is open, a column exists or a value fits is for the engine to say.
// Thread-compatible: a Request belongs to one thread at a time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "protocol/parsed_request.h"
#include "protocol/wire_status.h"

namespace rowsocket {

// A decoded value: a binary-safe string, or NULL.
struct WireValue {
  const char* data = nullptr;
  uint32_t size = 0;
  bool is_null = false;

  static WireValue Null() { WireValue v; v.is_null = true; return v; }
  static WireValue Of(std::string_view s) {
    WireValue v; v.data = s.data(); v.size = static_cast<uint32_t>(s.size()); return v;
  }
  std::string_view view() const { return std::string_view(data, size); }
};

enum class RequestType : uint8_t {
  kOpenIndex,  // P
  kAuth,       // A
  kFind,       // <id> <op> ...      (with modify != kNone: find and modify)
  kInsert,     // <id> + <n> <v...>
  kInvalid,    // could not be parsed; `error` says why
  kDescribe,   // ?describe <db> <table> [<index>]   (rowsocket's own; see below)
};

// rowsocket's own requests begin with `?`, as no HandlerSocket request does: the
// original plugin answers such a line `2 1 cmd`, so a client can tell the servers
// apart by asking. `?describe <db> <table> [<index>]` names a table and one of its
// indexes as `P` does (the index left out or empty: the primary key) and is
// answered with the table's columns that the connection's account has a privilege
// on, in table order, as rows of kDescribeFields values (docs/PROTOCOL.md):
//   name        the column's name;
//   key part    its position in the index's key, from 1; 0 when it is not a key part;
//   privileges  what the account may do with it, in SHOW FULL COLUMNS's words
//               (`select,insert,update,references`, or a part of that list).
// A later version may add fields after these; clients read the answer's column
// count and ignore fields past the ones they know.
constexpr std::string_view kDescribeCommand = "?describe";
constexpr uint32_t kDescribeFields = 3;

// Find operator: where the scan starts and in which direction it goes.
enum class FindOp : uint8_t { kEq, kGt, kGe, kLt, kLe };
// RequestFilter comparison.
enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
// F skips a row that fails the filter; W stops the scan at it.
enum class FilterKind : uint8_t { kSkip, kStop };
enum class ModifyOp : uint8_t { kNone, kUpdate, kIncrement, kDecrement, kDelete };

struct RequestFilter {
  FilterKind kind = FilterKind::kSkip;
  CompareOp op = CompareOp::kEq;
  uint32_t column = 0;  // position in the open index's filter columns
  WireValue value;
};

// (ParsedRequest::category: CategoryOf, set by the server once its rules have run.)
struct Request : ParsedRequest {
  RequestType type = RequestType::kInvalid;
  WireStatus error;  // set when type == kInvalid

  // Index id (P, find, insert).
  uint32_t index_id = 0;

  // P <id> <db> <table> <index> <columns> [<fcolumns>], and ?describe's names
  std::string_view db, table, index;
  std::string_view columns;         // comma-separated, as sent
  std::string_view filter_columns;  // comma-separated, may be empty

  // A <type> <key> [<arg>]: for account logins (types 2 to 4) the key is the
  // account's user name and the argument its response or password.
  std::string_view auth_type, auth_key, auth_arg;

  // Find: key values for the first key.size() key parts.
  FindOp op = FindOp::kEq;
  std::vector<WireValue> key;
  uint32_t limit = 1;
  uint32_t offset = 0;

  // IN: @ <key part> <n> <v1..vn>
  bool has_in = false;
  uint32_t in_key_part = 0;
  std::vector<WireValue> in_values;

  std::vector<RequestFilter> filters;

  // Modify part of a find.
  ModifyOp modify = ModifyOp::kNone;
  bool return_rows = false;  // the `?` forms: answer the rows as they were before
  std::vector<WireValue> modify_values;
  // U, +, -: the positions in the open index's columns that modify_values write, in
  // order; empty: the first modify_values.size() columns. Never parsed from the
  // wire: the engine's own requests change only the columns they are about, and
  // leave the others as they are.
  std::vector<uint32_t> modify_columns;

  // Insert: values for the open index's first insert_values.size() columns.
  std::vector<WireValue> insert_values;

  // Resets to an empty request, keeping vector capacity.
  void Clear();

  // The line asks for a change, even if it is malformed past that point: an
  // insert with a valid count, or a token where a modify operation goes that is not
  // a filter. (The read listener answers such lines `readonly`, as the original
  // plugin does.)
  bool asks_to_write = false;

  // Inserts and find-and-modify requests change rows.
  bool IsWrite() const {
    return type == RequestType::kInsert ||
           (type == RequestType::kFind && modify != ModifyOp::kNone);
  }
};

// Maximum accepted decimal value for an index id (ids index a per-connection table).
constexpr uint32_t kMaxIndexIdValue = 0x7fffffff;

// Parses `line[0..size)` (no LF, no trailing CR) into `*out`, decoding tokens in
// place. On a malformed line sets out->type = kInvalid and out->error to the wire
// error (code 2, e.g. "syntax", "op", "modop", "filtertype", "invalueslen").
void ParseRequest(char* line, size_t size, Request* out);

// What `request` counts as (P and ?describe: open; A: auth; U, +, -: update).
RequestCategory CategoryOf(const Request& request);

}  // namespace rowsocket
