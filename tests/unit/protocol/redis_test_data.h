// Helpers shared by the Redis protocol tests: the reference data redis-server's
// answers made (tests/unit/protocol/data/*.tsv, written by
// tests/integration/redis_reference.py), and a RESP stream framed by RedisParser fed
// all at once or one byte at a time.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/redis.h"

namespace rowsocket {
namespace redis_test {

// The bytes a data file's escaped field stands for (\r \n \t \\ \xHH).
inline std::string Unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out.push_back(text[i]);
      continue;
    }
    const char n = text[++i];
    if (n == 'x' && i + 2 < text.size() + 0) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(n == 'r' ? '\r' : n == 'n' ? '\n' : n == 't' ? '\t' : n);
    }
  }
  return out;
}

// The tab-separated fields of each line of a data file, comments left out.
inline std::vector<std::vector<std::string>> ReadData(const std::string& file) {
  std::ifstream in(std::string(ROWSOCKET_REDIS_DATA_DIR) + "/" + file);
  EXPECT_TRUE(in.good()) << file;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
      const size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    rows.push_back(fields);
  }
  return rows;
}

// What framing `input` gives: the commands' words, and then the error (or "" when
// the input ended waiting for more).
struct Framed {
  std::vector<std::vector<std::string>> commands;
  std::string error;
  size_t consumed = 0;  // bytes taken by the commands
};

// Feeds `input` to one parser, all of it at once (step 0) or growing `step` bytes at
// a time, as a connection's buffer grows.
inline Framed Frame(std::string_view input, size_t step = 0, bool authenticated = true,
                    const RedisLimits& limits = RedisLimits()) {
  RedisParser parser(limits);
  RedisCommand command;
  Framed framed;
  size_t have = step == 0 ? input.size() : std::min(step, input.size());
  for (;;) {
    // A fresh copy each call, so that nothing may point into an older one.
    const std::string buffer(input.substr(framed.consumed, have - framed.consumed));
    const RedisParseResult r = parser.Parse(buffer, authenticated, &command);
    if (r.status == RedisParseStatus::kError) {
      framed.error = r.error;
      return framed;
    }
    if (r.status == RedisParseStatus::kCommand) {
      EXPECT_GE(r.consumed, 1u);
      EXPECT_LE(r.consumed, buffer.size());
      std::vector<std::string> words;
      for (std::string_view w : command.argv) words.emplace_back(w);
      if (!words.empty()) framed.commands.push_back(words);
      framed.consumed += r.consumed;
      continue;
    }
    if (have == input.size()) return framed;
    have = step == 0 ? input.size() : std::min(have + step, input.size());
  }
}

}  // namespace redis_test
}  // namespace rowsocket
