// LockPlan: the order in which a group of single-row items takes its row locks
// (lock_order.cc decides which groups have one). Each item is added with the key
// of the one row it touches, as its index stores it (or with none: it touches no
// row); Sort puts the items without a key first, then orders the others by index
// and key, keeping the request order of items on the same row. Equal keys are one
// row: the sort is stable, so what one connection asks of a row happens in the
// order it asked.
//
// Plain bytes, no MariaDB: the comparison of two keys is the caller's (the
// index's own, collation included). Used on one thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rowsocket {

struct LockSlot {
  uint32_t item;    // position in the batch
  uint32_t index;   // the key's index (its key number)
  size_t offset;    // its key's bytes in the plan
  uint32_t length;  // 0: no key (the item touches no row)
};

class LockPlan {
 public:
  void Clear() {
    slots_.clear();
    keys_.clear();
  }
  // An item that touches no row.
  void AddKeyless(uint32_t item) { slots_.push_back(LockSlot{item, 0, 0, 0}); }
  // An item whose row has a key of `length` bytes on `index`: returns where the
  // caller writes the key, valid until the next Add.
  uint8_t* AddKey(uint32_t item, uint32_t index, uint32_t length) {
    const size_t offset = keys_.size();
    keys_.resize(offset + length);
    slots_.push_back(LockSlot{item, index, offset, length});
    return reinterpret_cast<uint8_t*>(&keys_[offset]);
  }
  // The key last added names no row (a key that cannot be stored finds nothing):
  // its item takes no lock.
  void DropLastKey() {
    LockSlot& last = slots_.back();
    keys_.resize(last.offset);
    last.offset = 0;
    last.length = 0;
  }

  // `less(index, a, b, length)`: whether key `a` orders before key `b` on `index`.
  template <typename Less>
  void Sort(Less less) {
    auto before = [this, &less](const LockSlot& a, const LockSlot& b) {
      if (a.length == 0 || b.length == 0) return a.length == 0 && b.length != 0;
      if (a.index != b.index) return a.index < b.index;
      return less(a.index, key(a), key(b), a.length);
    };
    std::stable_sort(slots_.begin(), slots_.end(), before);
  }

  const std::vector<LockSlot>& slots() const { return slots_; }
  const uint8_t* key(const LockSlot& slot) const {
    return reinterpret_cast<const uint8_t*>(keys_.data() + slot.offset);
  }

 private:
  std::vector<LockSlot> slots_;
  std::string keys_;
};

}  // namespace rowsocket
