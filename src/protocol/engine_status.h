// EngineStatus: what happened to one request, as a value, in no protocol's words.
//
// The engine returns it from every fallible step (open a table, check a request, read
// or change rows, log in, commit); each protocol spells it in one function of its own:
// HandlerSocket's in handlersocket_status.h (`<code>\t1\t<word>`), memcached's in
// memcached_status.h (`SERVER_ERROR ...`, `CLIENT_ERROR ...`, binary statuses). A
// status names what happened (a lock wait timed out, the server is read_only, the
// account is locked); where the server or the storage engine gave an error number it
// carries it (`error()`), and a bad request carries a detail: which part of it is
// wrong, in its protocol's own terms (HandlerSocket's `kpnum`, `filterfld`), printed by
// that protocol's mapping only.
//
// A small value (no allocation); copy it freely. Thread-compatible.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace rowsocket {

class EngineStatus {
 public:
  enum class Kind : uint8_t {
    kOk,
    // The request cannot run as it was asked.
    kBadRequest,        // detail(): what is wrong with it
    kIndexNotOpen,      // the request names an index id the connection has not opened
    kNoSuchIndex,       // the table has no such index (or none a container can use)
    kIndexUnreadable,   // the index cannot be read by key (FULLTEXT, SPATIAL, ...)
    kNoSuchColumn,      // a column the request or container names is not in the table
    kSchemaForbidden,   // a system schema, not among rowsocket_allowed_system_schemas
    kTooBig,            // the answer would pass rowsocket_max_answer_size
    kTooManyRows,       // the request would examine more than rowsocket_max_rows_examined
    kNotAKey,           // a key the key column cannot hold exactly (it names no row)
    kValueShape,        // a value that does not split into error() columns at detail()
    kNotANumber,        // an increment of a value that is no number
    kUnknownCommand,    // a command the engine does not run
    // Logins and grants.
    kUnauthenticated,   // not logged in, or wrong account, password or secret
    kAuthTypeUnknown,   // a login of a kind this listener does not take
    kNoChallenge,       // a challenge's answer without the challenge before it
    kAccountLocked,     // ALTER USER ... ACCOUNT LOCK
    kPasswordExpired,   // the account's password has expired
    kAuthPluginUnsupported,  // the account logs in with a plugin rowsocket cannot check
    kTlsRequired,       // this needs a TLS connection
    kTooManyConnections,  // the account's MAX_USER_CONNECTIONS
    kAccountBlocked,    // max_password_errors wrong passwords in a row
    kDenied,            // the account lacks the privilege (GRANT)
    // The server's state or the table refuses it; error() is SQL's error for it.
    kReadOnly,          // read_only
    kClusterNotReady,   // a Galera node that is not ready for clients
    kClusterRefused,    // Galera cannot certify the write (a table without a primary key)
    kGeneratedColumn,   // a write of a generated column
    kTriggers,          // writes of a table with SQL triggers (rowsocket cannot run them)
    // Running it failed.
    kTableOpenFailed,   // the table does not exist, cannot be opened, or its metadata
                        // lock stayed taken
    kTableLocked,       // the table could not be locked (LOCK TABLES, DDL)
    kLockWaitTimeout,   // a row lock (or the cluster's causal wait) waited too long
    kDeadlock,          // rolled back by a deadlock or a cluster conflict
    kConflict,          // another transaction made the row meanwhile (error(): the
                        // storage engine's duplicate key)
    kKilled,            // an administrator's KILL ended the worker's batch
    kCommitFailed,      // the transaction could not be committed
    kStorageError,      // the storage engine or the server failed with error()
  };
  static constexpr int kKinds = static_cast<int>(Kind::kStorageError) + 1;

  // Who is to change something for the request to succeed: the server or its tables
  // (storage), the client's request (bad request), the client's login or grants.
  enum Category : uint8_t { kOk = 0, kStorage = 1, kBadRequest = 2, kUnauthorized = 3 };

