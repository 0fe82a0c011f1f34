// Value: one column value as the HandlerSocket protocol carries it.
//
// A Value is either NULL or a string of any bytes (TAB, LF and NUL included); NULL
// and the empty string are different values and stay different end to end. Numbers
// convert to their decimal text, which is how the server reads and prints them.
// A Row is the values of one row in the order of the opened columns; Rows is what a
// find returns. Values are plain data: copy and move them freely. Thread-compatible.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace rowsocket {
namespace client {

class Value {
 public:
  // A default Value is NULL, as a column without a value is in SQL.
  Value() = default;
  Value(std::nullptr_t) {}  // NOLINT: `nullptr` reads as NULL at call sites
  Value(std::string s) : null_(false), bytes_(std::move(s)) {}           // NOLINT
  Value(std::string_view s) : null_(false), bytes_(s) {}                 // NOLINT
  // A null pointer is NULL; anything else a NUL-terminated string.
  Value(const char* s) : null_(s == nullptr), bytes_(s ? s : "") {}      // NOLINT
  // Integers (not bool, not char) become their decimal text.
  template <typename Int,
            typename = std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool> &&
                                        !std::is_same_v<Int, char>>>
  Value(Int v) : null_(false) {  // NOLINT
    char buf[24];
    auto result = std::to_chars(buf, buf + sizeof(buf), v);
    bytes_.assign(buf, static_cast<size_t>(result.ptr - buf));
  }

  static Value Null() { return Value(); }

  bool is_null() const { return null_; }
  // The bytes; empty for NULL (ask is_null() to tell the two apart).
  const std::string& str() const { return bytes_; }
  std::string_view view() const { return bytes_; }
  size_t size() const { return bytes_.size(); }

  bool operator==(const Value& o) const { return null_ == o.null_ && bytes_ == o.bytes_; }
  bool operator!=(const Value& o) const { return !(*this == o); }

 private:
  bool null_ = true;
  std::string bytes_;
};

using Row = std::vector<Value>;
using Rows = std::vector<Row>;

}  // namespace client
}  // namespace rowsocket
