// Key names as YCSB builds them (CoreWorkload.buildKeyName), plus a fixed
// key size for papers that state one (HHZS §2.3, §4.1: 24-byte keys).
#pragma once

#include <cstdint>
#include <string>

namespace zonestack::bench {

inline constexpr char kKeyPrefix[] = "user";

// YCSB's buildKeyName: "user" followed by the decimal key number, or with
// hashed insert order (ordered == false, YCSB's default) by YcsbHash of it,
// left-padded with '0' to zero_padding characters (YCSB's zeropadding,
// default 1, i.e. no padding). So key number 0 is "user6284781860667377211"
// hashed and "user0" ordered.
std::string YcsbKeyName(int64_t keynum, int zero_padding, bool ordered);

struct KeyFormat {
  int zero_padding = 1;  // YCSB zeropadding
  bool ordered = false;  // YCSB insertorder=ordered; hashed otherwise
  // 0: YCSB's own length (5 to 23 bytes when hashed). Otherwise every key is
  // exactly key_size bytes: shorter names are zero-padded as if zeropadding
  // were key_size - 4 ("user" + 20 digits for 24), which keeps them
  // distinct; longer ones are cut to their first key_size bytes, and cut
  // names of different key numbers may then collide (hashed names need 23
  // bytes to stay distinct).
  int key_size = 0;
};

// REQUIRES: format.key_size >= 0.
std::string BuildKeyName(int64_t keynum, const KeyFormat& format);

}  // namespace zonestack::bench
