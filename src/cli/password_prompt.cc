// PromptPassword: echo off on /dev/tty, one line read, the terminal's modes put back
// (also when reading fails). Without a controlling terminal (a process started in a
// new session) it falls back to stdin when that is a terminal, prompting on stderr,
// as the mariadb client does. Called by main(); single-threaded.
#include "password_prompt.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rowsocket {
namespace cli {

bool PromptPassword(const char* prompt, std::string* password) {
  int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  const bool own = tty >= 0;
  if (!own) {
    if (!::isatty(STDIN_FILENO)) return false;
    tty = STDIN_FILENO;
  }
  termios saved{};
  const bool is_terminal = ::tcgetattr(tty, &saved) == 0;
  if (is_terminal) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ECHONL;  // the user still sees the line end
    ::tcsetattr(tty, TCSAFLUSH, &quiet);
  }
  (void)!::write(own ? tty : STDERR_FILENO, prompt, std::strlen(prompt));

  // Guide: one byte at a time up to the LF (or ^D: what was typed is the password).
  password->clear();
  bool ok = true;
  char c;
  for (;;) {
    const ssize_t n = ::read(tty, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0 || c == '\n') break;
    password->push_back(c);
  }
  if (!password->empty() && password->back() == '\r') password->pop_back();

  if (is_terminal) ::tcsetattr(tty, TCSADRAIN, &saved);  // keeps what was typed after
  if (own) ::close(tty);
  return ok;
}

}  // namespace cli
}  // namespace rowsocket
