// Token encoding of the HandlerSocket wire protocol.
//
// A value on the wire is either NULL, written as the single byte 0x00, or a string
// in which every byte 0x00..0x0f is written as 0x01 followed by the byte plus 0x40.
// Everything else stands for itself. These functions are pure and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rowsocket {

// Appends the wire form of the string `raw` (never NULL) to `out`.
void AppendEncoded(std::string* out, std::string_view raw);

// Appends the wire form of NULL (a single 0x00 byte) to `out`.
inline void AppendNull(std::string* out) { out->push_back('\0'); }

// Decodes a token in place. `data[0..size)` holds an encoded token that is not the
// NULL token. Returns the decoded length (<= size); the decoded bytes start at
// `data`. A trailing lone 0x01 is kept as is (lenient, like existing clients).
size_t DecodeInPlace(char* data, size_t size);

}  // namespace rowsocket
