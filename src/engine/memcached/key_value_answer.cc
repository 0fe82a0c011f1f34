// The answer to a memcached command from its KvResult (WriteKvAnswer, key_value.h):
// text and meta lines, binary packets, and the errors in memcached's words
// (memcached_status.h). Pure apart from the clock (a meta answer's TTL); runs on a
// worker thread.
#include <algorithm>
#include <ctime>
#include <string>

#include "engine/memcached/key_value.h"
#include "protocol/memcached_status.h"

namespace rowsocket {
namespace {

McMetaItem MetaItemOf(const KvItem& item, int64_t now) {
  McMetaItem meta;
  meta.flags = item.flags;
  meta.cas = item.cas;
  meta.ttl = item.expires == 0 ? -1 : std::max<int64_t>(0, item.expires - now);
  meta.size = item.value.size();
  return meta;
}

// The text and meta answers.
void WriteText(const McRequest& mc, const KvResult& result, std::string* out) {
  McTextWriter w(out);
  const bool meta = mc.framing == McFraming::kMeta;
  if (result.outcome == McOutcome::kError) return w.Line(McTextError(result.status));
  switch (mc.command) {
    case McCommand::kGet:
    case McCommand::kGets:
    case McCommand::kGat:
    case McCommand::kGats: {
      const bool with_cas = mc.command == McCommand::kGets || mc.command == McCommand::kGats;
      for (const KvItem& item : result.items) {
        if (with_cas)
          w.ValueWithCas(item.key, item.flags, item.value, item.cas);
        else
          w.Value(item.key, item.flags, item.value);
      }
      return w.Reply(McTextReply::kEnd);
    }
    case McCommand::kMetaGet: {
      if (result.items.empty()) return w.MetaStatus("EN", mc, nullptr);
      const McMetaItem item = MetaItemOf(result.items[0], static_cast<int64_t>(std::time(nullptr)));
      if (mc.meta.Has('v')) return w.MetaValue(mc, item, result.items[0].value);
      return w.MetaStatus("HD", mc, &item);
    }
    case McCommand::kMetaDebug: {
      // What memcached's `me` says of an item, as far as a row knows it: no last
      // access time (la=0), never fetched, slab class 1, and the item's bytes.
      if (result.items.empty()) return w.MetaStatus("EN", mc, nullptr);
      const KvItem& item = result.items[0];
      const McMetaItem meta = MetaItemOf(item, static_cast<int64_t>(std::time(nullptr)));
      std::string details = "exp=" + std::to_string(meta.ttl) + " la=0 cas=" +
                            std::to_string(item.cas) + " fetch=no cls=1 size=" +
                            std::to_string(item.key.size() + item.value.size());
      return w.MetaDebug(mc, details);
    }
    case McCommand::kMetaArithmetic: {
      if (result.outcome == McOutcome::kMiss) return w.MetaStatus("NF", mc, nullptr);
      const McMetaItem item = MetaItemOf(result.items[0], static_cast<int64_t>(std::time(nullptr)));
      if (mc.meta.Has('v')) return w.MetaValue(mc, item, result.items[0].value);
      return w.MetaStatus("HD", mc, &item);
    }
    case McCommand::kIncr:
    case McCommand::kDecr:
      if (result.outcome == McOutcome::kMiss) return w.Reply(McTextReply::kNotFound);
      return w.Number(result.number);
    default:
      break;
  }
  const McMetaItem* item = nullptr;
  McMetaItem stored;
  if (!result.items.empty()) {
    stored = MetaItemOf(result.items[0], static_cast<int64_t>(std::time(nullptr)));
    item = &stored;
  }
  switch (result.outcome) {
    case McOutcome::kSuccess:
      if (meta) return w.MetaStatus("HD", mc, item);
      if (mc.command == McCommand::kDelete) return w.Reply(McTextReply::kDeleted);
      if (mc.command == McCommand::kTouch) return w.Reply(McTextReply::kTouched);
      return w.Reply(McTextReply::kStored);
    case McOutcome::kNotStored:
      return meta ? w.MetaStatus("NS", mc, nullptr) : w.Reply(McTextReply::kNotStored);
    case McOutcome::kExists:
      return meta ? w.MetaStatus("EX", mc, nullptr) : w.Reply(McTextReply::kExists);
    default:  // a miss
      return meta ? w.MetaStatus("NF", mc, nullptr) : w.Reply(McTextReply::kNotFound);
  }
}

void WriteBinary(const McRequest& mc, const KvResult& result, std::string* out) {
  McBinaryWriter w(out);
  if (result.outcome == McOutcome::kError) return w.Error(mc, McBinaryError(result.status));
  const KvItem* item = result.items.empty() ? nullptr : &result.items[0];
  switch (result.outcome) {
    case McOutcome::kSuccess:
      switch (mc.command) {
        case McCommand::kGet:
        case McCommand::kGat:
          return w.Hit(mc, item->flags, item->cas, item->value);
        case McCommand::kIncr:
        case McCommand::kDecr:
          return w.Counter(mc, result.number, item->cas);
        default:
          return w.Success(mc, item != nullptr ? item->cas : 0);
      }
    case McOutcome::kMiss:
      if (mc.command == McCommand::kGet || mc.command == McCommand::kGat) return w.Miss(mc);
      return w.Error(mc, McStatus::kKeyNotFound);
    case McOutcome::kNotStored:
      // As memcached answers in binary: add finds the key, replace misses it.
      if (mc.store == McStoreMode::kAdd) return w.Error(mc, McStatus::kKeyExists);
      if (mc.store == McStoreMode::kReplace) return w.Error(mc, McStatus::kKeyNotFound);
      return w.Error(mc, McStatus::kNotStored);
    case McOutcome::kExists:
      return w.Error(mc, McStatus::kKeyExists);
    default:
      return w.Error(mc, McBinaryError(result.status));
  }
}

}  // namespace

void WriteKvAnswer(const McRequest& mc, const KvResult& result, std::string* out) {
  if (!mc.WantsAnswer(result.outcome)) return;
  if (mc.framing == McFraming::kBinary) return WriteBinary(mc, result, out);
  WriteText(mc, result, out);
}

}  // namespace rowsocket
