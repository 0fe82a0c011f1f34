// memcached's words for the engine's refusals and failures (memcached_status.h).
#include "protocol/memcached_status.h"

#include "protocol/memcached_response.h"
#include "protocol/wire_errors.h"

namespace rowsocket {

void McAnswerRefusal(const McRequest& mc, const WireStatus& status, std::string* out) {
  if (mc.framing == McFraming::kBinary) return McBinaryWriter(out).Error(mc, McStatus::kAuthError);
  McTextWriter(out).ClientError(status == ErrorStatus(WireError::kDenied) ? "access denied"
                                                                          : "unauthenticated");
}

void McAnswerFailure(const McRequest& mc, const WireStatus& status, std::string* out) {
  if (!mc.WantsAnswer(McOutcome::kError)) return;
  if (mc.framing == McFraming::kBinary) return McBinaryWriter(out).Error(mc, McStatus::kOutOfMemory);
  std::string line = std::to_string(static_cast<int>(status.code()));
  line += ' ';
  line += status.message();
  McTextWriter(out).ServerError(line);
}

void McAnswerFlushOff(const McRequest& mc, std::string* out) {
  if (!mc.WantsAnswer(McOutcome::kError)) return;
  if (mc.framing == McFraming::kBinary) return McBinaryWriter(out).Error(mc, McStatus::kNotStored);
  McTextWriter(out).ServerError("flush_all is off (rowsocket_memcached_flush)");
}

}  // namespace rowsocket
