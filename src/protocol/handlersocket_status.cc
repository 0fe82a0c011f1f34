// HandlerSocket's mapping of EngineStatus (handlersocket_status.h): one switch over
// the kinds, and its inverse for the errors HandlerSocket's own layers decide.
#include "protocol/handlersocket_status.h"

#include <charconv>

#include "protocol/wire_errors.h"

namespace rowsocket {
namespace {

using Kind = EngineStatus::Kind;

// The word of a kind that has one of wire_errors.h; false for the kinds answered
// with a number or a detail.
bool WordOf(Kind kind, WireError* error) {
  switch (kind) {
    case Kind::kIndexNotOpen: *error = WireError::kStmtNum; return true;
    case Kind::kNoSuchIndex: *error = WireError::kIdxNum; return true;
    case Kind::kIndexUnreadable: *error = WireError::kIdxType; return true;
    case Kind::kNoSuchColumn: *error = WireError::kFld; return true;
    case Kind::kSchemaForbidden: *error = WireError::kForbidden; return true;
    case Kind::kTooBig: *error = WireError::kAnswerSize; return true;
    case Kind::kTooManyRows: *error = WireError::kRowsExamined; return true;
    // (memcached's own refusals; a HandlerSocket request never meets them.)
    case Kind::kNotAKey: *error = WireError::kKlen; return true;
    case Kind::kValueShape: *error = WireError::kKlen; return true;
    case Kind::kNotANumber: *error = WireError::kModOp; return true;
    case Kind::kUnknownCommand: *error = WireError::kCmd; return true;
    case Kind::kUnauthenticated: *error = WireError::kUnauth; return true;
    case Kind::kAuthTypeUnknown: *error = WireError::kAuthType; return true;
    case Kind::kNoChallenge: *error = WireError::kNonce; return true;
    case Kind::kAccountLocked: *error = WireError::kLocked; return true;
    case Kind::kPasswordExpired: *error = WireError::kExpired; return true;
    case Kind::kAuthPluginUnsupported: *error = WireError::kAuthPlugin; return true;
    case Kind::kTlsRequired: *error = WireError::kTlsRequired; return true;
    case Kind::kTooManyConnections: *error = WireError::kMaxConn; return true;
    case Kind::kAccountBlocked: *error = WireError::kBlocked; return true;
    case Kind::kDenied: *error = WireError::kDenied; return true;
    case Kind::kTriggers: *error = WireError::kTriggers; return true;
    case Kind::kTableOpenFailed: *error = WireError::kOpenTable; return true;
    case Kind::kTableLocked: *error = WireError::kLockTables; return true;
    case Kind::kKilled: *error = WireError::kKilled; return true;
    case Kind::kCommitFailed: *error = WireError::kCommit; return true;
    case Kind::kOk:
    case Kind::kBadRequest:
    case Kind::kReadOnly:
    case Kind::kClusterNotReady:
    case Kind::kClusterRefused:
    case Kind::kGeneratedColumn:
    case Kind::kLockWaitTimeout:
    case Kind::kDeadlock:
    case Kind::kConflict:
    case Kind::kStorageError:
      break;
  }
  return false;
}

// The kinds a HandlerSocket listener or parser may answer by word, of classes 1 and 3
// (class 2 words are bad requests with the word as detail).
constexpr Kind kWordKinds[] = {
    Kind::kUnauthenticated, Kind::kAuthTypeUnknown,   Kind::kNoChallenge,
    Kind::kAccountLocked,   Kind::kPasswordExpired,   Kind::kAuthPluginUnsupported,
    Kind::kTlsRequired,     Kind::kTooManyConnections, Kind::kAccountBlocked,
    Kind::kDenied,          Kind::kTriggers,          Kind::kTableOpenFailed,
    Kind::kTableLocked,     Kind::kKilled,            Kind::kCommitFailed,
};

}  // namespace

WireStatus HsWireStatus(const EngineStatus& status) {
  if (status.ok()) return WireStatus::OK();
  WireError error;
  if (WordOf(status.kind(), &error)) return ErrorStatus(error);
  if (status.kind() == Kind::kBadRequest) return WireStatus::BadRequest(status.detail());
  return WireStatus::StorageCode(status.error());
}

EngineStatus HsEngineStatus(const WireStatus& error) {
  if (error.ok()) return EngineStatus::OK();
  if (error.code() == WireStatus::kBadRequest) return EngineStatus::BadRequest(error.message());
  for (Kind kind : kWordKinds) {
    WireError word;
    if (WordOf(kind, &word) && ErrorStatus(word) == error) return EngineStatus::Of(kind);
  }
  int number = 0;
  const std::string_view m = error.message();
  std::from_chars(m.data(), m.data() + m.size(), number);
  return error.code() == WireStatus::kUnauthorized ? EngineStatus::Unauthenticated()
                                                   : EngineStatus::StorageError(number);
}

}  // namespace rowsocket
