// Batch: many requests sent in one write, their answers read back in order.
//
// The protocol lets a client pipeline: write many request lines, then read one
// answer line per request. A Batch collects requests (each call returns the
// request's position); Connection::Execute sends them all at once and returns a
// BatchResult with one Result<Reply> per request, in the same positions.
//
// Partial failures are explicit. A request the server refused has a kServer error
// and the requests after it still run. When the connection breaks part-way,
// BatchResult::answered says how many answers arrived: every reply before it is the
// server's real answer, every reply from it on is a kIo error, and those requests
// may or may not have run. A request refused locally (kUsage) is not sent at all.
// A Batch is a plain value, reusable after Clear(); thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rowsocket/query.h"
#include "rowsocket/result.h"
#include "rowsocket/value.h"

namespace rowsocket {
namespace client {

// The shape of answer a request expects.
enum class RequestKind {
  kAuth,             // A:            `0 1`
  kOpenIndex,        // P:            `0 1`
  kFind,             // find:         rows
  kModify,           // U + - D:      a count of rows changed
  kModifyReturning,  // U? +? -? D?:  the rows as they were before
  kInsert,           // +:            `0 1`, or `0 1 <id>` with AUTO_INCREMENT
};

// The successful answer to one request.
class Reply {
 public:
  Reply() = default;
  Reply(RequestKind kind, Rows rows, uint64_t number)
      : kind_(kind), rows_(std::move(rows)), number_(number) {}

  RequestKind kind() const { return kind_; }
  // kFind, kModifyReturning: the rows, each with one value per opened column.
  const Rows& rows() const { return rows_; }
  Rows& rows() { return rows_; }
  // kModify: rows changed.
  uint64_t count() const { return number_; }
  // kInsert: the AUTO_INCREMENT id this insert produced; 0 when the table has none.
  uint64_t insert_id() const { return number_; }

 private:
  RequestKind kind_ = RequestKind::kAuth;
  Rows rows_;
  uint64_t number_ = 0;
};

struct BatchResult {
  // One per request of the Batch, in the same positions.
  std::vector<Result<Reply>> replies;
  // Answers received before the connection broke (replies.size() when it did not).
  size_t answered = 0;

  // Every request answered, and answered with success.
  bool ok() const;
  // The first failed reply's error, or nullptr.
  const Error* first_error() const;
};

class Batch {
 public:
  // Each call appends one request and returns its position in the batch.
  size_t Auth(std::string_view secret);
  // P with an id the caller chose; prefer an Index as IndexRef, which opens itself.
  size_t OpenIndex(uint32_t id, const Index& index);
  size_t Find(const IndexRef& index, const Query& query);
  // Modify the rows `query` finds; the reply counts the rows changed.
  size_t Update(const IndexRef& index, const Query& query, Row values);
  size_t Increment(const IndexRef& index, const Query& query, Row deltas);
  size_t Decrement(const IndexRef& index, const Query& query, Row deltas);
  size_t Remove(const IndexRef& index, const Query& query);
  // Modify (the `?` forms); the reply holds the rows as they were before.
  size_t FindAndModify(const IndexRef& index, const Query& query, const Modify& modify);
  // Insert `values` into the first values.size() columns of the index.
  size_t Insert(const IndexRef& index, Row values);

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  // True when a request needs the write listener (insert or modify).
  bool has_writes() const { return has_writes_; }
  void Clear();

  // One request as the connection sends it (used by Connection; stable otherwise).
  struct Item {
    RequestKind kind;
    IndexRef index;          // unused for kAuth and kOpenIndex with an explicit id
    size_t begin, end;       // the encoded line after the index id, in wire()
    std::string refused;     // non-empty: a usage error; the request is not sent
  };
  const std::vector<Item>& items() const { return items_; }
  const std::string& wire() const { return wire_; }

 private:
  size_t Add(RequestKind kind, const IndexRef& index, size_t begin, std::string refused);
  size_t AddModify(const IndexRef& index, const Query& query, std::string_view mop,
                   const Row& values, RequestKind kind);

  std::vector<Item> items_;
  std::string wire_;  // encoded request tails, back to back
  bool has_writes_ = false;
};

}  // namespace client
}  // namespace rowsocket
