#pragma once
// The page model: what the origin produces and every serializer round-trips.
#include <cstdint>
#include <string>
#include <vector>

namespace hitcost {

struct Row {
  int64_t id = 0;
  std::string title;   // UTF-8, may contain & < > " '
  std::string author;  // UTF-8
  std::vector<std::string> tags;
  double price = 0;     // currency units, two decimals (e.g. 12.34)
  int64_t created = 0;  // unix seconds
  std::string excerpt;  // UTF-8, the bulk of a row's bytes
  std::string url;
  bool operator==(const Row&) const = default;
};

struct Page {
  int64_t id = 0;
  std::string title;
  std::vector<Row> rows;
  bool operator==(const Page&) const = default;
};

}  // namespace hitcost
