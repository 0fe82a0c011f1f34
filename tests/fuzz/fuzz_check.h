// Shared by the parser fuzzers (tests/fuzz): a check that aborts, so that libFuzzer
// keeps the input that broke an invariant, an exactly-sized copy of the input for
// the parsers that decode in place, and plain reference versions of the protocol's
// rules (PROTOCOL.md), written for clarity rather than speed, that the fast parsers
// are compared with. Header-only; each fuzzer runs on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

// Aborts with the broken invariant's text; libFuzzer then saves the input as a crash.
#define FUZZ_CHECK(cond)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, \
                   #cond);                                                      \
      std::abort();                                                             \
    }                                                                           \
  } while (0)

namespace rowsocket {
namespace fuzz {

// A writable copy of some bytes in a heap block of exactly their size, so that
// AddressSanitizer reports a read or write even one byte past the end.
class LineCopy {
 public:
  explicit LineCopy(std::string_view bytes)
      : data_(new char[bytes.size()]), size_(bytes.size()) {
    if (size_ > 0) std::memcpy(data_.get(), bytes.data(), size_);
  }
  char* data() { return data_.get(); }
  size_t size() const { return size_; }
  // True when [p, p + n) lies inside the copy (an empty range may sit at its end).
  bool Holds(const char* p, size_t n) const {
    return p >= data_.get() && p <= data_.get() + size_ &&
           n <= static_cast<size_t>(data_.get() + size_ - p);
  }
  size_t OffsetOf(const char* p) const { return static_cast<size_t>(p - data_.get()); }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_;
};

// The TAB-separated tokens of a line: n TABs make n + 1 tokens.
inline std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> tokens;
  for (;;) {
    const size_t tab = line.find('\t');
    tokens.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) return tokens;
    line.remove_prefix(tab + 1);
  }
}

// The token that starts at `offset` of `line` (up to the next TAB or the end).
inline std::string_view TokenAt(std::string_view line, size_t offset) {
  std::string_view rest = line.substr(offset);
  return rest.substr(0, rest.find('\t'));
}

// A token decoded byte by byte: 0x01 b stands for b - 0x40; a lone 0x01 at the end
// stays as it is; every other byte stands for itself.
inline std::string ReferenceDecode(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '\x01' && i + 1 < token.size()) {
      out.push_back(static_cast<char>(static_cast<unsigned char>(token[++i]) - 0x40));
    } else {
      out.push_back(token[i]);
    }
  }
  return out;
}

// Digits only, at least one, with a value of at most `max`.
inline bool ReferenceDecimal(std::string_view text, uint64_t max, uint64_t* value) {
  if (text.empty()) return false;
  unsigned __int128 v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > max) return false;
  }
  *value = static_cast<uint64_t>(v);
  return true;
}

}  // namespace fuzz
}  // namespace rowsocket
