// Answers of the HandlerSocket wire protocol, read from the client's side.
//
// ResponseWriter (response.h) writes answers; ParseAnswer reads them back. It is
// the one answer reader of the project: the client library and the tools built on
// it (rowsocket-cli, benchmarks) all split and decode answers here, so escaping
// stays in one place (codec.h). Like ParseRequest, it decodes tokens in place: every
// WireValue of an Answer points into the caller's line buffer, which must stay unchanged
// while the Answer is used. Answers are meant to be reused (Clear() keeps capacity).
//
// ParseAnswer checks the frame only (a decimal code, a decimal second token);
// whether the shape fits the request that was sent is for the caller to say, because
// `0 1 5` is a count after a modify and a one-column row after a find.
// Thread-compatible: an Answer belongs to one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "protocol/request.h"  // WireValue

namespace rowsocket {

struct Answer {
  // First token: 0 for success, else the error class (1 storage, 2 request, 3 auth).
  uint32_t code = 0;
  // Second token: the number of columns of a row answer, 1 for every other shape.
  uint32_t count = 0;
  // Every token after the second, decoded, NULL kept apart from the empty string.
  // For an error, values[0] (when present) is the message.
  std::vector<WireValue> values;

  bool ok() const { return code == 0; }
  // The error message: values[0] of a non-zero answer, empty otherwise.
  std::string_view message() const {
    return !ok() && !values.empty() ? values[0].view() : std::string_view();
  }
  // Resets to an empty answer, keeping vector capacity.
  void Clear() {
    code = 0;
    count = 0;
    values.clear();
  }
};

// Parses `line[0..size)` (no LF; a trailing CR is ignored) into `*out`, decoding
// value tokens in place. Returns false when the line is not an answer: fewer than
// two tokens, or a first or second token that is not a decimal number.
bool ParseAnswer(char* line, size_t size, Answer* out);

// Finds the end of the first complete line in `data[0..size)`: the offset of its LF,
// or `size` when no LF is there yet. Shared by everything that reads answers from a
// stream, so framing is the same everywhere.
size_t FindLineEnd(const char* data, size_t size);

}  // namespace rowsocket
