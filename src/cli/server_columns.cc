// The `?describe` request line and the reading of its answer, through the protocol
// layer's codec and answer reader.
#include "server_columns.h"

#include "protocol/answer.h"
#include "protocol/codec.h"
#include "protocol/decimal.h"
#include "protocol/request.h"
#include "protocol/wire_errors.h"

namespace rowsocket {
namespace cli {

using client::Error;

bool DescribedColumn::selectable() const {
  size_t start = 0;
  for (;;) {
    const size_t comma = privileges.find(',', start);
    if (privileges.compare(start, comma == std::string::npos ? comma : comma - start,
                           "select") == 0)
      return true;
    if (comma == std::string::npos) return false;
    start = comma + 1;
  }
}

std::string DescribeRequest(const std::string& db, const std::string& table,
                            const std::string& index) {
  std::string line(kDescribeCommand);
  for (const std::string* name : {&db, &table, &index}) {
    line.push_back('\t');
    AppendEncoded(&line, *name);
  }
  line.push_back('\n');
  return line;
}

client::Result<std::vector<DescribedColumn>> ParseDescribeAnswer(const std::string& line) {
  std::string buffer = line;  // decoded in place
  Answer answer;
  if (!ParseAnswer(buffer.data(), buffer.size(), &answer))
    return Error::Usage("not an answer to ?describe: " + line);
  if (!answer.ok()) return Error::Server(static_cast<int>(answer.code), std::string(answer.message()));
  // Fields past the ones known here are a later version's: skipped.
  const size_t width = answer.count;
  if (width < kDescribeFields || answer.values.size() % width != 0)
    return Error::Usage("not an answer to ?describe: " + line);
  std::vector<DescribedColumn> columns;
  for (size_t row = 0; row < answer.values.size(); row += width) {
    const WireValue* v = &answer.values[row];
    DescribedColumn c;
    if (v[0].is_null || v[1].is_null || v[2].is_null ||
        !ParseDecimal(v[1].view(), &c.key_part))
      return Error::Usage("not an answer to ?describe: " + line);
    c.name.assign(v[0].view());
    c.privileges.assign(v[2].view());
    columns.push_back(std::move(c));
  }
  return columns;
}

bool IsUnknownRequest(const Error& e) {
  return e.is_server() && e.code() == 2 && Describe(WireError::kCmd).word == e.message();
}

std::vector<std::string> ColumnsToOpen(const std::vector<DescribedColumn>& columns) {
  std::vector<std::string> names;
  for (const DescribedColumn& c : columns)
    if (c.selectable()) names.push_back(c.name);
  if (names.empty())
    for (const DescribedColumn& c : columns) names.push_back(c.name);
  return names;
}

}  // namespace cli
}  // namespace rowsocket
