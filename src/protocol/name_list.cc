// SplitNameList (name_list.h).
#include "protocol/name_list.h"

namespace rowsocket {

std::vector<std::string_view> SplitNameList(std::string_view list) {
  std::vector<std::string_view> items;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    items.push_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

}  // namespace rowsocket
