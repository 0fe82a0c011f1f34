// DefaultContainer: makes the memcached listener's default container, the table
// rowsocket.kv, and the container mapping rowsocket.containers (see key_value.h)
// when they do not exist, so that any memcached client works at once. It runs SQL (CREATE DATABASE / TABLE IF NOT EXISTS, through
// the server's SQL service, binlogged as DDL) on a thread of its own once the server
// has started: plugins load before the server accepts statements.
//
// Start() and the destructor on any one thread (the executor factory's owner).
#pragma once

#include <atomic>
#include <mutex>
#include <thread>

namespace rowsocket {

class DefaultContainer {
 public:
  DefaultContainer() = default;
  ~DefaultContainer();  // stops waiting for the server, joins the thread
  DefaultContainer(const DefaultContainer&) = delete;
  DefaultContainer& operator=(const DefaultContainer&) = delete;

  // Makes the table soon, once (later calls do nothing).
  void Start();

 private:
  void Run();

  std::once_flag started_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rowsocket
