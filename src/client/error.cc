// Error texts: the wire's error messages explained in words (the words' meanings
// come from the protocol layer's vocabulary, wire_errors.h; numbers from here).
//
// Called by Error::ToString and by rowsocket-cli, which prints the explanation next
// to the wire code ("2 1 kpnum (more key values than the index has key parts)").
// The tables are constant; any thread.
#include <cstring>
#include <string>
#include <string_view>

#include "rowsocket/batch.h"
#include "rowsocket/result.h"
#include "protocol/wire_errors.h"

namespace rowsocket {
namespace client {

namespace {

struct Explained {
  const char* message;
  const char* words;
};

// Code 1 with a number: the storage engine's or SQL's own error.
constexpr Explained kEngineErrors[] = {
    {"120", "row not found"},
    {"121", "duplicate key"},
    {"122", "internal storage engine error"},
    {"123", "the row changed since it was read"},
    {"126", "the index is corrupt"},
    {"131", "the storage engine does not support this"},
    {"134", "the row was deleted"},
    {"135", "the table is full"},
    {"137", "end of file"},
    {"138", "unsupported"},
    {"139", "the row is too big"},
    {"146", "lock wait timeout"},
    {"147", "the lock table is full"},
    {"148", "read-only transaction"},
    {"149", "deadlock; the request was rolled back"},
    {"151", "a foreign key refers to a missing parent row"},
    {"152", "a foreign key child row refers to this row"},
    {"155", "the table does not exist in the engine"},
    {"165", "the table is read-only"},
    {"167", "auto-increment value out of range"},
    {"189", "the disk is full"},
    {"1047", "the Galera node is not ready for clients (see wsrep_ready)"},
    {"1048", "NULL given for a NOT NULL column"},
    {"1213", "a Galera write to a table without a primary key (wsrep_certify_nonPK)"},
    {"1264", "a value out of its column's range (strict sql_mode)"},
    {"1290", "writes are refused while the server runs with read_only"},
    {"1292", "a value that is not a number or date where one is needed (strict sql_mode)"},
    {"1366", "a value that is not a number for a numeric column (strict sql_mode)"},
    {"1406", "a value too long for its column (strict sql_mode)"},
    {"1690", "the result of + or - is out of range"},
    {"1906", "generated and period columns take no values"},
    {"4025", "a CHECK constraint refused the row"},
};

template <size_t N>
std::string_view Lookup(const Explained (&table)[N], std::string_view message) {
  for (const Explained& e : table) {
    if (message == e.message) return e.words;
  }
  return {};
}

}  // namespace

std::string_view ExplainServerError(int code, std::string_view message) {
  std::string_view words = MeaningOf(code, message);
  if (!words.empty() || code != 1) return words;
  words = Lookup(kEngineErrors, message);
  if (words.empty() && !message.empty() &&
      message.find_first_not_of("0123456789") == std::string_view::npos) {
    return "storage engine or SQL error number (see perror)";
  }
  return words;
}

std::string_view Error::explanation() const {
  return kind_ == ErrorKind::kServer ? ExplainServerError(code_, message_) : std::string_view();
}

std::string Error::ToString() const {
  std::string s;
  switch (kind_) {
    case ErrorKind::kServer: {
      s = std::to_string(code_) + " 1";
      if (!message_.empty()) s += " " + message_;
      std::string_view words = explanation();
      if (!words.empty()) s.append(" (").append(words).append(")");
      break;
    }
    case ErrorKind::kIo: s = "I/O error: " + message_; break;
    case ErrorKind::kUsage: s = "usage error: " + message_; break;
  }
  return s;
}

bool BatchResult::ok() const { return first_error() == nullptr && answered == replies.size(); }

const Error* BatchResult::first_error() const {
  for (const Result<Reply>& r : replies) {
    if (!r.ok()) return &r.error();
  }
  return nullptr;
}

}  // namespace client
}  // namespace rowsocket
