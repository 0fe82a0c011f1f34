// The Redis handler's INFO, CONFIG GET and COMMAND (redis_handler.h): figures of the
// Redis listener (its workers' counters summed: ListenerFigures) and of the default
// container, as Redis 7.0 lays them out. Runs on a worker thread.
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <algorithm>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "engine/redis/redis_handler.h"
#include "seam/listener_figures.h"

namespace rowsocket {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void Field(std::string* out, std::string_view name, std::string_view value) {
  out->append(name);
  out->push_back(':');
  out->append(value);
  out->append("\r\n");
}

void Field(std::string* out, std::string_view name, uint64_t value) {
  Field(out, name, std::to_string(value));
}

// A command's row of COMMAND INFO: name, arity, flags, first key, last key, step,
// ACL categories, tips, key specs, subcommands (rowsocket has no ACL categories,
// tips or key specs: empty).
void CommandInfo(const RedisCommandInfo& info, RedisReplyWriter* w) {
  const RedisCommandInfo* table = RedisCommandTable();
  w->ArrayHeader(10);
  w->Bulk(info.name);
  w->Integer(info.arity);
  size_t flags = 0;
  for (size_t b = 0; b < kRedisFlagCount; ++b) flags += (info.flags >> b) & 1u;
  w->SetHeader(flags);
  for (size_t b = 0; b < kRedisFlagCount; ++b)
    if ((info.flags >> b) & 1u) w->SimpleString(RedisFlagName(b));
  w->Integer(info.first_key);
  w->Integer(info.last_key);
  w->Integer(info.key_step);
  w->SetHeader(0);
  w->SetHeader(0);
  w->ArrayHeader(0);
  const std::string prefix = std::string(info.name) + "|";
  std::vector<const RedisCommandInfo*> subs;
  if (std::string_view(info.name).find('|') == std::string_view::npos)
    for (size_t i = 0; i < kRedisCommands; ++i)
      if (std::string_view(table[i].name).substr(0, prefix.size()) == prefix)
        subs.push_back(&table[i]);
  w->ArrayHeader(subs.size());
  for (const RedisCommandInfo* sub : subs) CommandInfo(*sub, w);
}

bool TopLevel(const RedisCommandInfo& info) {
  return std::string_view(info.name).find('|') == std::string_view::npos;
}

}  // namespace

// INFO [section ...]: server, clients, stats and keyspace (the default, `all` and
// `everything`); other sections are empty, as an unknown one is in Redis.
void RedisHandler::Info(const BatchItem& item, const std::vector<std::string_view>& argv,
                        OpenIndex* lookup, RedisReplyWriter* w) {
  bool server = argv.size() == 1, clients = server, stats = server, keyspace = server;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string s = Lower(argv[i]);
    const bool all = s == "all" || s == "everything" || s == "default";
    server |= all || s == "server";
    clients |= all || s == "clients";
    stats |= all || s == "stats";
    keyspace |= all || s == "keyspace";
  }
  const ListenerFigures f =
      engine_->info().listener_figures ? engine_->info().listener_figures(false) : ListenerFigures();
  const ServerTunables& tunables = *engine_->options().tunables;
  const uint64_t now = static_cast<uint64_t>(std::time(nullptr));
  const uint64_t uptime = f.opened_unix != 0 && now > f.opened_unix ? now - f.opened_unix : 0;
  std::string text;
  auto section = [&text](std::string_view title) {
    if (!text.empty()) text.append("\r\n");
    text.append("# ");
    text.append(title);
    text.append("\r\n");
  };
  if (server) {
    section("Server");
    Field(&text, "redis_version", kRedisCompatibleVersion);
    Field(&text, "redis_mode", "standalone");
    utsname name{};
    if (uname(&name) == 0)
      Field(&text, "os", std::string(name.sysname) + " " + name.release + " " + name.machine);
    Field(&text, "arch_bits", std::to_string(sizeof(void*) * 8));
    Field(&text, "process_id", static_cast<uint64_t>(getpid()));
    Field(&text, "tcp_port", f.port);
    Field(&text, "uptime_in_seconds", uptime);
    Field(&text, "uptime_in_days", uptime / 86400);
    Field(&text, "rowsocket_version", ROWSOCKET_VERSION);
  }
  if (clients) {
    section("Clients");
    Field(&text, "connected_clients", f.open_connections);
    Field(&text, "maxclients", tunables.max_connections.load(std::memory_order_relaxed));
    Field(&text, "blocked_clients", uint64_t{0});
  }
  if (stats) {
    section("Stats");
    Field(&text, "total_connections_received", f.sums.connections_total);
    Field(&text, "total_commands_processed", f.sums.redis_commands_processed);
    Field(&text, "total_net_input_bytes", f.sums.bytes_received);
    Field(&text, "total_net_output_bytes", f.sums.bytes_sent);
    Field(&text, "rejected_connections", f.sums.connections_refused);
    Field(&text, "keyspace_hits", f.sums.redis_keyspace_hits);
    Field(&text, "keyspace_misses", f.sums.redis_keyspace_misses);
    Field(&text, "total_error_replies", f.sums.redis_errors);
    Field(&text, "rowsocket_batches", f.sums.batches);
    Field(&text, "rowsocket_commits", f.sums.commits);
  }
  if (keyspace) {
    section("Keyspace");
    uint64_t keys = 0, with_expiry = 0;
    const EngineStatus counted =
        strings_.CountKeys(SessionState(item)->container.container, lookup, &keys, &with_expiry);
    if (!counted.ok()) return w->Error(RedisStatusError(counted));
    if (keys > 0)
      text += "db0:keys=" + std::to_string(keys) + ",expires=" + std::to_string(with_expiry) +
              "\r\n";
  }
  w->Verbatim(text);
}

