#pragma once
// PHP arrays of many shapes, written by php-cli itself with serialize() and
// igbinary_serialize(): the reference bytes the tree codecs must read and reproduce.
// php-cli and php-igbinary are test dependencies (scripts/install-deps.sh): when they are
// missing the generator fails (and so do the tests), it does not skip.
#include <string>
#include <vector>

namespace hitcost::corpus::testing {

struct PhpCase {
  std::string name;
  std::string ser;             // serialize($v)
  std::string igb;             // igbinary_serialize($v)
  std::string igb_fresh;       // igbinary_serialize(unserialize(serialize($v))): no shared arrays but the empty one
  bool shares_arrays = false;  // $v holds one non-empty array twice: igb has a reference to it
};

// Runs the generator once per process; on failure returns an empty list and sets *error.
const std::vector<PhpCase>& php_cases(std::string* error);

// Where to cut an encoding for the truncation tests: every offset of a small one; of a
// large one (quadratic otherwise) its first 256 bytes, its last 64 and 31 offsets between.
std::vector<size_t> cut_points(size_t size);

// The number of cases the generator writes (the tests assert they saw every one).
inline constexpr size_t kPhpCaseCount = 24;

}  // namespace hitcost::corpus::testing
