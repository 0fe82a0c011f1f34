// Comma-separated name lists, as `P` sends its columns and as list-valued options
// (rowsocket_allowed_system_schemas) are written. Pure; any thread.
#pragma once

#include <string_view>
#include <vector>

namespace rowsocket {

// The items of `list` in order, as slices of it. A comma at the very end adds
// nothing (`a,b,` is a and b); an empty item between two commas is kept (`a,,b`
// has three items, the second empty); an empty list has none.
std::vector<std::string_view> SplitNameList(std::string_view list);

}  // namespace rowsocket
