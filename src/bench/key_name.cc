#include "bench/key_name.h"

#include <algorithm>

#include "bench/generators.h"

namespace zonestack::bench {

std::string YcsbKeyName(int64_t keynum, int zero_padding, bool ordered) {
  if (!ordered) keynum = YcsbHash(keynum);
  // Java's Long.toString: a minus sign counts toward the padding width too.
  const std::string value = std::to_string(keynum);
  std::string key = kKeyPrefix;
  const int fill = zero_padding - static_cast<int>(value.size());
  if (fill > 0) key.append(static_cast<size_t>(fill), '0');
  key += value;
  return key;
}

std::string BuildKeyName(int64_t keynum, const KeyFormat& format) {
  if (format.key_size <= 0) return YcsbKeyName(keynum, format.zero_padding, format.ordered);
  const int prefix = static_cast<int>(sizeof(kKeyPrefix) - 1);
  std::string key = YcsbKeyName(keynum, std::max(format.zero_padding, format.key_size - prefix),
                                format.ordered);
  key.resize(static_cast<size_t>(format.key_size));
  return key;
}

}  // namespace zonestack::bench
