// Which memcached commands touch a container's rows, and which change them: what
// the server needs to batch them (reads and writes) and the engine to run them.
#pragma once

#include "protocol/memcached.h"

namespace rowsocket {

// Commands that change rows: storage, delete, incr/decr, and touch, gat and mg with
// T (they change the expiry time); flush_all deletes.
inline bool McWritesRows(const McRequest& mc) {
  switch (mc.command) {
    case McCommand::kGat:
    case McCommand::kGats:
    case McCommand::kStore:
    case McCommand::kDelete:
    case McCommand::kIncr:
    case McCommand::kDecr:
    case McCommand::kTouch:
    case McCommand::kFlushAll:
    case McCommand::kMetaSet:
    case McCommand::kMetaDelete:
    case McCommand::kMetaArithmetic:
      return true;
    case McCommand::kMetaGet:
      return mc.meta.Has('T');
    default:
      return false;
  }
}

// Commands that read or change rows; the others (version, stats, noop, ...) are
// answered without the container.
inline bool McTouchesRows(const McRequest& mc) {
  return McWritesRows(mc) || mc.command == McCommand::kGet || mc.command == McCommand::kGets ||
         mc.command == McCommand::kMetaGet || mc.command == McCommand::kMetaDebug;
}

}  // namespace rowsocket
