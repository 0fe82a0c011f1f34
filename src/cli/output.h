// How rowsocket-cli prints rows and raw answer lines.
//
// Three row formats, as the mariadb client has them: tab-separated (for pipes; a
// value's TAB, LF and backslash are escaped so one line stays one row), an aligned
// table, and vertical (`\G`, one "column: value" line per column). NULL prints as
// NULL; bytes that would upset a terminal print as \xHH. Raw mode prints answer
// lines as they came, TABs kept, every other control byte shown as an escape.
// Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rowsocket/value.h"

namespace rowsocket {
namespace cli {

enum class Format { kTab, kTable, kVertical };

// Renders `rows` labelled by `names` (a row may have more values than names; the
// extra columns are labelled by position). `header` adds the names line to kTab.
std::string RenderRows(const std::vector<std::string>& names, const client::Rows& rows,
                       Format format, bool header);

// A value for display: NULL as NULL; \t \n \r \\ and other control bytes escaped.
std::string ShowValue(const client::Value& v);

// A raw answer line for display: TABs kept, the NULL byte as \0, other control
// bytes (the protocol's 0x01 escape byte included) as \xHH, backslash doubled.
std::string ShowRawLine(std::string_view line);

}  // namespace cli
}  // namespace rowsocket
