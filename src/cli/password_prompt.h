// PromptPassword: asks for a password on the terminal without echoing it, as the
// mariadb client does for a bare -p. Reads the controlling terminal (/dev/tty), not
// stdin, so commands piped to the CLI stay unread (stdin only when it is itself a
// terminal and there is no controlling one). Called by main() before anything
// connects; single-threaded.
#pragma once

#include <string>

namespace rowsocket {
namespace cli {

// Writes `prompt` to the terminal and reads one line into `*password` (without the
// LF). Returns false when there is no terminal to ask, or reading fails.
bool PromptPassword(const char* prompt, std::string* password);

}  // namespace cli
}  // namespace rowsocket
