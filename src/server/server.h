// Server: the read and the write listener and their workers.
//
// Start() and Stop() run on the plugin's thread (plugin init and deinit). Stop
// wakes every worker, waits for each to finish its batch, close its connections and
// its tables, and joins it; it never leaves a thread behind.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "seam/config.h"
#include "server/event_loop.h"
#include "seam/connection_info.h"
#include "seam/executor.h"
#include "server/listener.h"
#include "seam/server_view.h"
#include "seam/stats.h"
#include "server/worker.h"
#include "util/tls.h"

namespace rowsocket {

class Server : public ServerView {
 public:
  Server(const ServerConfig& config, ServerTunables* tunables, ExecutorFactory* factory);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Opens the enabled listeners and starts their workers. On failure nothing is
  // left running and *error says why.
  bool Start(std::string* error);
  void Stop();

  // Sums every worker's counters (any thread).
  StatsSnapshot CollectStats() const override;
  // Describes every open client connection (any thread).
  std::vector<ConnectionInfo> DescribeConnections() const override;

 private:
  bool StartListener(const ListenerConfig& lc, const char* name, std::string* error);
  // Makes the TLS context from config_.tls, or says in the error log why TLS is off.
  void SetUpTls();
  // io_uring where asked for and available, else epoll (with a log line why).
  void ChooseIoLoop();

  ServerConfig config_;  // io changes once, in Start, before any worker exists
  ServerTunables* tunables_;
  ExecutorFactory* factory_;
  std::unique_ptr<TlsContext> tls_;  // null: TLS is off; outlives the listeners
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace rowsocket
