// Opened<T>: what opening a table or an index gave, as one value: the thing, or no
// thing and the error answer that says why not.
#pragma once

#include "protocol/engine_status.h"

namespace rowsocket {

template <typename T>
struct Opened {
  T* value = nullptr;
  EngineStatus error;  // OK when value is set

  static Opened Of(T* value) { return {value, EngineStatus::OK()}; }
  static Opened Failed(EngineStatus error) { return {nullptr, error}; }
  bool ok() const { return value != nullptr; }
};

}  // namespace rowsocket
