// WireStatus: a HandlerSocket answer's outcome, as a value.
//
// A HandlerSocket error is `<code> 1 <message>`, where code 1 means the storage
// engine or the table failed, 2 the request was wrong, 3 authentication failed.
// Messages are short lower-case words (`kpnum`, `readonly`, `121`, ...). The parser,
// the listeners and the client library speak it; the engine's own status
// (engine_status.h) becomes one in handlersocket_status.h.
//
// A WireStatus is a small value (no allocation); copy it freely. Thread-compatible.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace rowsocket {

class WireStatus {
 public:
  // Wire error classes.
  enum Code : uint8_t { kOk = 0, kStorage = 1, kBadRequest = 2, kUnauthorized = 3 };

  WireStatus() = default;
  static WireStatus OK() { return WireStatus(); }
  // Code 1: the table or the storage engine failed ("open_table", "121", ...).
  static WireStatus Storage(std::string_view message) { return WireStatus(kStorage, message); }
  // Code 1 with the storage engine's numeric error code as the message.
  static WireStatus StorageCode(int engine_error);
  // Code 2: the request itself is wrong ("syntax", "kpnum", "readonly", ...).
  static WireStatus BadRequest(std::string_view message) { return WireStatus(kBadRequest, message); }
  // Code 3: authentication ("unauth", "authtype").
  static WireStatus Unauthorized(std::string_view message) { return WireStatus(kUnauthorized, message); }
  // Any class (see wire_errors.h for the words).
  static WireStatus Of(Code code, std::string_view message) { return WireStatus(code, message); }

  bool ok() const { return code_ == kOk; }
  Code code() const { return code_; }
  std::string_view message() const { return std::string_view(message_, size_); }

  bool operator==(const WireStatus& o) const {
    return code_ == o.code_ && std::string_view(message_, size_) == std::string_view(o.message_, o.size_);
  }
  bool operator!=(const WireStatus& o) const { return !(*this == o); }

 private:
  static constexpr size_t kMaxMessage = 31;
  WireStatus(Code code, std::string_view message) : code_(code) {
    size_ = static_cast<uint8_t>(message.size() < kMaxMessage ? message.size() : kMaxMessage);
    std::memcpy(message_, message.data(), size_);
  }

  Code code_ = kOk;
  uint8_t size_ = 0;
  char message_[kMaxMessage] = {};
};

}  // namespace rowsocket
