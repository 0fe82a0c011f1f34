// RedisUndoLog: what makes a Redis command of several rows (MSET, DEL, an EXEC) all
// or nothing: between Begin and End, the rows it changes as they were before (each a
// `Recorded`, the string or hash rows of redis_strings.h and redis_hashes.h), and
// whether a change failed; End puts the rows back, newest first, when the command is
// undone. Begin and End nest (an MSET inside an EXEC): an inner End puts back its own
// rows when undone; a failed change undoes everything since the outermost Begin.
//
// One per owner, on its worker's thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rowsocket {

template <typename Recorded>
class RedisUndoLog {
 public:
  // What a command of several rows may keep of the rows it changed (their bytes).
  static constexpr size_t kMaxBytes = 64u << 20;

  void Begin() {
    if (marks_.empty()) {
      records_.clear();
      bytes_ = 0;
      failed_ = false;
      failure_.clear();
    }
    marks_.push_back(records_.size());
  }
  // Whether a command of several rows is running (its changes are recorded).
  bool active() const { return !marks_.empty(); }

  // Records a row of `bytes` before its change; false (a failure: everything since
  // the outermost Begin goes back) once the command has recorded more than kMaxBytes.
  bool Add(Recorded r, size_t bytes) {
    bytes_ += bytes;
    if (bytes_ > kMaxBytes) {
      Fail("ERR rowsocket: the command changes too much at once to be undone");
      return false;
    }
    records_.push_back(std::move(r));
    return true;
  }

  // A change that failed, with its error reply (the first one is kept).
  void Fail(std::string_view failure) {
    if (!failed_) failure_.assign(failure);
    failed_ = true;
  }
  bool failed() const { return failed_; }
  // (Kept after End, for the command's answer, until the next outermost Begin.)
  const std::string& failure() const { return failure_; }

  // Ends the innermost Begin: when `undo` or a change failed, `restore(record)` puts
  // back each row recorded since it, newest first. True if nothing was put back.
  template <typename Restore>
  bool End(bool undo, Restore restore) {
    const size_t mark = marks_.back();
    marks_.pop_back();
    const bool failed = undo || failed_;
    if (failed) {
      for (size_t i = records_.size(); i-- > mark;) restore(records_[i]);
      records_.resize(mark);
    }
    if (marks_.empty()) {
      records_.clear();
      failed_ = false;
    }
    return !failed;
  }

 private:
  bool failed_ = false;
  std::string failure_;
  std::vector<Recorded> records_;
  size_t bytes_ = 0;
  std::vector<size_t> marks_;  // where each Begin's records start
};

}  // namespace rowsocket
