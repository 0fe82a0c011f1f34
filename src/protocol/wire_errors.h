// The wire's error vocabulary: every word rowsocket answers in `<code> 1 <word>`,
// with its class and what it means for a person. (Errors that are numbers are the
// storage engine's or SQL's own codes.) The parser, the server, the engine and the
// client library all take their words from here, and rowsocket-cli prints the
// meanings. Constant tables; any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "protocol/wire_status.h"

namespace rowsocket {

enum class WireError : uint8_t {
  // Code 1: the table or the storage engine.
  kOpenTable,    // open_table
  kLockTables,   // lock_tables
  kCommit,       // commit
  kTriggers,     // triggers
  kKilled,       // killed
  // Code 2: the request.
  kCmd,          // cmd
  kSyntax,       // syntax
  kReadOnly,     // readonly
  kStmtNum,      // stmtnum
  kIdxNum,       // idxnum
  kIdxType,      // idxtype
  kIdxOp,        // idxop
  kKpNum,        // kpnum
  kKlen,         // klen
  kFld,          // fld
  kOp,           // op
  kModOp,        // modop
  kFilterType,   // filtertype
  kFilterFld,    // filterfld
  kFilterBlob,   // filterblob
  kInValuesLen,  // invalueslen
  kLineLen,      // linelen
  kForbidden,    // forbidden
  kAnswerSize,   // answersize
  kRowsExamined, // rowsexamined
  // Code 3: authentication.
  kUnauth,       // unauth
  kAuthType,     // authtype
  kNonce,        // nonce
  kLocked,       // locked
  kExpired,      // expired
  kAuthPlugin,   // authplugin
  kTlsRequired,  // tlsrequired
  kMaxConn,      // maxconn
  kBlocked,      // blocked
  kDenied,       // denied
};

struct WireErrorInfo {
  WireStatus::Code code;
  std::string_view word;
  std::string_view meaning;
};

// The error's class, word and meaning.
const WireErrorInfo& Describe(WireError error);

// The error as an answer.
inline WireStatus ErrorStatus(WireError error) {
  const WireErrorInfo& info = Describe(error);
  return WireStatus::Of(info.code, info.word);
}

// What a word received with `code` means, including words of the original plugin
// that rowsocket never sends; empty if unknown.
std::string_view MeaningOf(int code, std::string_view word);

}  // namespace rowsocket
