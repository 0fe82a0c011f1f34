// Token encoding and decoding of the HandlerSocket wire protocol.
//
// AppendEncoded is called by ResponseWriter for every string value of an answer;
// DecodeInPlace by the request parser for every value token of a request. Both sit
// on the hot path, so both copy whole runs of plain bytes at once and touch the
// slow per-byte path only around the rare bytes 0x00..0x0f. Pure; any thread.
#include "protocol/codec.h"

#include <cstring>

namespace rowsocket {

namespace {

constexpr unsigned char kEscape = 0x01;      // starts a two-byte escape
constexpr unsigned char kEscapeShift = 0x40; // added to the escaped byte
constexpr unsigned char kFirstPlain = 0x10;  // bytes below this are escaped

}  // namespace

void AppendEncoded(std::string* out, std::string_view raw) {
  const char* p = raw.data();
  const char* end = p + raw.size();
  const char* run = p;  // start of the plain bytes not yet appended
  for (; p != end; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c >= kFirstPlain) continue;
    out->append(run, static_cast<size_t>(p - run));
    const char escaped[2] = {static_cast<char>(kEscape), static_cast<char>(c + kEscapeShift)};
    out->append(escaped, 2);
    run = p + 1;
  }
  out->append(run, static_cast<size_t>(end - run));
}

size_t DecodeInPlace(char* data, size_t size) {
  // Most tokens hold no escape at all: leave them untouched.
  if (size == 0) return 0;
  char* first = static_cast<char*>(std::memchr(data, kEscape, size));
  if (first == nullptr) return size;

  char* end = data + size;
  char* read = first;
  char* write = first;
  while (read != end) {
    const unsigned char c = static_cast<unsigned char>(*read);
    if (c == kEscape && read + 1 != end) {
      *write++ = static_cast<char>(static_cast<unsigned char>(read[1]) - kEscapeShift);
      read += 2;
    } else {
      *write++ = *read++;  // a plain byte, or a trailing lone 0x01 kept as is
    }
  }
  return static_cast<size_t>(write - data);
}

}  // namespace rowsocket
