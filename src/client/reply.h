// Turning one parsed answer line into the Result<Reply> of the request it answers.
//
// The same line means different things after different requests (`0 1 5` is a count
// after a modify, a one-column row after a find), so the request's kind decides how
// to read it, and a shape that does not fit that kind is refused: the caller treats
// a refused answer as a broken stream. Internal to librowsocket; pure; any thread.
#pragma once

#include <string>

#include "protocol/answer.h"
#include "rowsocket/batch.h"
#include "rowsocket/result.h"

namespace rowsocket {
namespace client {

// Sets `*out` to the reply or server error that `answer` means for a request of
// `kind`. Returns false when the answer's shape does not fit `kind`.
bool ToReply(RequestKind kind, const ::rowsocket::Answer& answer, Result<Reply>* out);

}  // namespace client
}  // namespace rowsocket
