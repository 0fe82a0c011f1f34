// ParseAnswer: one answer line in, one Answer out.
//
// Called by the client library (src/client) on the thread that owns a connection,
// once per LF-terminated line it has read, usually many times over one input buffer
// after a pipelined batch. The line is walked once: a TAB search cuts each token,
// the first two are read as decimal numbers, the rest are decoded in place with the
// codec the server encodes with. Pure; any thread.
#include "protocol/answer.h"

#include <cstring>

#include "protocol/codec.h"
#include "protocol/decimal.h"

namespace rowsocket {

bool ParseAnswer(char* line, size_t size, Answer* out) {
  out->Clear();
  if (size > 0 && line[size - 1] == '\r') --size;
  char* p = line;
  char* const end = line + size;
  size_t index = 0;  // position of the token being cut
  for (;;) {
    char* tab = static_cast<char*>(std::memchr(p, '\t', static_cast<size_t>(end - p)));
    char* token_end = tab ? tab : end;
    const size_t length = static_cast<size_t>(token_end - p);
    if (index == 0) {
      if (!ParseDecimal(std::string_view(p, length), &out->code)) return false;
    } else if (index == 1) {
      if (!ParseDecimal(std::string_view(p, length), &out->count)) return false;
    } else if (length == 1 && p[0] == '\0') {
      out->values.push_back(WireValue::Null());
    } else {
      out->values.push_back(WireValue::Of(std::string_view(p, DecodeInPlace(p, length))));
    }
    ++index;
    if (tab == nullptr) break;
    p = tab + 1;
  }
  return index >= 2;
}

size_t FindLineEnd(const char* data, size_t size) {
  const void* lf = size ? std::memchr(data, '\n', size) : nullptr;
  return lf ? static_cast<size_t>(static_cast<const char*>(lf) - data) : size;
}

}  // namespace rowsocket
