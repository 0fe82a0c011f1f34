// librowsocket: the C++ client of rowsocket and of any HandlerSocket server.
//
// Include this one header. Connection (connection.h) speaks to one listener;
// Pool (pool.h) shares connections between threads and routes reads and writes;
// Index, Query and Modify (query.h) describe requests; Batch (batch.h) pipelines
// them; Value (value.h) keeps NULL apart from ''; Result and Error (result.h) carry
// every outcome, as nothing throws. Each header states its thread-safety.
#pragma once

#include "rowsocket/batch.h"
#include "rowsocket/connection.h"
#include "rowsocket/pool.h"
#include "rowsocket/query.h"
#include "rowsocket/result.h"
#include "rowsocket/value.h"