// CONFIG GET pattern [pattern ...]: the few parameters whose meaning rowsocket has,
// with the values that apply to its listener; a map (RESP2: a flat array).
void RedisHandler::ConfigGet(const std::vector<std::string_view>& argv, RedisReplyWriter* w) {
  const ServerTunables& t = *engine_->options().tunables;
  const ListenerFigures f =
      engine_->info().listener_figures ? engine_->info().listener_figures(false) : ListenerFigures();
  const std::pair<const char*, std::string> params[] = {
      {"appendonly", "no"},
      {"bind", f.address},
      {"databases", "1"},
      {"maxclients", std::to_string(t.max_connections.load(std::memory_order_relaxed))},
      {"maxmemory", "0"},
      {"maxmemory-policy", "noeviction"},
      {"port", f.port},
      {"proto-max-bulk-len", std::to_string(t.max_line_length.load(std::memory_order_relaxed))},
      {"save", ""},
      {"timeout", std::to_string(t.timeout_seconds.load(std::memory_order_relaxed))},
  };
  std::vector<size_t> matched;
  for (size_t a = 2; a < argv.size(); ++a)
    for (size_t i = 0; i < std::size(params); ++i)
      if (RedisGlobMatch(argv[a], params[i].first, true) &&
          std::find(matched.begin(), matched.end(), i) == matched.end())
        matched.push_back(i);
  w->MapHeader(matched.size());
  for (size_t i : matched) {
    w->Bulk(params[i].first);
    w->Bulk(params[i].second);
  }
}

// COMMAND (every command's row), COMMAND COUNT, COMMAND INFO [name ...], COMMAND LIST,
// and COMMAND DOCS, which answers an empty map (rowsocket keeps no docs).
void RedisHandler::Command(const std::vector<std::string_view>& argv, RedisReplyWriter* w) {
  const RedisCommandInfo* table = RedisCommandTable();
  const std::string sub = argv.size() > 1 ? Lower(argv[1]) : std::string();
  if (sub == "count") {
    int64_t n = 0;
    for (size_t i = 0; i < kRedisCommands; ++i) n += TopLevel(table[i]);
    return w->Integer(n);
  }
  if (sub == "docs") return w->MapHeader(0);
  if (sub == "list") {
    size_t n = 0;
    for (size_t i = 0; i < kRedisCommands; ++i) n += TopLevel(table[i]);
    w->ArrayHeader(n);
    for (size_t i = 0; i < kRedisCommands; ++i)
      if (TopLevel(table[i])) w->Bulk(table[i].name);
    return;
  }
  if (sub == "info" && argv.size() > 2) {
    w->ArrayHeader(argv.size() - 2);
    for (size_t a = 2; a < argv.size(); ++a) {
      const std::string name = Lower(argv[a]);
      const RedisCommandInfo* found = nullptr;
      for (size_t i = 0; i < kRedisCommands && found == nullptr; ++i)
        if (name == table[i].name) found = &table[i];
      if (found == nullptr) w->Null(); else CommandInfo(*found, w);
    }
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < kRedisCommands; ++i) n += TopLevel(table[i]);
  w->ArrayHeader(n);
  for (size_t i = 0; i < kRedisCommands; ++i)
    if (TopLevel(table[i])) CommandInfo(table[i], w);
}

}  // namespace rowsocket
