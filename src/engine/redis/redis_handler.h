// RedisHandler: Redis's protocol behind the batch core (core/protocol_handler.h).
// Connection commands (PING, ECHO, HELLO, AUTH, SELECT, CLIENT, COMMAND, CONFIG GET,
// INFO, QUIT, RESET) are answered by the handler (redis_info.cc writes INFO, CONFIG
// GET and COMMAND); string and key commands run on the rows of the default
// key-value container, rowsocket.kv unless rowsocket.containers maps `default`
// elsewhere (the memcached listener's default container), through RedisStrings
// (redis_strings.h), and hash commands on the rows of the table a container maps,
// the one a key `<container>:<key>` names, through RedisHashes (redis_hashes.h),
// inside the batch's transaction (a command of several containers locks all their
// tables: Prepared::more). Logins: where the listener asks
// for an account (rowsocket_redis_auth), AUTH <user> <password> (or HELLO ... AUTH)
// over TLS logs in as a MariaDB account, and its grants on the container's table
// apply (WorkerEngine::CheckAccess). What a command is (reads, writes, inserts,
// deletes, allowed before a login) is the command table's (redis_commands.h).
//
// One per executor of the Redis listener, on its worker's thread.
#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/protocol_handler.h"
#include "engine/core/worker_engine.h"
#include "engine/memcached/container_map.h"
#include "engine/memcached/key_value.h"
#include "engine/redis/redis_hashes.h"
#include "engine/redis/redis_strings.h"
#include "protocol/redis_reply.h"
#include "protocol/redis_request.h"

namespace rowsocket {

// The Redis version the listener answers as (HELLO, INFO): Debian's redis-server,
// whose answers the tests compare with.
constexpr std::string_view kRedisCompatibleVersion = "7.0.15";

// SCAN's cursors: a cursor names the last key a step examined, kept here for any
// connection of the listener to go on from, the newest kMaxCursors of them (an
// older or unknown cursor starts again from the first key: a key may then be
// returned twice, which Redis allows, never missed). Any thread.
class RedisCursors {
 public:
  static constexpr size_t kMaxCursors = 16384;
  // A new cursor for `key` (never 0).
  uint64_t Add(const std::string& key);
  // The key of `cursor`; false if it is unknown.
  bool Find(uint64_t cursor, std::string* key);

 private:
  std::mutex mutex_;
  uint64_t last_ = 0;
  std::unordered_map<uint64_t, std::string> keys_;
  std::deque<uint64_t> order_;
};

// What the Redis listener's workers share: client ids, SCAN's cursors and the reads
// of the container mapping. (INFO's counts are each worker's Rowsocket_redis_*
// counters, WorkerStats.)
struct RedisShared {
  std::atomic<uint64_t> next_client_id{0};
  RedisCursors cursors;
  ContainerMappingReads mappings;
};

// The Redis command an item of this protocol carries (Speaks(item) holds).
inline const RedisRequest& RedisRequestOf(const BatchItem& item) {
  return *static_cast<const RedisRequest*>(item.request);
}

// What the handler keeps of a connection.
struct RedisSession : ProtocolState {
  RespVersion resp = RespVersion::kResp2;
  uint64_t id = 0;
  std::string name;                 // CLIENT SETNAME
  std::string lib_name, lib_ver;    // CLIENT SETINFO
  ContainerBinding container;       // the default container's binding
  // The hash containers' bindings, by the name their row of rowsocket.containers stores.
  std::unordered_map<std::string, std::unique_ptr<ContainerBinding>> hashes;
};

class RedisHandler : public ProtocolHandler {
 public:
  RedisHandler(WorkerEngine* engine, RedisShared* shared);

