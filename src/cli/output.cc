// RenderRows, ShowValue, ShowRawLine: the CLI's printing (see output.h).
//
// Widths in the table format count UTF-8 code points, not bytes, so names with
// accents line up. Called by the Session on the CLI's only thread.
#include "output.h"

#include <algorithm>
#include <cstdio>

namespace rowsocket {
namespace cli {

namespace {

void AppendEscaped(std::string* out, unsigned char c, bool keep_tab) {
  switch (c) {
    case '\t': out->append(keep_tab ? "\t" : "\\t"); return;
    case '\n': out->append("\\n"); return;
    case '\r': out->append("\\r"); return;
    case '\\': out->append("\\\\"); return;
    case '\0': out->append("\\0"); return;
    default: break;
  }
  if (c < 0x20 || c == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "\\x%02x", c);
    out->append(buf);
  } else {
    out->push_back(static_cast<char>(c));
  }
}

// Display width: UTF-8 continuation bytes take no column.
size_t Width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

std::string Name(const std::vector<std::string>& names, size_t i) {
  return i < names.size() ? names[i] : "#" + std::to_string(i + 1);
}

std::string Pad(const std::string& s, size_t width) {
  return s + std::string(width > Width(s) ? width - Width(s) : 0, ' ');
}

std::string RenderTable(const std::vector<std::string>& names, const client::Rows& rows,
                        size_t ncols) {
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> widths(ncols, 0);
  for (size_t j = 0; j < ncols; ++j) widths[j] = Width(Name(names, j));
  for (const client::Row& row : rows) {
    std::vector<std::string> line;
    for (size_t j = 0; j < ncols; ++j) {
      line.push_back(j < row.size() ? ShowValue(row[j]) : "");
      widths[j] = std::max(widths[j], Width(line.back()));
    }
    cells.push_back(std::move(line));
  }
  std::string rule = "+";
  for (size_t w : widths) rule += std::string(w + 2, '-') + "+";
  rule += "\n";
  std::string out = rule + "|";
  for (size_t j = 0; j < ncols; ++j) out += " " + Pad(Name(names, j), widths[j]) + " |";
  out += "\n" + rule;
  for (const auto& line : cells) {
    out += "|";
    for (size_t j = 0; j < ncols; ++j) out += " " + Pad(line[j], widths[j]) + " |";
    out += "\n";
  }
  return out + rule;
}

std::string RenderVertical(const std::vector<std::string>& names, const client::Rows& rows,
                           size_t ncols) {
  size_t width = 0;
  for (size_t j = 0; j < ncols; ++j) width = std::max(width, Width(Name(names, j)));
  std::string out;
  for (size_t i = 0; i < rows.size(); ++i) {
    out += "*************************** " + std::to_string(i + 1) +
           ". row ***************************\n";
    for (size_t j = 0; j < rows[i].size(); ++j) {
      const std::string name = Name(names, j);
      out += std::string(width - Width(name), ' ') + name + ": " + ShowValue(rows[i][j]) + "\n";
    }
  }
  return out;
}

}  // namespace

std::string ShowValue(const client::Value& v) {
  if (v.is_null()) return "NULL";
  std::string out;
  for (char c : v.view()) AppendEscaped(&out, static_cast<unsigned char>(c), false);
  return out;
}

std::string ShowRawLine(std::string_view line) {
  std::string out;
  for (char c : line) AppendEscaped(&out, static_cast<unsigned char>(c), true);
  return out;
}

std::string RenderRows(const std::vector<std::string>& names, const client::Rows& rows,
                       Format format, bool header) {
  size_t ncols = names.size();
  for (const client::Row& row : rows) ncols = std::max(ncols, row.size());
  switch (format) {
    case Format::kTable: return RenderTable(names, rows, ncols);
    case Format::kVertical: return RenderVertical(names, rows, ncols);
    case Format::kTab: break;
  }
  std::string out;
  if (header) {
    for (size_t j = 0; j < ncols; ++j) out += (j ? "\t" : "") + Name(names, j);
    out += "\n";
  }
  for (const client::Row& row : rows) {
    for (size_t j = 0; j < row.size(); ++j) {
      if (j) out += "\t";
      out += ShowValue(row[j]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace cli
}  // namespace rowsocket
