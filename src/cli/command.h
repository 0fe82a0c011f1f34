// The human commands of rowsocket-cli, parsed: one line in, one Command out.
//
// Each command maps one-to-one onto a protocol request:
//   open   <db.table> [<index>] [<col,...>] [filter <col,...>]              P
//   find   <db.table> [using <index>] [columns <col,...>] <op> <key>...
//          [limit <n> [offset <m>]] [in <keypart> <v>...]
//          [where|while <col> <op> <v>]...                                   find
//   update / increment / decrement / delete: a find, then
//          set <v>... / by <v>... / by <v>... / nothing, and [returning]     U + - D (?)
//   insert <db.table> [columns <col,...>] [values] <v>...                   +
// plus the session's own commands (help, use, format, timing, raw, quit).
// Values are bare words or quoted '...' / "..." with \t \n \r \0 \\ \xHH escapes; a
// bare NULL is NULL, '' is the empty string. A trailing \G asks for vertical output.
// Pure; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rowsocket/result.h"
#include "rowsocket/value.h"

namespace rowsocket {
namespace cli {

using client::Result;
using client::Row;
using client::Value;

enum class Verb {
  kEmpty, kOpen, kFind, kInsert, kUpdate, kIncrement, kDecrement, kDelete,
  kHelp, kQuit, kUse, kFormat, kTiming, kRaw, kHuman,
};

struct CliFilter {
  bool stop = false;  // while (W) rather than where (F)
  std::string column;
  std::string op;
  Value value;
};

struct Command {
  Verb verb = Verb::kEmpty;
  std::string db, table;                    // db empty: the session's `use` database
  std::string index;                        // using / open's index; empty: the default
  std::vector<std::string> columns;         // columns / open's list; empty: the default
  std::vector<std::string> filter_columns;  // open's filter list
  std::string op;
  Row key;
  std::optional<uint32_t> limit, offset;
  bool has_in = false;
  uint32_t in_key_part = 0;
  Row in_values;
  std::vector<CliFilter> filters;
  Row values;               // set / by / insert values
  bool returning = false;   // the `?` forms
  bool vertical = false;    // ended with \G
  std::string argument;     // help topic, use's db, format name, timing on|off, raw target
};

// Parses one human command (no trailing newline).
Result<Command> ParseCommand(std::string_view line);

// Splits the text of -e (or a script) into commands at `;` and newlines outside
// quotes. Empty commands are dropped.
std::vector<std::string> SplitCommands(std::string_view text);

// Decodes the escapes of a value (\t \n \r \0 \\ \' \" \xHH); false on a bad escape.
bool Unescape(std::string_view text, std::string* out);

}  // namespace cli
}  // namespace rowsocket
