// pool_driver: one librowsocket Pool, driven a line at a time, for
// test_pool_replicas.py, which restarts servers between the lines so that a single
// Pool lives through them.
//
//   pool_driver --reader HOST:PORT... --writer HOST:PORT... [--backoff-ms N]
//               [--read-your-writes-ms N]
//
// Each line of stdin is a command, answered by one line on stdout:
//   find T K              Pool::Find on test.T (columns k, v) where k = K: v, or "-"
//   insert T K V          Pool::Insert of (K, V): "ok"
//   session find|insert   the same through the driver's one Pool::Session
//   health                every endpoint as PORT:up or PORT:out, readers first
// A failed call answers "ERROR " and the error. Single-threaded.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "rowsocket/client.h"

namespace rs = rowsocket::client;

namespace {

rs::Endpoint ParseEndpoint(const std::string& text) {
  const size_t colon = text.rfind(':');
  return {text.substr(0, colon), static_cast<uint16_t>(std::atoi(text.c_str() + colon + 1))};
}

std::string Run(rs::Pool& pool, rs::Requester& via, std::istringstream& words) {
  std::string verb, table;
  int64_t key = 0;
  words >> verb >> table >> key;
  const rs::Index index("test", table, "PRIMARY", {"k", "v"});
  if (verb == "find") {
    rs::Result<rs::Rows> rows = via.Find(index, rs::Query("=", {key}));
    if (!rows.ok()) return "ERROR " + rows.error().ToString();
    return rows->empty() ? "-" : (*rows)[0][1].str();
  }
  if (verb == "insert") {
    std::string value;
    words >> value;
    rs::Result<uint64_t> r = via.Insert(index, {key, value});
    return r.ok() ? "ok" : "ERROR " + r.error().ToString();
  }
  if (verb == "health") {
    std::string line;
    for (const rs::EndpointStatus& e : pool.endpoints()) {
      line += (line.empty() ? "" : " ") + std::to_string(e.endpoint.port);
      line += e.up ? ":up" : ":out";
    }
    return line;
  }
  return "ERROR unknown command " + verb;
}

}  // namespace

int main(int argc, char** argv) {
  rs::PoolOptions options;
  options.connect.connect_timeout = std::chrono::seconds(2);
  options.connect.io_timeout = std::chrono::seconds(20);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--reader") {
      options.readers.push_back(ParseEndpoint(value));
    } else if (flag == "--writer") {
      options.writers.push_back(ParseEndpoint(value));
    } else if (flag == "--backoff-ms") {
      options.min_backoff = std::chrono::milliseconds(std::atoi(value.c_str()));
      options.max_backoff = options.min_backoff;
    } else if (flag == "--read-your-writes-ms") {
      options.read_your_writes = std::chrono::milliseconds(std::atoi(value.c_str()));
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  rs::Pool pool(options);
  rs::Pool::Session session(pool);
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    rs::Requester* via = &pool;
    if (line.compare(0, 8, "session ") == 0) {
      std::string skip;
      words >> skip;
      via = &session;
    }
    std::cout << Run(pool, *via, words) << std::endl;
  }
  return 0;
}
