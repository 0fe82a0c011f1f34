// libFuzzer target for SplitNameList (protocol/name_list.h), which cuts the column
// lists of `P` (as the engine opens an index) and list-valued options. One input is
// one list.
//
// It checks what name_list.h promises: the items are slices of the list, in order,
// one comma apart, none holding a comma; joined with commas they give the list back,
// less one comma at its very end; an empty list has no items.
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "protocol/name_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view list(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string_view> items = rowsocket::SplitNameList(list);

  std::string_view expected = list;  // what the items joined must give
  if (!expected.empty() && expected.back() == ',') expected.remove_suffix(1);
  if (list.empty()) FUZZ_CHECK(items.empty());
  if (!list.empty()) FUZZ_CHECK(!items.empty());

  size_t offset = 0;  // where the next item must start in `list`
  std::string joined;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string_view item = items[i];
    FUZZ_CHECK(item.find(',') == std::string_view::npos);
    FUZZ_CHECK(item.data() == list.data() + offset);
    FUZZ_CHECK(offset + item.size() <= list.size());
    offset += item.size() + 1;
    if (i > 0) joined.push_back(',');
    joined.append(item);
  }
  FUZZ_CHECK(joined == expected);
  return 0;
}
