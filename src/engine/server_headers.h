// The one place the engine includes MariaDB's server headers, in the order the
// server's own plugins use. Every engine .cc includes this first.
#pragma once

#ifndef MYSQL_SERVER
#define MYSQL_SERVER 1  // the server's internal classes, not just the plugin API
#endif
#include <mariadb.h>
#include <mysql/plugin.h>
#include "sql_priv.h"
#include "sql_class.h"
#include "sql_base.h"
#include "lock.h"
#include "key.h"
#include "transaction.h"
#include "mdl.h"
#include "table.h"
#include "field.h"
#include "handler.h"
#include "unireg.h"
#include "log.h"
#include "sql_cache.h"
#include "item.h"
#include "set_var.h"
#include "sql_plugin.h"
#include "wsrep_mysqld.h"
// The server's wsrep transaction hooks (galera_transaction.cc). Their headers
// declare, as the server's own functions, two names that the plugin service
// header (mysql/service_wsrep.h) makes macros for a dynamic plugin.
#undef wsrep_xid_seqno
#undef wsrep_xid_uuid
#include "wsrep_trans_observer.h"
#include "wsrep_server_state.h"