  EngineStatus() = default;
  static EngineStatus OK() { return EngineStatus(); }
  static EngineStatus BadRequest(std::string_view detail) {
    return EngineStatus(Kind::kBadRequest, 0, detail);
  }
  static EngineStatus IndexNotOpen() { return EngineStatus(Kind::kIndexNotOpen); }
  static EngineStatus NoSuchIndex() { return EngineStatus(Kind::kNoSuchIndex); }
  static EngineStatus IndexUnreadable() { return EngineStatus(Kind::kIndexUnreadable); }
  static EngineStatus NoSuchColumn() { return EngineStatus(Kind::kNoSuchColumn); }
  static EngineStatus SchemaForbidden() { return EngineStatus(Kind::kSchemaForbidden); }
  static EngineStatus TooBig() { return EngineStatus(Kind::kTooBig); }
  static EngineStatus TooManyRows() { return EngineStatus(Kind::kTooManyRows); }
  static EngineStatus NotAKey() { return EngineStatus(Kind::kNotAKey); }
  // A value of `columns` columns joined by `separator` (at most kMaxDetail bytes).
  static EngineStatus ValueShape(int columns, std::string_view separator) {
    return EngineStatus(Kind::kValueShape, columns, separator);
  }
  static EngineStatus NotANumber() { return EngineStatus(Kind::kNotANumber); }
  static EngineStatus UnknownCommand() { return EngineStatus(Kind::kUnknownCommand); }
  static EngineStatus Unauthenticated() { return EngineStatus(Kind::kUnauthenticated); }
  static EngineStatus AuthTypeUnknown() { return EngineStatus(Kind::kAuthTypeUnknown); }
  static EngineStatus NoChallenge() { return EngineStatus(Kind::kNoChallenge); }
  static EngineStatus AccountLocked() { return EngineStatus(Kind::kAccountLocked); }
  static EngineStatus PasswordExpired() { return EngineStatus(Kind::kPasswordExpired); }
  static EngineStatus AuthPluginUnsupported() { return EngineStatus(Kind::kAuthPluginUnsupported); }
  static EngineStatus TlsRequired() { return EngineStatus(Kind::kTlsRequired); }
  static EngineStatus TooManyConnections() { return EngineStatus(Kind::kTooManyConnections); }
  static EngineStatus AccountBlocked() { return EngineStatus(Kind::kAccountBlocked); }
  static EngineStatus Denied() { return EngineStatus(Kind::kDenied); }
  // `error`: SQL's (or the storage engine's) error number for what happened.
  static EngineStatus ReadOnly(int error) { return EngineStatus(Kind::kReadOnly, error); }
  static EngineStatus ClusterNotReady(int error) {
    return EngineStatus(Kind::kClusterNotReady, error);
  }
  static EngineStatus ClusterRefused(int error) {
    return EngineStatus(Kind::kClusterRefused, error);
  }
  static EngineStatus GeneratedColumn(int error) {
    return EngineStatus(Kind::kGeneratedColumn, error);
  }
  static EngineStatus Triggers() { return EngineStatus(Kind::kTriggers); }
  static EngineStatus TableOpenFailed() { return EngineStatus(Kind::kTableOpenFailed); }
  static EngineStatus TableLocked() { return EngineStatus(Kind::kTableLocked); }
  static EngineStatus LockWaitTimeout(int error) {
    return EngineStatus(Kind::kLockWaitTimeout, error);
  }
  static EngineStatus Deadlock(int error) { return EngineStatus(Kind::kDeadlock, error); }
  static EngineStatus Conflict(int error) { return EngineStatus(Kind::kConflict, error); }
  static EngineStatus Killed() { return EngineStatus(Kind::kKilled); }
  static EngineStatus CommitFailed() { return EngineStatus(Kind::kCommitFailed); }
  static EngineStatus StorageError(int error) { return EngineStatus(Kind::kStorageError, error); }
  // Any kind (for tables and tests).
  static EngineStatus Of(Kind kind, int error = 0, std::string_view detail = {}) {
    return EngineStatus(kind, error, detail);
  }

  bool ok() const { return kind_ == Kind::kOk; }
  Kind kind() const { return kind_; }
  Category category() const { return CategoryOf(kind_); }
  int error() const { return error_; }  // 0 where the kind has none
  std::string_view detail() const { return std::string_view(detail_, size_); }
  // The kind's name, for logs ("lock wait timeout", "account locked").
  std::string_view Name() const { return NameOf(kind_); }

  static Category CategoryOf(Kind kind);
  static std::string_view NameOf(Kind kind);

  bool operator==(const EngineStatus& o) const {
    return kind_ == o.kind_ && error_ == o.error_ && detail() == o.detail();
  }
  bool operator!=(const EngineStatus& o) const { return !(*this == o); }

  static constexpr size_t kMaxDetail = 23;

 private:
  explicit EngineStatus(Kind kind, int error = 0, std::string_view detail = {})
      : kind_(kind), error_(error) {
    size_ = static_cast<uint8_t>(detail.size() < kMaxDetail ? detail.size() : kMaxDetail);
    std::memcpy(detail_, detail.data(), size_);
  }

  Kind kind_ = Kind::kOk;
  uint8_t size_ = 0;
  int32_t error_ = 0;
  char detail_[kMaxDetail] = {};
};

}  // namespace rowsocket
