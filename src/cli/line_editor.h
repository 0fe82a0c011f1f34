// LineEditor: interactive line input for rowsocket-cli, on Debian's libedit.
//
// Emacs-style editing, a history kept across runs in a file, and a TAB key whose
// meaning follows the mode: in human mode it completes command words and table
// names; in raw mode it inserts a TAB, the protocol's token separator. Only for a
// terminal on stdin; scripts read plain lines instead.
// Single-threaded (the CLI's only thread); one LineEditor per process.
#pragma once

#include <string>
#include <vector>

struct editline;
struct history;

namespace rowsocket {
namespace cli {

class LineEditor {
 public:
  // `history_file` empty: no history kept across runs.
  LineEditor(const char* program, std::string history_file);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // Shows `prompt` and reads one line (without its LF). False at end of input.
  bool ReadLine(const std::string& prompt, std::string* line);
  // Raw mode: TAB inserts a TAB. Human mode: TAB completes from `words`.
  void SetRawMode(bool raw) { raw_ = raw; }
  void SetWords(std::vector<std::string> words) { words_ = std::move(words); }

 private:
  static char* PromptCallback(editline* el);
  static unsigned char TabCallback(editline* el, int ch);
  unsigned char Complete();

  editline* el_ = nullptr;
  history* history_ = nullptr;
  std::string history_file_;
  std::string prompt_;
  bool raw_ = false;
  std::vector<std::string> words_;
};

}  // namespace cli
}  // namespace rowsocket
