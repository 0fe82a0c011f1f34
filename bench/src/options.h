// Command-line options of rowsocket-bench, and the data model they describe.
//
// rowsocket-bench is a closed-loop load generator: N connections spread over T
// threads, each connection keeping D requests in flight, against one target that
// speaks the HandlerSocket protocol, memcached's text protocol or MariaDB SQL. The
// Options struct is filled once by ParseOptions on the main thread and read-only
// afterwards, so every thread may read it without synchronization.
//
// The data model is fixed and shared with bench/compare's loader: rows 1..rows of
// `user(user_id, user_name, user_email, created)`, where user_name is
// "user<(id-1)/4>" (four rows per name) and user_email "user<id>@example.com"; the
// secondary-index table carries the same rows with an index on user_name; memcached
// holds "u<id>" -> the row's four values joined by TAB, and "n<group>" -> the rows
// of one name joined by LF.
//
// With --kv the rows are the items of rowsocket's memcached container instead
// (rowsocket.kv: k VARBINARY PRIMARY KEY, v, cas, flags, expires), holding exactly
// what memcached holds: k = "u<id>", v = the row's four values joined by TAB. HS then
// opens rowsocket.kv's PRIMARY on v,cas,flags,expires (the columns the memcached
// listener reads), SQL selects those columns by k, and an update writes the whole
// item as memcached's `set` does (HS: U of v,cas,flags,expires; SQL: INSERT ... ON
// DUPLICATE KEY UPDATE), with the update's stamp as the new CAS. Get and update only.
//
// --item-keys P makes memcached's item keys "P<id>" instead of "u<id>": with
// "@@row." they are the keys of rowsocket's container `row`, the rows of test.user
// themselves (INT key user_id; its value the row's four columns joined by TAB, as
// memcached's items). Get only.
//
// Redis (--target redis) always reads and writes those items: GET or MGET of
// "u<id>", SET of the whole value. With --hash a get is HGETALL "user:<id>", the
// fields user_name, user_email and created of the user row (redis-server: a hash
// loaded with them; rowsocket: the row of test.user through a container `user`).
#pragma once

#include <cstdint>
#include <string>

namespace bench {

// Rows that share one user_name (the non-unique secondary index case).
constexpr uint64_t kRowsPerName = 4;
// Most keys a multi-key request may carry.
constexpr uint32_t kMaxKeysPerRequest = 64;

enum class TargetKind { kHandlerSocket, kMemcached, kRedis, kSqlText, kSqlPrepared };

enum class Workload {
  kGet,       // one row by primary key (or several with --keys > 1)
  kIndexGet,  // the rows of one user_name through the non-unique secondary index
  kRange,     // a primary-key scan from a key with LIMIT
  kInsert,    // a fresh key
  kUpdate,    // user_email of an existing row by primary key
  kDelete,    // a key of the pool [key_base, key_base+key_count)
  kMix,       // PK gets, with write_pct percent updates
};

enum class Distribution { kUniform, kZipf };

struct Options {
  TargetKind target = TargetKind::kHandlerSocket;
  Workload workload = Workload::kGet;
  Distribution dist = Distribution::kUniform;

  std::string host = "127.0.0.1";
  int port = 0;
  std::string user = "root";   // SQL only
  std::string password;        // SQL only
  std::string db = "test";
  std::string table = "user";
  std::string index_table = "user_si";
  std::string index_name = "user_name";

  int conns = 8;
  int threads = 1;
  int depth = 1;              // requests in flight per connection
  int batch = 1;              // requests per round trip: HS sends `batch` lines in one
                              // write and waits for every answer before the next ones;
                              // SQL sends one statement covering `batch` rows
  uint32_t keys = 1;          // keys per get request (HS IN, SQL IN, memcached multi-get)
  uint32_t limit = 10;        // rows per range scan / index get
  uint64_t rows = 1000000;    // existing keys are 1..rows
  double zipf_theta = 0.99;
  int write_pct = 10;         // kMix: percent of requests that are updates
  uint64_t key_base = 0;      // kInsert, kDelete: first key (0: rows + 1 for inserts)
  uint64_t key_count = 0;     // kInsert, kDelete: keys available (0: unbounded inserts)
  uint64_t seed = 1;

  double duration_s = 5;
  double warmup_s = 1;
  int server_pid = 0;         // process whose CPU time is measured (0: none)
  std::string label;          // free text copied into the result
  std::string json_path;      // where to write the JSON result ("" = nowhere)
  bool progress = true;       // live line on stdout when it is a terminal
  bool ssl = false;           // HS over TLS (the server's certificate is not checked)
  bool kv = false;            // the key-value container's data model (see above)
  std::string item_keys = "u";  // memcached: an item's key is this and the row's id
  bool hash = false;          // Redis: a get is HGETALL user:<id> (the user row's fields)
};

// Fills `*out` from argv. Returns "" on success, else a message for the user.
std::string ParseOptions(int argc, char** argv, Options* out);

// The usage text printed by --help and after a bad option.
const char* UsageText();

// Names for reports and for parsing; the inverse of the --target/--workload values.
const char* TargetName(TargetKind t);
const char* WorkloadName(Workload w);
const char* DistributionName(Distribution d);

// True for workloads that write.
inline bool IsWrite(Workload w) {
  return w == Workload::kInsert || w == Workload::kUpdate || w == Workload::kDelete ||
         w == Workload::kMix;
}

}  // namespace bench
