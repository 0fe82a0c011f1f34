// memcached's words for the engine's statuses (memcached_status.h): one switch over
// the kinds for the text, one for the binary status.
#include "protocol/memcached_status.h"

#include "protocol/memcached_response.h"

namespace rowsocket {

using Kind = EngineStatus::Kind;

std::string McTextError(const EngineStatus& s) {
  switch (s.kind()) {
    case Kind::kBadRequest: return "CLIENT_ERROR bad command line format";
    case Kind::kIndexNotOpen: return "SERVER_ERROR no such index";
    case Kind::kNoSuchIndex: return "SERVER_ERROR the key column has no unique index of its own";
    case Kind::kIndexUnreadable: return "SERVER_ERROR the key's index cannot be read by key";
    case Kind::kNoSuchColumn: return "SERVER_ERROR the container names a column its table lacks";
    case Kind::kSchemaForbidden:
      return "SERVER_ERROR system schemas cannot be opened (rowsocket_allowed_system_schemas)";
    case Kind::kTooBig: return "SERVER_ERROR out of memory writing get response";
    case Kind::kTooManyRows:
      return "SERVER_ERROR too many rows examined (rowsocket_max_rows_examined)";
    case Kind::kNotAKey: return "CLIENT_ERROR key is not a value of the key column";
    case Kind::kValueShape:
      return "CLIENT_ERROR the value must have " + std::to_string(s.error()) +
             " fields separated by '" + std::string(s.detail()) + "'";
    case Kind::kNotANumber: return std::string(kMcNonNumericError);
    case Kind::kUnknownCommand: return "ERROR";
    case Kind::kDenied: return "CLIENT_ERROR access denied";
    case Kind::kUnauthenticated:
    case Kind::kAuthTypeUnknown:
    case Kind::kNoChallenge:
    case Kind::kAccountLocked:
    case Kind::kPasswordExpired:
    case Kind::kAuthPluginUnsupported:
    case Kind::kTlsRequired:
    case Kind::kTooManyConnections:
    case Kind::kAccountBlocked:
      return "CLIENT_ERROR unauthenticated";
    case Kind::kTriggers: return "SERVER_ERROR the table has triggers; writes are refused";
    case Kind::kTableOpenFailed: return "SERVER_ERROR the table cannot be opened";
    case Kind::kTableLocked: return "SERVER_ERROR the table is locked";
    case Kind::kConflict: return "SERVER_ERROR the item was created meanwhile; try again";
    case Kind::kKilled: return "SERVER_ERROR the request was killed";
    case Kind::kCommitFailed: return "SERVER_ERROR the commit failed";
    case Kind::kReadOnly:
    case Kind::kClusterNotReady:
    case Kind::kClusterRefused:
    case Kind::kGeneratedColumn:
    case Kind::kLockWaitTimeout:
    case Kind::kDeadlock:
    case Kind::kStorageError:
    case Kind::kOk:
      break;
  }
  return "SERVER_ERROR 1 " + std::to_string(s.error());
}

McStatus McBinaryError(const EngineStatus& s) {
  if (s.category() == EngineStatus::kUnauthorized) return McStatus::kAuthError;
  switch (s.kind()) {
    case Kind::kBadRequest:
    case Kind::kNotAKey:
    case Kind::kValueShape:
      return McStatus::kInvalidArguments;
    case Kind::kNotANumber: return McStatus::kNonNumeric;
    case Kind::kUnknownCommand: return McStatus::kUnknownCommand;
    default: return McStatus::kOutOfMemory;
  }
}

void McAnswerStatus(const McRequest& mc, const EngineStatus& status, std::string* out) {
  if (!mc.WantsAnswer(McOutcome::kError)) return;
  McAnswerRefusal(mc, status, out);
}

void McAnswerRefusal(const McRequest& mc, const EngineStatus& status, std::string* out) {
  if (mc.framing == McFraming::kBinary) return McBinaryWriter(out).Error(mc, McBinaryError(status));
  McTextWriter(out).Line(McTextError(status));
}

void McAnswerFailure(const McRequest& mc, const EngineStatus& status, std::string* out) {
  McAnswerStatus(mc, status, out);
}

void McAnswerFlushOff(const McRequest& mc, std::string* out) {
  if (!mc.WantsAnswer(McOutcome::kError)) return;
  if (mc.framing == McFraming::kBinary) return McBinaryWriter(out).Error(mc, McStatus::kNotStored);
  McTextWriter(out).ServerError("flush_all is off (rowsocket_memcached_flush)");
}

}  // namespace rowsocket
