// Error texts: the wire error messages of PROTOCOL.md explained in words.
//
// Called by Error::ToString and by rowsocket-cli, which prints the explanation next
// to the wire code ("2 1 kpnum (more key values than the index has key parts)").
// The tables are constant; any thread.
#include <cstring>
#include <string>
#include <string_view>

#include "rowsocket/batch.h"
#include "rowsocket/result.h"

namespace rowsocket {
namespace client {

namespace {

struct Explained {
  const char* message;
  const char* words;
};

// Code 2: the request is wrong.
constexpr Explained kRequestErrors[] = {
    {"cmd", "unknown command: a request starts with P, A or an index id"},
    {"syntax", "malformed request (missing or extra tokens, or a bad number)"},
    {"notimpl", "not implemented by this server"},
    {"readonly", "writes are refused on the read-only listener; use the write port"},
    {"stmtnum", "index id not opened on this connection, or above rowsocket_max_open_indexes"},
    {"idxnum", "no index of that name on the table"},
    {"tblnum", "bad table"},
    {"kpnum", "more key values than the index has key parts"},
    {"klen", "a key value is too long for its key part"},
    {"fld", "unknown column, or more values than opened columns"},
    {"op", "unknown operator (find: = > >= < <=; filter: = != < <= > >=)"},
    {"modop", "bad modify: unknown operation, too many values, or +/- on a non-numeric column"},
    {"filtertype", "filter type must be F (skip) or W (stop)"},
    {"filterfld", "filter column number beyond the opened filter columns"},
    {"filterblob", "filters cannot compare BLOB or TEXT columns"},
    {"invalueslen", "fewer IN values than announced"},
    {"linelen", "request line longer than rowsocket_max_line_length; the server closed the "
                "connection"},
    {"forbidden", "system schemas cannot be opened (see rowsocket_allowed_system_schemas)"},
};

// Code 1: the table or the storage engine failed.
constexpr Explained kStorageErrors[] = {
    {"open_table", "the table does not exist or cannot be opened"},
    {"lock_tables", "the table could not be locked"},
    {"commit", "the transaction could not be committed"},
    {"default", "a column default could not be computed"},
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
    {"1048", "NULL given for a NOT NULL column"},
};

// Code 3: authentication.
constexpr Explained kAuthErrors[] = {
    {"unauth", "not authenticated: wrong or missing secret (A 1 <secret>, --secret)"},
    {"authtype", "unknown authentication type (only 1, the plain secret, exists)"},
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
  switch (code) {
    case 1: {
      std::string_view words = Lookup(kStorageErrors, message);
      if (words.empty() && !message.empty() && message.find_first_not_of("0123456789") ==
                                                    std::string_view::npos) {
        return "storage engine error (a handler error number, see my_base.h / perror)";
      }
      return words;
    }
    case 2: return Lookup(kRequestErrors, message);
    case 3: return Lookup(kAuthErrors, message);
    default: return {};
  }
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
