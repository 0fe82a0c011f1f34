// LineEditor on libedit's native API (histedit.h): el_gets for input, a History
// saved after every line (so a killed CLI keeps it), and one bound function for TAB.
// libedit calls back into this object through EL_CLIENTDATA. CLI thread only.
#include "line_editor.h"

#include <histedit.h>

#include <algorithm>
#include <cstdio>

namespace rowsocket {
namespace cli {

namespace {

LineEditor* Self(EditLine* el) {
  void* data = nullptr;
  el_get(el, EL_CLIENTDATA, &data);
  return static_cast<LineEditor*>(data);
}

}  // namespace

LineEditor::LineEditor(const char* program, std::string history_file)
    : history_file_(std::move(history_file)) {
  el_ = el_init(program, stdin, stdout, stderr);
  history_ = history_init();
  HistEvent ev;
  history(history_, &ev, H_SETSIZE, 1000);
  history(history_, &ev, H_SETUNIQUE, 1);
  if (!history_file_.empty()) history(history_, &ev, H_LOAD, history_file_.c_str());
  el_set(el_, EL_CLIENTDATA, this);
  el_set(el_, EL_EDITOR, "emacs");
  el_set(el_, EL_SIGNAL, 1);
  el_set(el_, EL_HIST, history, history_);
  el_set(el_, EL_PROMPT, &LineEditor::PromptCallback);
  el_set(el_, EL_ADDFN, "rowsocket-tab", "complete, or insert a TAB in raw mode",
         &LineEditor::TabCallback);
  el_set(el_, EL_BIND, "^I", "rowsocket-tab", nullptr);
  el_source(el_, nullptr);  // the user's ~/.editrc, if any
}

LineEditor::~LineEditor() {
  history_end(history_);
  el_end(el_);
}

char* LineEditor::PromptCallback(EditLine* el) { return &Self(el)->prompt_[0]; }

bool LineEditor::ReadLine(const std::string& prompt, std::string* line) {
  prompt_ = prompt;
  int count = 0;
  const char* text = el_gets(el_, &count);
  if (text == nullptr || count <= 0) return false;
  line->assign(text, static_cast<size_t>(count));
  while (!line->empty() && (line->back() == '\n' || line->back() == '\r')) line->pop_back();
  if (line->find_first_not_of(" \t") != std::string::npos) {
    HistEvent ev;
    history(history_, &ev, H_ENTER, line->c_str());
    if (!history_file_.empty()) history(history_, &ev, H_SAVE, history_file_.c_str());
  }
  return true;
}

unsigned char LineEditor::TabCallback(EditLine* el, int) {
  LineEditor* self = Self(el);
  if (self->raw_) {
    el_insertstr(el, "\t");
    return CC_REFRESH;
  }
  return self->Complete();
}

unsigned char LineEditor::Complete() {
  // Guide: the word before the cursor.
  const LineInfo* li = el_line(el_);
  const char* start = li->cursor;
  while (start > li->buffer && start[-1] != ' ' && start[-1] != '\t') --start;
  const std::string prefix(start, static_cast<size_t>(li->cursor - start));

  std::vector<std::string> matches;
  for (const std::string& w : words_) {
    if (w.compare(0, prefix.size(), prefix) == 0) matches.push_back(w);
  }
  if (matches.empty()) return CC_ERROR;
  if (matches.size() == 1) {
    el_insertstr(el_, (matches[0].substr(prefix.size()) + " ").c_str());
    return CC_REFRESH;
  }
  // Guide: several matches: extend to their common prefix, else list them.
  std::string common = matches[0];
  for (const std::string& m : matches) {
    size_t n = 0;
    while (n < common.size() && n < m.size() && common[n] == m[n]) ++n;
    common.resize(n);
  }
  if (common.size() > prefix.size()) {
    el_insertstr(el_, common.substr(prefix.size()).c_str());
    return CC_REFRESH;
  }
  std::fputc('\n', stdout);
  for (const std::string& m : matches) std::printf("%s  ", m.c_str());
  std::fputc('\n', stdout);
  return CC_REDISPLAY;
}

}  // namespace cli
}  // namespace rowsocket
