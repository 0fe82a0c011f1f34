// ParseOptions: argv of rowsocket-bench into an Options value, with checks that
// catch combinations no target can run (SQL cannot pipeline, memcached cannot scan a
// range) before any connection is made. Called once by main; single-threaded.
#include "options.h"

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace bench {

namespace {

bool ToInt(std::string_view s, long long lo, long long hi, long long* out) {
  if (s.empty()) return false;
  std::string copy(s);
  char* end = nullptr;
  long long v = std::strtoll(copy.c_str(), &end, 10);
  if (*end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool ToDouble(std::string_view s, double lo, double hi, double* out) {
  if (s.empty()) return false;
  std::string copy(s);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (*end != '\0' || !(v >= lo && v <= hi)) return false;
  *out = v;
  return true;
}

std::string Check(const Options& o) {
  if (o.port <= 0) return "--port is required";
  const bool sql = o.target == TargetKind::kSqlText || o.target == TargetKind::kSqlPrepared;
  if (sql && o.depth != 1)
    return "SQL cannot keep more than one request in flight per connection: use --depth 1";
  if (o.target == TargetKind::kMemcached && o.workload == Workload::kRange)
    return "memcached has no range scan";
  if (o.batch > 1 && o.depth > 1)
    return "--batch and --depth do not combine: a batch is the requests of one round trip";
  if (o.batch > 1 && sql && (o.target != TargetKind::kSqlText || !IsWrite(o.workload) ||
                             o.workload == Workload::kMix))
    return "SQL batches are multi-row insert, update and delete statements: use --target sql "
           "with --workload insert, update or delete";
  if (o.keys > 1 && o.workload != Workload::kGet)
    return "--keys > 1 applies to the get workload only";
  if (o.workload == Workload::kDelete && o.key_count == 0)
    return "the delete workload needs --key-base and --key-count (a pool of existing rows)";
  if (o.workload == Workload::kRange && o.rows < o.limit) return "--rows must be >= --limit";
  if (o.keys > o.rows) return "--keys must be <= --rows";
  if (o.threads > o.conns) return "--threads must be <= --conns";
  if (o.ssl && o.target != TargetKind::kHandlerSocket) return "--ssl applies to --target hs only";
  if (o.kv && o.workload != Workload::kGet && o.workload != Workload::kUpdate)
    return "--kv runs the get and update workloads only";
  if (o.kv && o.batch > 1) return "--kv does not combine with --batch";
  if (o.item_keys != "u" && (o.target != TargetKind::kMemcached || o.workload != Workload::kGet))
    return "--item-keys applies to --target memcached, get workload";
  if (o.target == TargetKind::kRedis &&
      ((o.workload != Workload::kGet && o.workload != Workload::kUpdate) || o.batch > 1))
    return "redis runs the get and update workloads, without --batch";
  if (o.hash && (o.target != TargetKind::kRedis || o.workload != Workload::kGet || o.keys > 1))
    return "--hash applies to --target redis, get of one key";
  return "";
}

}  // namespace

const char* UsageText() {
  return
      "usage: rowsocket-bench --target T --port P [options]\n"
      "  --target hs|memcached|redis|sql|sql-prepared   protocol to speak (default hs)\n"
      "  --host H --port P        server address (for HS: the read or the write port)\n"
      "  --workload W             get|index|range|insert|update|delete|mix (default get)\n"
      "  --dist uniform|zipf      key distribution (default uniform); --zipf-theta X\n"
      "  --conns N --threads T --depth D   closed loop: N connections over T threads,\n"
      "                           D requests in flight each (SQL: D must be 1)\n"
      "  --batch B                requests per round trip: HS writes B requests at once and\n"
      "                           waits for all B answers; SQL (text; insert, update,\n"
      "                           delete) sends one statement of B rows (INSERT of B rows,\n"
      "                           UPDATE/DELETE ... WHERE user_id IN). qps counts rows\n"
      "  --keys K                 keys per get request (HS IN, SQL IN, memcached get, MGET)\n"
      "  --limit L                rows per range scan and index get (default 10)\n"
      "  --rows R                 existing keys are 1..R (default 1000000)\n"
      "  --write-pct P            mix: percent of updates (default 10)\n"
      "  --key-base B --key-count C   insert: fresh keys from B; delete: pool of C keys\n"
      "  --duration S --warmup S  measurement window and warm-up (default 5, 1)\n"
      "  --server-pid PID         process whose CPU per request is reported\n"
      "  --db --table --index-table --index-name   names (test, user, user_si, user_name)\n"
      "  --user U --password P    SQL login (default root, empty)\n"
      "  --ssl                    HS over TLS (rowsocket; the certificate is not checked)\n"
      "  --kv                     the memcached container's rows (rowsocket.kv, keys u<id>)\n"
      "                           for HS and SQL too: get, and update as a whole-item set\n"
      "                           (redis: always; GET/MGET, update a SET of the value)\n"
      "  --item-keys P            memcached: item keys P<id> (default u; @@row.: rowsocket's\n"
      "                           container `row`, the rows of test.user); get only\n"
      "  --hash                   redis: a get is HGETALL user:<id> (the user row's fields)\n"
      "  --seed N --label TEXT --json FILE --no-progress\n"
      "Prints one line 'RESULT key=value ...' per run; --json writes the same as JSON.\n";
}

const char* TargetName(TargetKind t) {
  switch (t) {
    case TargetKind::kHandlerSocket: return "hs";
    case TargetKind::kMemcached: return "memcached";
    case TargetKind::kRedis: return "redis";
    case TargetKind::kSqlText: return "sql";
    case TargetKind::kSqlPrepared: return "sql-prepared";
  }
  return "?";
}

const char* WorkloadName(Workload w) {
  switch (w) {
    case Workload::kGet: return "get";
    case Workload::kIndexGet: return "index";
    case Workload::kRange: return "range";
    case Workload::kInsert: return "insert";
    case Workload::kUpdate: return "update";
    case Workload::kDelete: return "delete";
    case Workload::kMix: return "mix";
  }
  return "?";
}

const char* DistributionName(Distribution d) {
  return d == Distribution::kZipf ? "zipf" : "uniform";
}

std::string ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view name = argv[i];
    if (name == "--no-progress") { o->progress = false; continue; }
    if (name == "--ssl") { o->ssl = true; continue; }
    if (name == "--kv") { o->kv = true; continue; }
    if (name == "--hash") { o->hash = true; continue; }
    if (name == "--help" || name == "-h") return "help";
    if (i + 1 >= argc) return "missing value after " + std::string(name);
    std::string_view v = argv[++i];
    long long n = 0;
    double d = 0;
    const std::string bad = "bad value for " + std::string(name) + ": " + std::string(v);
    if (name == "--target") {
      if (v == "hs") o->target = TargetKind::kHandlerSocket;
      else if (v == "memcached") o->target = TargetKind::kMemcached;
      else if (v == "redis") o->target = TargetKind::kRedis;
      else if (v == "sql") o->target = TargetKind::kSqlText;
      else if (v == "sql-prepared") o->target = TargetKind::kSqlPrepared;
      else return bad;
    } else if (name == "--workload") {
      if (v == "get") o->workload = Workload::kGet;
      else if (v == "index") o->workload = Workload::kIndexGet;
      else if (v == "range") o->workload = Workload::kRange;
      else if (v == "insert") o->workload = Workload::kInsert;
      else if (v == "update") o->workload = Workload::kUpdate;
      else if (v == "delete") o->workload = Workload::kDelete;
      else if (v == "mix") o->workload = Workload::kMix;
      else return bad;
    } else if (name == "--dist") {
      if (v == "uniform") o->dist = Distribution::kUniform;
      else if (v == "zipf") o->dist = Distribution::kZipf;
      else return bad;
    } else if (name == "--host") { o->host = std::string(v);
    } else if (name == "--port") { if (!ToInt(v, 1, 65535, &n)) return bad; o->port = int(n);
    } else if (name == "--user") { o->user = std::string(v);
    } else if (name == "--password") { o->password = std::string(v);
    } else if (name == "--db") { o->db = std::string(v);
    } else if (name == "--table") { o->table = std::string(v);
    } else if (name == "--index-table") { o->index_table = std::string(v);
    } else if (name == "--index-name") { o->index_name = std::string(v);
    } else if (name == "--conns") { if (!ToInt(v, 1, 100000, &n)) return bad; o->conns = int(n);
    } else if (name == "--threads") { if (!ToInt(v, 1, 1024, &n)) return bad; o->threads = int(n);
    } else if (name == "--depth") { if (!ToInt(v, 1, 4096, &n)) return bad; o->depth = int(n);
    } else if (name == "--batch") { if (!ToInt(v, 1, 100000, &n)) return bad; o->batch = int(n);
    } else if (name == "--keys") {
      if (!ToInt(v, 1, kMaxKeysPerRequest, &n)) return bad;
      o->keys = uint32_t(n);
    } else if (name == "--limit") { if (!ToInt(v, 1, 10000, &n)) return bad; o->limit = uint32_t(n);
    } else if (name == "--rows") { if (!ToInt(v, 1, 4000000000LL, &n)) return bad; o->rows = uint64_t(n);
    } else if (name == "--zipf-theta") { if (!ToDouble(v, 0.01, 0.9999, &d)) return bad; o->zipf_theta = d;
    } else if (name == "--write-pct") { if (!ToInt(v, 0, 100, &n)) return bad; o->write_pct = int(n);
    } else if (name == "--key-base") { if (!ToInt(v, 1, 4000000000LL, &n)) return bad; o->key_base = uint64_t(n);
    } else if (name == "--key-count") { if (!ToInt(v, 1, 4000000000LL, &n)) return bad; o->key_count = uint64_t(n);
    } else if (name == "--seed") { if (!ToInt(v, 0, INT64_MAX, &n)) return bad; o->seed = uint64_t(n);
    } else if (name == "--duration") { if (!ToDouble(v, 0.05, 86400, &d)) return bad; o->duration_s = d;
    } else if (name == "--warmup") { if (!ToDouble(v, 0, 3600, &d)) return bad; o->warmup_s = d;
    } else if (name == "--server-pid") { if (!ToInt(v, 1, INT32_MAX, &n)) return bad; o->server_pid = int(n);
    } else if (name == "--item-keys") {
      if (v.empty() || v.find_first_of(" \t\r\n") != v.npos) return bad;
      o->item_keys = std::string(v);
    } else if (name == "--label") { o->label = std::string(v);
    } else if (name == "--json") { o->json_path = std::string(v);
    } else {
      return "unknown option " + std::string(name);
    }
  }
  if (o->key_base == 0) o->key_base = o->rows + 1;
  if (o->kv && o->db == "test" && o->table == "user") {
    o->db = "rowsocket";
    o->table = "kv";
  }
  return Check(*o);
}

}  // namespace bench
