// information_schema tables of rowsocket:
//   ROWSOCKET_CONNECTIONS  one row per client connection
//   ROWSOCKET_LATENCY      request latency histogram, per request category
// Filled on the querying client's thread from the running Server's snapshots.
// ExposeServer() (plugin thread) and the fill functions share one mutex, so an
// UNINSTALL never pulls the server away from under a query.
#include <mutex>

#include "engine/engine.h"
#include "engine/server_headers.h"
#include "sql_i_s.h"
#include "sql_show.h"
#include "seam/server_view.h"

namespace rowsocket {
namespace {

std::mutex g_server_mutex;
const ServerView* g_server = nullptr;

namespace Show = ::Show;

ST_FIELD_INFO connection_fields[] = {
    Show::Column("ID", Show::ULonglong(), NOT_NULL),
    Show::Column("LISTENER", Show::Varchar(8), NOT_NULL),
    Show::Column("PEER", Show::Varchar(64), NOT_NULL),
    Show::Column("WORKER", Show::ULong(), NOT_NULL),
    Show::Column("AUTHENTICATED", Show::Varchar(3), NOT_NULL),
    Show::Column("OPEN_INDEXES", Show::ULong(), NOT_NULL),
    Show::Column("REQUESTS", Show::ULonglong(), NOT_NULL),
    Show::Column("BYTES_RECEIVED", Show::ULonglong(), NOT_NULL),
    Show::Column("BYTES_SENT", Show::ULonglong(), NOT_NULL),
    Show::Column("CONNECTED_SECONDS", Show::ULonglong(), NOT_NULL),
    Show::Column("IDLE_SECONDS", Show::ULonglong(), NOT_NULL),
    Show::Column("TLS", Show::Varchar(16), NOT_NULL),
    Show::Column("ACCOUNT", Show::Varchar(USERNAME_CHAR_LENGTH + HOSTNAME_LENGTH + 1), NOT_NULL),
    Show::CEnd()};

ST_FIELD_INFO latency_fields[] = {
    Show::Column("KIND", Show::Varchar(8), NOT_NULL),
    Show::Column("UPPER_BOUND_MICROSECONDS", Show::ULonglong(), NULLABLE),
    Show::Column("REQUESTS", Show::ULonglong(), NOT_NULL),
    Show::CEnd()};

void StoreText(Field* f, const std::string& s) { f->store(s.data(), s.size(), system_charset_info); }
void StoreUnsigned(Field* f, uint64_t v) { f->store(static_cast<longlong>(v), true); }

int FillConnections(THD* thd, TABLE_LIST* tables, COND*) {
  std::vector<ConnectionInfo> rows;
  {
    std::lock_guard<std::mutex> lock(g_server_mutex);
    if (g_server) rows = g_server->DescribeConnections();
  }
  TABLE* table = tables->table;
  for (const ConnectionInfo& c : rows) {
    Field** f = table->field;
    StoreUnsigned(f[0], c.id);
    StoreText(f[1], c.listener);
    StoreText(f[2], c.peer);
    StoreUnsigned(f[3], static_cast<uint64_t>(c.worker));
    StoreText(f[4], c.authenticated ? "YES" : "NO");
    StoreUnsigned(f[5], c.open_indexes);
    StoreUnsigned(f[6], c.requests);
    StoreUnsigned(f[7], c.bytes_received);
    StoreUnsigned(f[8], c.bytes_sent);
    StoreUnsigned(f[9], c.connected_ms / 1000);
    StoreUnsigned(f[10], c.idle_ms / 1000);
    StoreText(f[11], c.tls);
    StoreText(f[12], c.account);
    if (schema_table_store_record(thd, table)) return 1;
  }
  return 0;
}

int FillLatency(THD* thd, TABLE_LIST* tables, COND*) {
  StatsSnapshot stats;
  {
    std::lock_guard<std::mutex> lock(g_server_mutex);
    if (g_server) stats = g_server->CollectStats();
  }
  TABLE* table = tables->table;
  for (size_t k = 0; k < kRequestCategories; ++k) {
    for (size_t b = 0; b < kLatencyBuckets; ++b) {
      Field** f = table->field;
      StoreText(f[0], RequestCategoryName(static_cast<RequestCategory>(k)));
      if (b + 1 < kLatencyBuckets) {
        f[1]->set_notnull();
        StoreUnsigned(f[1], kLatencyBoundsUs[b]);
      } else {
        f[1]->set_null();
      }
      StoreUnsigned(f[2], stats.latency[k][b]);
      if (schema_table_store_record(thd, table)) return 1;
    }
  }
  return 0;
}

}  // namespace

void ExposeServer(const ServerView* server) {
  std::lock_guard<std::mutex> lock(g_server_mutex);
  g_server = server;
}

int InitConnectionsTable(void* p) {
  auto* schema = static_cast<ST_SCHEMA_TABLE*>(p);
  schema->fields_info = connection_fields;
  schema->fill_table = FillConnections;
  return 0;
}

int InitLatencyTable(void* p) {
  auto* schema = static_cast<ST_SCHEMA_TABLE*>(p);
  schema->fields_info = latency_fields;
  schema->fill_table = FillLatency;
  return 0;
}

}  // namespace rowsocket
