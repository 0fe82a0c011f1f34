// KeyValue's counts of memcached's commands (key_value.h, CountInto), as memcached
// 1.6 counts them for its `stats`: cmd_get per key asked for, get_hits and
// get_misses per key (get_expired and get_flushed among the misses); gat and gats
// count as touches (cmd_touch, touch_hits, touch_misses per key); every storage
// command is a cmd_set and cas adds cas_misses, cas_hits or cas_badval; incr, decr,
// delete and touch count their hits and misses; me is cmd_meta; each item stored
// is in total_items. A command that failed (a lock, a refused key) counts only as
// asked for. Runs on the executor's worker thread.
#include "engine/memcached/key_value.h"

namespace rowsocket {

namespace {

bool Expired(int64_t expires, int64_t now) { return expires != 0 && expires <= now; }

}  // namespace

void KeyValue::NoteDead(int64_t expires, int64_t now) {
  if (Expired(expires, now))
    ++expired_met_;
  else
    ++flushed_met_;
}

void KeyValue::Count(const McRequest& mc, McOutcome outcome) {
  if (counts_ == nullptr) return;
  McCounters& c = *counts_;
  const bool done = outcome != McOutcome::kError;
  const bool hit = outcome == McOutcome::kSuccess;
  const uint64_t keys = mc.keys.size();
  const uint64_t hits = done ? hits_ : 0;
  const uint64_t misses = done && keys > hits ? keys - hits : 0;
  switch (mc.command) {
    case McCommand::kGet:
    case McCommand::kGets:
    case McCommand::kMetaGet:
      c.cmd_get.Add(keys);
      c.get_hits.Add(hits);
      c.get_misses.Add(misses);
      if (done) {
        c.get_expired.Add(expired_met_);
        c.get_flushed.Add(flushed_met_);
      }
      return;
    case McCommand::kGat:
    case McCommand::kGats:
      c.cmd_touch.Add(keys);
      c.touch_hits.Add(hits);
      c.touch_misses.Add(misses);
      return;
    case McCommand::kMetaDebug:
      c.cmd_meta.Add();
      return;
    case McCommand::kStore:
    case McCommand::kMetaSet:
      c.cmd_set.Add();
      if (hit) c.total_items.Add();
      if (done && (mc.store == McStoreMode::kCas || (mc.command == McCommand::kMetaSet && mc.cas != 0))) {
        if (outcome == McOutcome::kMiss) c.cas_misses.Add();
        if (outcome == McOutcome::kExists) c.cas_badval.Add();
        if (hit) c.cas_hits.Add();
      }
      return;
    case McCommand::kIncr:
    case McCommand::kDecr:
    case McCommand::kMetaArithmetic:
      if (!done) return;
      if (mc.decrement) {
        hit ? c.decr_hits.Add() : c.decr_misses.Add();
      } else {
        hit ? c.incr_hits.Add() : c.incr_misses.Add();
      }
      return;
    case McCommand::kTouch:
      c.cmd_touch.Add();
      if (done) hit ? c.touch_hits.Add() : c.touch_misses.Add();
      return;
    case McCommand::kDelete:
    case McCommand::kMetaDelete:
      if (done) hit ? c.delete_hits.Add() : c.delete_misses.Add();
      return;
    default:
      return;
  }
}

}  // namespace rowsocket
