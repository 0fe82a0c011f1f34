// librowsocket's example (docs/CLIENT.md): reads, writes, a pipeline and an error, against
// the sample table test.user of scripts/run.sh. The test suite builds it and runs it
// against a private server (arguments: host, read port, write port).
//
//   g++ -std=c++17 client_example.cc $(pkg-config --cflags --libs rowsocket)
#include <rowsocket/client.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace rs = rowsocket::client;

// The value of a call that must succeed; prints the error and exits otherwise.
template <typename T>
T Must(rs::Result<T> result) {
  if (!result.ok()) {
    std::fprintf(stderr, "error: %s\n", result.error().ToString().c_str());
    std::exit(1);
  }
  return std::move(result.value());
}

int main(int argc, char** argv) {
  const std::string host = argc > 1 ? argv[1] : "127.0.0.1";
  const uint16_t port = argc > 2 ? std::atoi(argv[2]) : 9998;
  const uint16_t port_wr = argc > 3 ? std::atoi(argv[3]) : 9999;

  // Reads go to the read listener, writes to the write listener.
  rs::PoolOptions options;
  options.readers.push_back({host, port});
  options.writers.push_back({host, port_wr});
  rs::Pool pool(options);

  // An index and the columns to use; each connection opens it when first needed.
  rs::Index users("test", "user", "PRIMARY", {"user_id", "user_name", "user_email"});

  // Find by primary key.
  for (const rs::Row& row : Must(pool.Find(users, rs::Query("=", {101})))) {
    std::printf("%s <%s>\n", row[1].str().c_str(), row[2].str().c_str());
  }

  // Insert, then update; NULL (nullptr) and the empty string stay different.
  Must(pool.Insert(users, {104, "Ann", nullptr}));
  uint64_t changed = Must(pool.Update(users, rs::Query("=", {104}), {104, "Anne", ""}));
  std::printf("updated %llu row\n", static_cast<unsigned long long>(changed));

  // A pipeline: three finds in one write, their answers in order.
  rs::Batch batch;
  for (int id : {101, 104, 999}) batch.Find(users, rs::Query("=", {id}));
  rs::BatchResult result = pool.Execute(batch);
  for (const rs::Result<rs::Reply>& reply : result.replies) {
    if (!reply.ok()) {
      std::printf("failed: %s\n", reply.error().ToString().c_str());
    } else if (reply->rows().empty()) {
      std::printf("no such user\n");
    } else {
      const rs::Row& row = reply->rows()[0];
      std::printf("%s: %s, email %s\n", row[0].str().c_str(), row[1].str().c_str(),
                  row[2].is_null() ? "NULL" : ("'" + row[2].str() + "'").c_str());
    }
  }

  // Errors are values: the server's code and message, explained.
  rs::Result<rs::Rows> bad = pool.Find(users, rs::Query("=", {101, 1}));
  if (!bad.ok()) std::printf("%s\n", bad.error().ToString().c_str());

  // Delete by key; the answer counts the rows deleted.
  std::printf("deleted %llu row\n",
              static_cast<unsigned long long>(Must(pool.Remove(users, rs::Query("=", {104})))));
  return 0;
}
