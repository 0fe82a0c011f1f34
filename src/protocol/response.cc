// ResponseWriter: appends answers in the HandlerSocket wire format.
//
// Called by the server's connection code and by the engine while it executes a
// batch, always on the thread that owns the output buffer. Every answer is built by
// appending straight into that buffer; integers are formatted with std::to_chars,
// so writing an answer allocates only when the buffer itself has to grow.
#include "protocol/response.h"

#include <charconv>

#include "protocol/codec.h"
#include "protocol/handlersocket_status.h"

namespace rowsocket {

namespace {

// Appends the decimal form of `v`; digits never need encoding.
template <typename Int>
void AppendDecimal(std::string* out, Int v) {
  char buf[24];  // 20 digits of uint64 max, or a sign and 19 digits
  auto result = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, static_cast<size_t>(result.ptr - buf));
}

}  // namespace

void ResponseWriter::Ok() { out_->append("0\t1\n", 4); }

void ResponseWriter::OkWithNumber(uint64_t n) {
  out_->append("0\t1\t", 4);
  AppendDecimal(out_, n);
  out_->push_back('\n');
}

void ResponseWriter::Error(const WireStatus& status) {
  AppendDecimal(out_, static_cast<unsigned>(status.code()));
  out_->append("\t1", 2);
  const std::string_view message = status.message();
  if (!message.empty()) {
    out_->push_back('\t');
    AppendEncoded(out_, message);
  }
  out_->push_back('\n');
}

void ResponseWriter::Error(const EngineStatus& status) { Error(HsWireStatus(status)); }

void ResponseWriter::BeginRows(uint32_t ncols) {
  out_->append("0\t", 2);
  AppendDecimal(out_, ncols);
}

void ResponseWriter::WireValue(std::string_view raw) {
  out_->push_back('\t');
  AppendEncoded(out_, raw);
}

void ResponseWriter::IntegerValue(int64_t v) {
  out_->push_back('\t');
  AppendDecimal(out_, v);
}

void ResponseWriter::UnsignedValue(uint64_t v) {
  out_->push_back('\t');
  AppendDecimal(out_, v);
}

void ResponseWriter::NullValue() {
  const char token[2] = {'\t', '\0'};
  out_->append(token, 2);
}

void ResponseWriter::EndRows() { out_->push_back('\n'); }

}  // namespace rowsocket
