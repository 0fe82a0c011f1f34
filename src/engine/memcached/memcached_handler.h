// MemcachedHandler: the memcached protocol behind the batch core
// (core/protocol_handler.h). Each command names its container (rowsocket.containers,
// read again once a second); the handler binds the connection's container (its
// lookup and insert indexes), checks the container's grants and SASL logins, runs
// the command on the rows through KeyValue (key_value.h) and answers in memcached's
// words. Between batches the memcached listener's first worker sweeps expired items
// and deletes what a delayed flush_all flushed (expiry_sweep.cc); where no memcached
// listener runs, a handler on the Redis listener's first worker does only that
// (MemcachedModule). What a command is
// (reads, writes, inserts, deletes, allowed before a login) is the command table's
// (protocol/memcached_commands.h).
//
// One per executor of the memcached listener (and the Redis listener's first, where
// no memcached listener runs), on its worker's thread.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/protocol_handler.h"
#include "engine/core/worker_engine.h"
#include "engine/memcached/container_map.h"
#include "engine/memcached/key_value.h"
#include "engine/memcached/kv_flushes.h"

namespace rowsocket {

// The memcached command an item of this protocol carries (Speaks(item) holds).
inline const McRequest& McRequestOf(const BatchItem& item) {
  return *static_cast<const McRequest*>(item.request);
}

class MemcachedHandler : public ProtocolHandler {
 public:
  // `flushes`: the listener's delayed flush_all, and `mappings`: its reads of the
  // container mapping, shared by its workers.
  MemcachedHandler(WorkerEngine* engine, KvFlushes* flushes, ContainerMappingReads* mappings);
  ~MemcachedHandler() override;

  bool Speaks(const BatchItem& item) const override;
  ItemTraits Traits(const BatchItem& item) const override;
  void BeginBatch(size_t count) override;
  Prepared Prepare(const BatchItem& item, size_t i) override;
  bool Run(const BatchItem& item, size_t i, const Prepared& prepared) override;
  void AnswerFailure(const BatchItem& item, const EngineStatus& status) override;
  bool TouchesOneRow(const BatchItem& item, size_t i, const Prepared& prepared) override;
  bool CopyRowKey(const BatchItem& item, size_t i, const Prepared& prepared,
                  uchar* out) override;
  void Tick(uint64_t now_ms) override;

 private:
  // What Prepare decided for one item besides its Prepared.
  struct Step {
    OpenIndex* insert_index = nullptr;            // a write's insert index
    const ContainerBinding* container = nullptr;  // and its container
    std::string client_error;  // answered with this error line now
    std::string stats_answer;  // a stats command's whole answer
  };

  // The container `name` as rowsocket.containers maps it; null if it names none.
  const KvContainer* ContainerNamed(std::string_view name);
  void PublishCacheSizes();
  EngineStatus BindContainer(ContainerBinding* binding, const KvContainer& container);
  // The connection's binding of `container`, made or made again.
  EngineStatus BoundContainer(EngineSession* session, const KvContainer& container,
                            ContainerBinding** binding);
  Prepared PrepareRows(const BatchItem& item, Step* step);
  EngineStatus SaslLogIn(EngineSession* session, const McRequest& mc);
  EngineStatus CheckContainerGrants(EngineSession* session, ContainerBinding* binding,
                                  OpenIndex* lookup, OpenIndex* insert, const McRequest& mc);
  void Answer(const BatchItem& item, const Step& step, const Prepared& prepared);
  void AnswerWithoutRows(const McRequest& mc, std::string* out);
  // memcached's `stats`, gathered in pass 1, where tables may be opened
  // (memcached_stats.cc).
  void PrepareStats(const EngineSession& session, const McRequest& mc, std::string* answer);
  void DefaultContainerSize(uint64_t* items, uint64_t* bytes);
  void FlushContainer(const McRequest& mc, const Step& step, OpenIndex* lookup,
                      std::string* out);
  // The sweep of expired items and the deletion of flushed ones (expiry_sweep.cc).
  void SweepExpiredItems(uint64_t now_ms);
  void SweepContainer(const std::string& name, uint32_t budget);
  void CarryOutFlushes(uint64_t now_ms);
  void FlushStep(const std::string& name, uint64_t below, uint32_t budget);
  bool BindScan(ContainerBinding* binding, std::unique_ptr<IndexBinding>* scan,
                const KvContainer& container, const std::string& columns, bool* rebound);

  WorkerEngine* engine_;
  ContainerMappingReads* mappings_;
  KeyValue kv_;
  std::vector<Step> steps_;  // by item of the running batch
  // rowsocket.containers as this worker read it last (rows read again after a
  // second, or once another worker read a change: a new generation of `mappings_`),
  // by the name each row stores: one entry per container this worker served.
  struct CachedContainer {
    KvContainer container;
    uint64_t read_ms = 0;
    uint64_t generation = 0;
  };
  std::unordered_map<std::string, CachedContainer> container_mapping_;
  // The other names clients used, read as long: the row's own name each matched
  // (empty: none matched), at most kMaxContainerNames.
  struct CachedName {
    std::string row_name;
    uint64_t read_ms = 0;
    uint64_t generation = 0;
  };
  static constexpr size_t kMaxContainerNames = 256;
  std::unordered_map<std::string, CachedName> container_names_;
  size_t published_containers_ = 0, published_names_ = 0;  // in the stats (PublishCacheSizes)
  // The sweep of expired items, run by the sweeping worker (MemcachedModule) over
  // `default` and every container it has served: per container, its indexes (a
  // lookup, and `sweep`: the key and expiry columns on the key index) and where the
  // next step starts.
  struct SweptContainer {
    ContainerBinding binding;
    std::unique_ptr<IndexBinding> sweep;
    std::string cursor;
  };
  const bool sweeps_expired_items_;
  std::unordered_map<std::string, SweptContainer> swept_;
  uint64_t last_expiry_sweep_ms_ = 0;
  // The deletion of each container's flushed items: its indexes (`scan`: the key and
  // CAS columns on the key index), the flush it deletes for, where its pass is, and
  // whether the pass has left no flushed row behind so far.
  KvFlushes* flushes_;
  struct FlushedContainer {
    ContainerBinding binding;
    std::unique_ptr<IndexBinding> scan;
    uint64_t below = 0;
    std::string cursor;
    bool complete = true;
    uint64_t deleted = 0;
  };
  std::unordered_map<std::string, FlushedContainer> flushed_;
  std::vector<std::pair<std::string, uint64_t>> flushes_in_effect_;
  uint64_t last_flush_step_ms_ = 0;
};

// Makes the memcached handler of each worker of the memcached listener (and, where
// none runs, the sweeping one of the Redis listener's first worker), and keeps
// what its workers share (the delayed flush_all, the default container's set-up).
std::unique_ptr<ProtocolModule> NewMemcachedModule();

}  // namespace rowsocket
