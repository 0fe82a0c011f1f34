// The server's own TLS files (ssl_cert, ssl_key, ssl_ca), which the listeners use
// when rowsocket_ssl_cert is empty. Read on the plugin's thread at INSTALL.
#include "engine/server_headers.h"
#include "mysqld.h"

#include "engine/engine.h"

namespace rowsocket {

TlsConfig ServerTlsFiles() {
  auto str = [](const char* s) { return std::string(s != nullptr ? s : ""); };
  TlsConfig files;
  files.cert = str(opt_ssl_cert);
  files.key = str(opt_ssl_key);
  files.ca = str(opt_ssl_ca);
  return files;
}

}  // namespace rowsocket
