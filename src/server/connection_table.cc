// ConnectionTable: the rules of connection lifetime (see connection_table.h), on
// whichever thread calls.
#include "server/connection_table.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "server/client_connection.h"
#include "util/log.h"

namespace rowsocket {

ConnectionTable::ConnectionTable(size_t workers)
    : waiting_epoch_(new std::atomic<uint64_t>[std::max<size_t>(workers, 1)]),
      workers_(std::max<size_t>(workers, 1)),
      homed_(new std::atomic<uint32_t>[std::max<size_t>(workers, 1)]) {
  for (size_t i = 0; i < workers_; ++i) {
    waiting_epoch_[i].store(kNotWaiting);
    homed_[i].store(0);
  }
}

ConnectionTable::~ConnectionTable() { CloseAll(); }

bool ConnectionTable::Admit(uint32_t limit) {
  uint32_t n = open_.load(std::memory_order_relaxed);
  do {
    if (n >= limit) return false;
  } while (!open_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed));
  return true;
}

ClientConnection* ConnectionTable::Add(std::unique_ptr<ClientConnection> connection) {
  ClientConnection* c = connection.get();
  {
    std::lock_guard<std::mutex> lock(list_mutex_);
    c->table_slot_ = list_.size();
    list_.push_back(std::move(connection));
  }
  if (c->home() >= 0) homed_[static_cast<size_t>(c->home())].fetch_add(1, std::memory_order_relaxed);
  return c;
}

// Swaps the last listed connection into c's slot.
void ConnectionTable::Unlist(ClientConnection* c, std::unique_ptr<ClientConnection>* owned) {
  std::lock_guard<std::mutex> lock(list_mutex_);
  const size_t i = c->table_slot_;
  *owned = std::move(list_[i]);
  if (i + 1 != list_.size()) {
    list_[i] = std::move(list_.back());
    list_[i]->table_slot_ = i;
  }
  list_.pop_back();
}

void ConnectionTable::ChargeInput(ClientConnection* c) {
  const size_t now = c->input_capacity();
  if (now == c->input_charged_) return;
  input_bytes_.fetch_add(now - c->input_charged_, std::memory_order_relaxed);  // modulo 2^n
  c->input_charged_ = now;
}

void ConnectionTable::Close(ClientConnection* c) {
  std::unique_ptr<ClientConnection> owned;
  Unlist(c, &owned);
  if (c->home() >= 0) homed_[static_cast<size_t>(c->home())].fetch_sub(1, std::memory_order_relaxed);
  input_bytes_.fetch_sub(c->input_charged_, std::memory_order_relaxed);
  c->CloseSocket();
  c->FreeClosed();
  open_.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(retired_mutex_);
  retired_.push_back({epoch_.fetch_add(1, std::memory_order_acq_rel) + 1, std::move(owned)});
  retired_count_.store(retired_.size(), std::memory_order_release);
}

void ConnectionTable::CloseAll() {
  {
    std::lock_guard<std::mutex> lock(held_mutex_);
    held_.clear();
  }
  {
    std::lock_guard<std::mutex> lock(delayed_mutex_);
    delayed_.clear();
    delayed_count_.store(0, std::memory_order_relaxed);
  }
  std::vector<std::unique_ptr<ClientConnection>> all;
  {
    std::lock_guard<std::mutex> lock(list_mutex_);
    all.swap(list_);
  }
  for (std::unique_ptr<ClientConnection>& c : all) {
    input_bytes_.fetch_sub(c->input_charged_, std::memory_order_relaxed);
    c->CloseSocket();
    open_.fetch_sub(1, std::memory_order_relaxed);
  }
  std::lock_guard<std::mutex> lock(retired_mutex_);
  retired_.clear();
  retired_count_.store(0, std::memory_order_release);
}

void ConnectionTable::EnterWait(size_t worker) {
  waiting_epoch_[worker].store(epoch_.load(std::memory_order_acquire), std::memory_order_release);
  FreeRetired();
}

void ConnectionTable::LeaveLoop(size_t worker) {
  waiting_epoch_[worker].store(kNotWaiting, std::memory_order_release);
}

