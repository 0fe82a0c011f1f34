// EngineStatus's tables (engine_status.h): each kind's category and its name for
// logs. Constant tables; any thread.
#include "protocol/engine_status.h"

namespace rowsocket {
namespace {

using Kind = EngineStatus::Kind;

struct KindInfo {
  Kind kind;
  EngineStatus::Category category;
  std::string_view name;
};

constexpr EngineStatus::Category kStorage = EngineStatus::kStorage;
constexpr EngineStatus::Category kRequest = EngineStatus::kBadRequest;
constexpr EngineStatus::Category kAuth = EngineStatus::kUnauthorized;

constexpr KindInfo kKindInfo[] = {
    {Kind::kOk, EngineStatus::kOk, "ok"},
    {Kind::kBadRequest, kRequest, "bad request"},
    {Kind::kIndexNotOpen, kRequest, "index not open"},
    {Kind::kNoSuchIndex, kRequest, "no such index"},
    {Kind::kIndexUnreadable, kRequest, "index unreadable by key"},
    {Kind::kNoSuchColumn, kRequest, "no such column"},
    {Kind::kSchemaForbidden, kRequest, "schema forbidden"},
    {Kind::kTooBig, kRequest, "answer too big"},
    {Kind::kTooManyRows, kRequest, "too many rows examined"},
    {Kind::kNotAKey, kRequest, "not a key"},
    {Kind::kValueShape, kRequest, "value shape"},
    {Kind::kNotANumber, kRequest, "not a number"},
    {Kind::kUnknownCommand, kRequest, "unknown command"},
    {Kind::kUnauthenticated, kAuth, "unauthenticated"},
    {Kind::kAuthTypeUnknown, kAuth, "auth type unknown"},
    {Kind::kNoChallenge, kAuth, "no challenge"},
    {Kind::kAccountLocked, kAuth, "account locked"},
    {Kind::kPasswordExpired, kAuth, "password expired"},
    {Kind::kAuthPluginUnsupported, kAuth, "auth plugin unsupported"},
    {Kind::kTlsRequired, kAuth, "TLS required"},
    {Kind::kTooManyConnections, kAuth, "too many connections"},
    {Kind::kAccountBlocked, kAuth, "account blocked"},
    {Kind::kDenied, kAuth, "denied"},
    {Kind::kReadOnly, kStorage, "read only"},
    {Kind::kClusterNotReady, kStorage, "cluster not ready"},
    {Kind::kClusterRefused, kStorage, "cluster refused"},
    {Kind::kGeneratedColumn, kStorage, "generated column"},
    {Kind::kTriggers, kStorage, "triggers"},
    {Kind::kTableOpenFailed, kStorage, "table open failed"},
    {Kind::kTableLocked, kStorage, "table locked"},
    {Kind::kLockWaitTimeout, kStorage, "lock wait timeout"},
    {Kind::kDeadlock, kStorage, "deadlock"},
    {Kind::kConflict, kStorage, "conflict"},
    {Kind::kKilled, kStorage, "killed"},
    {Kind::kCommitFailed, kStorage, "commit failed"},
    {Kind::kStorageError, kStorage, "storage error"},
};

static_assert(sizeof(kKindInfo) / sizeof(kKindInfo[0]) == EngineStatus::kKinds,
              "one entry per kind");

constexpr bool InKindOrder() {
  for (int i = 0; i < EngineStatus::kKinds; ++i)
    if (static_cast<int>(kKindInfo[i].kind) != i) return false;
  return true;
}
static_assert(InKindOrder(), "entries in Kind order");

}  // namespace

EngineStatus::Category EngineStatus::CategoryOf(Kind kind) {
  return kKindInfo[static_cast<size_t>(kind)].category;
}

std::string_view EngineStatus::NameOf(Kind kind) {
  return kKindInfo[static_cast<size_t>(kind)].name;
}

}  // namespace rowsocket
