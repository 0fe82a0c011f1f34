// Writes answers in the HandlerSocket wire format.
//
// An answer is one line of TAB-separated tokens ending with LF. Success is
// `0 <n> ...`, an error `<code> 1 <message>`. A ResponseWriter appends to a
// caller-owned buffer (usually a connection's output buffer), so many answers of a
// batch land in one buffer and leave in one write. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/engine_status.h"
#include "protocol/wire_status.h"

namespace rowsocket {

class ResponseWriter {
 public:
  explicit ResponseWriter(std::string* out) : out_(out) {}

  // `0\t1\n`: open index, auth, insert without AUTO_INCREMENT.
  void Ok();
  // `0\t1\t<n>\n`: rows changed by a modify, or an insert's AUTO_INCREMENT id.
  void OkWithNumber(uint64_t n);
  // `<code>\t1\t<message>\n`; `status` must not be OK.
  void Error(const WireStatus& status);
  // Writes OK() or Error(status).
  void Result(const WireStatus& status) { status.ok() ? Ok() : Error(status); }
  // The engine's status in HandlerSocket's words (HsWireStatus).
  void Error(const EngineStatus& status);
  void Result(const EngineStatus& status) { status.ok() ? Ok() : Error(status); }

  // Row answers: BeginRows(ncols), then any number of values, then EndRows().
  // Values are flattened row after row; the caller writes ncols per row.
  void BeginRows(uint32_t ncols);
  void WireValue(std::string_view raw);       // encoded on the way out
  void IntegerValue(int64_t v);           // fast path, no encoding needed
  void UnsignedValue(uint64_t v);         // fast path, no encoding needed
  void NullValue();
  void EndRows();

  // Undo support: size of the buffer now, and a rollback to it (used when a batch
  // must rewrite an answer it had started, e.g. after a deadlock). A mark past the
  // end changes nothing: a truncation never adds bytes.
  size_t Mark() const { return out_->size(); }
  void Truncate(size_t mark) {
    if (mark < out_->size()) out_->resize(mark);
  }

 private:
  std::string* out_;
};

}  // namespace rowsocket