void ConnectionTable::FreeRetired() {
  if (retired_count_.load(std::memory_order_acquire) == 0) return;
  uint64_t safe = kNotWaiting;
  for (size_t i = 0; i < workers_; ++i)
    safe = std::min(safe, waiting_epoch_[i].load(std::memory_order_acquire));
  std::vector<Retired> freed;
  {
    std::lock_guard<std::mutex> lock(retired_mutex_);
    for (size_t i = 0; i < retired_.size();) {
      if (retired_[i].epoch > safe) {
        ++i;
        continue;
      }
      freed.push_back(std::move(retired_[i]));
      retired_[i] = std::move(retired_.back());
      retired_.pop_back();
    }
    retired_count_.store(retired_.size(), std::memory_order_release);
  }
}  // `freed` goes here, outside the lock, with the connections' sessions

void ConnectionTable::Hold(ClientConnection* const* connections, size_t count) {
  std::lock_guard<std::mutex> lock(held_mutex_);
  held_.insert(held_.end(), connections, connections + count);
}

void ConnectionTable::TakeDurable(uint64_t durable, int home,
                                  std::vector<ClientConnection*>* taken) {
  bool emptied = false;
  {
    std::lock_guard<std::mutex> lock(held_mutex_);
    if (held_.empty()) return;
    for (size_t i = 0; i < held_.size();) {
      ClientConnection* c = held_[i];
      if (c->held_until() > durable || (c->home() >= 0 && c->home() != home)) {
        ++i;
        continue;
      }
      taken->push_back(c);
      held_[i] = held_.back();
      held_.pop_back();
    }
    emptied = held_.empty();
  }
  if (emptied) durable_cv_.notify_all();  // stopping workers need not wait any longer
}

void ConnectionTable::Delay(ClientConnection* c) {
  std::lock_guard<std::mutex> lock(delayed_mutex_);
  delayed_.push_back(c);
  delayed_count_.store(delayed_.size(), std::memory_order_release);
}

void ConnectionTable::TakeDelayed(uint64_t now_ms, int home,
                                  std::vector<ClientConnection*>* taken) {
  if (delayed_count_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lock(delayed_mutex_);
  for (size_t i = 0; i < delayed_.size();) {
    ClientConnection* c = delayed_[i];
    if (c->delayed_until() > now_ms || (c->home() >= 0 && c->home() != home)) {
      ++i;
      continue;
    }
    taken->push_back(c);
    delayed_[i] = delayed_.back();
    delayed_.pop_back();
  }
  delayed_count_.store(delayed_.size(), std::memory_order_release);
}

bool ConnectionTable::NoteDurable() {
  bool waited;
  {
    std::lock_guard<std::mutex> lock(held_mutex_);
    ++durable_notes_;
    waited = durable_waiters_ > 0;
  }
  durable_cv_.notify_all();
  return waited;
}

uint64_t ConnectionTable::DurableNotes() const {
  std::lock_guard<std::mutex> lock(held_mutex_);
  return durable_notes_;
}

bool ConnectionTable::WaitForDurable(uint64_t seen,
                                     std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(held_mutex_);
  ++durable_waiters_;
  durable_cv_.wait_until(lock, deadline,
                         [&] { return held_.empty() || durable_notes_ != seen; });
  --durable_waiters_;
  return !held_.empty() && durable_notes_ != seen;
}

bool ConnectionTable::SweepDue(uint64_t now_ms) {
  uint64_t last = last_sweep_ms_.load(std::memory_order_relaxed);
  return now_ms - last >= 1000 && last_sweep_ms_.compare_exchange_strong(last, now_ms);
}

void ConnectionTable::ForEachIdle(
    uint64_t now_ms, const std::function<bool(const ClientConnection&, uint64_t)>& wants,
    const std::function<void(ClientConnection*, uint64_t)>& visit) {
  std::lock_guard<std::mutex> lock(list_mutex_);
  for (const std::unique_ptr<ClientConnection>& owned : list_) {
    ClientConnection* c = owned.get();
    const uint64_t idle_ms = c->idle_ms(now_ms);
    if (!wants(*c, idle_ms) || !c->Claim()) continue;
    visit(c, idle_ms);
    c->Unclaim();
  }
}

void ConnectionTable::Describe(uint64_t now_ms, std::vector<ConnectionInfo>* out) const {
  std::lock_guard<std::mutex> lock(list_mutex_);
  for (const std::unique_ptr<ClientConnection>& c : list_) {
    out->emplace_back();
    c->Describe(now_ms, &out->back());
  }
}

}  // namespace rowsocket