  bool Speaks(const BatchItem& item) const override;
  ItemTraits Traits(const BatchItem& item) const override;
  void BeginBatch(size_t count) override;
  Prepared Prepare(const BatchItem& item, size_t i) override;
  bool Run(const BatchItem& item, size_t i, const Prepared& prepared) override;
  void AnswerFailure(const BatchItem& item, const EngineStatus& status) override;
  bool TouchesOneRow(const BatchItem& item, size_t i, const Prepared& prepared) override;
  bool CopyRowKey(const BatchItem& item, size_t i, const Prepared& prepared,
                  uchar* out) override;

 private:
  struct Step {
    OpenIndex* insert = nullptr;     // a write's insert index (of the default container)
    std::string error;               // answered with this error now
    std::vector<RedisHashTarget> hashes;  // the containers of its hash keys
  };

  RedisSession* SessionState(const BatchItem& item);
  const KvContainer* DefaultContainer();
  Prepared PrepareRows(const BatchItem& item, Step* step);
  bool MayNameContainer(std::string_view name);
  const KvContainer* HashContainer(std::string_view name);
  EngineStatus AddHashTarget(const BatchItem& item, std::string_view key, Step* step,
                             bool* hash);
  EngineStatus CheckGrants(const BatchItem& item, ContainerBinding* binding, OpenIndex* lookup,
                           OpenIndex* insert);
  EngineStatus LogIn(const BatchItem& item, std::string_view user, std::string_view password);
  void Answer(const BatchItem& item, const Step& step, const Prepared& p);
  void RunRows(const BatchItem& item, const RedisCommandInfo& info,
               const std::vector<std::string_view>& argv, const Step& step, const Prepared& p,
               RedisReplyWriter* w);
  void Exec(const BatchItem& item, const Step& step, const Prepared& p);
  // Connection commands, answered without rows (AnswerCommand: one of them, also
  // inside an EXEC).
  void AnswerConnection(const BatchItem& item, const Prepared& p);
  void AnswerCommand(const BatchItem& item, const RedisCommandInfo& info,
                     const std::vector<std::string_view>& argv, RedisReplyWriter* w);
  void Hello(const BatchItem& item, RedisReplyWriter* w);
  void Client(const BatchItem& item, RedisCommandId id, const std::vector<std::string_view>& argv,
              RedisReplyWriter* w);
  // redis_info.cc.
  void Info(const BatchItem& item, const std::vector<std::string_view>& argv, OpenIndex* lookup,
            RedisReplyWriter* w);
  void ConfigGet(const std::vector<std::string_view>& argv, RedisReplyWriter* w);
  void Command(const std::vector<std::string_view>& argv, RedisReplyWriter* w);
  void Scan(const BatchItem& item, const std::vector<std::string_view>& argv, const Step& step,
            const Prepared& p, RedisReplyWriter* w);
  void FlushDb(const BatchItem& item, const std::vector<std::string_view>& argv,
               OpenIndex* lookup, RedisReplyWriter* w);

  WorkerEngine* engine_;
  RedisShared* shared_;
  RedisHashes hashes_;
  RedisStrings strings_;
  std::vector<Step> steps_;  // by item of the running batch
  KvContainer default_;      // rowsocket.containers' `default` as read last
  uint64_t default_read_ms_ = 0, default_generation_ = 0;  // (ContainerMappingReads)
  bool default_known_ = false;
  // rowsocket.containers' rows as hash keys named them, read again after a second
  // (or in a new generation of the shared mappings).
  struct NamedContainer {
    bool found = false;
    KvContainer container;
    uint64_t read_ms = 0, generation = 0;
  };
  std::unordered_map<std::string, NamedContainer> hash_containers_;
  // The names of rowsocket.containers' rows as read last (all of them if complete).
  std::vector<std::string> names_;
  uint64_t names_read_ms_ = 0;
  uint64_t names_generation_ = 0;  // of shared_->mappings when names_ was read
  bool names_read_ = false, names_complete_ = false;
};

// Makes the Redis handler of each worker of the Redis listener.
std::unique_ptr<ProtocolModule> NewRedisModule();

}  // namespace rowsocket
