// Error and Result: how every fallible call of librowsocket reports its outcome.
//
// Nothing in the library throws. A call returns Result<T>: a T, or an Error saying
// who failed and whether the connection survived:
//   kServer  the server answered `<code> 1 <message>` (code 1 storage, 2 request,
//            3 authentication); the connection stays usable.
//   kIo      the connection could not be made, was lost, timed out or received
//            something that is not an answer; it is closed and unusable from then on
//            (a Pool replaces it). A write that met an I/O error may or may not have
//            been applied.
//   kUsage   the call was refused before anything was sent (a bad operator, a
//            Batch too big, ...); the connection stays usable.
// Errors and Results are plain values; copy them freely. Thread-compatible.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace rowsocket {
namespace client {

enum class ErrorKind { kServer, kIo, kUsage };

class Error {
 public:
  // The server's answer `<code> 1 <message>`.
  static Error Server(int code, std::string message) {
    return Error(ErrorKind::kServer, code, std::move(message));
  }
  // The connection is broken (code -1, as the original client reports it).
  static Error Io(std::string message) { return Error(ErrorKind::kIo, -1, std::move(message)); }
  // Refused locally (code -2); nothing was sent.
  static Error Usage(std::string message) {
    return Error(ErrorKind::kUsage, -2, std::move(message));
  }

  ErrorKind kind() const { return kind_; }
  bool is_server() const { return kind_ == ErrorKind::kServer; }
  bool is_io() const { return kind_ == ErrorKind::kIo; }
  bool is_usage() const { return kind_ == ErrorKind::kUsage; }
  // The wire code (1, 2, 3) of a server error; -1 for I/O, -2 for usage errors.
  int code() const { return code_; }
  // The wire message ("kpnum", "121", ...) or the client's own text.
  const std::string& message() const { return message_; }
  // The message in words ("more key values than the index has key parts"); empty
  // when there is nothing to add to message().
  std::string_view explanation() const;
  // "2 1 kpnum (more key values than the index has key parts)",
  // "I/O error: connection closed by the server", "usage error: ...".
  std::string ToString() const;

  bool operator==(const Error& o) const {
    return kind_ == o.kind_ && code_ == o.code_ && message_ == o.message_;
  }

 private:
  Error(ErrorKind kind, int code, std::string message)
      : kind_(kind), code_(code), message_(std::move(message)) {}

  ErrorKind kind_;
  int code_;
  std::string message_;
};

// Explains a wire error message in words: ExplainServerError(2, "kpnum") ==
// "more key values than the index has key parts". Empty for messages it does not know.
std::string_view ExplainServerError(int code, std::string_view message);

// A T or an Error. Access value() only when ok().
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: return a T where a Result is due
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: return an Error likewise

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  // The error; access only when !ok().
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Success without a value, or an Error.
template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_ = Error::Usage("");  // meaningful only when !ok_
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace client
}  // namespace rowsocket
