#pragma once
// The origin of GET /value/{n}: a user's sampled values (a hitcost-corpus file), decoded once
// at start-up into generic value trees (corpus/value.h) and numbered 0..N-1 in corpus order.
// What /page has in its page generator, /value has here: the data a miss starts from.
//
// Immutable after load(), shared by every io thread through a shared_ptr<const ValueOrigin>:
// const trees may be read from any thread (corpus/value.h), so no lock is needed.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "corpus/value.h"

namespace hitcost::server {

class ValueOrigin {
 public:
  // Reads PATH (corpus/corpus_file.h) and decodes every record by its flags under the
  // manifest's flag scheme: unwrap_value, then decode_tree by the unwrapped serializer; a value
  // stored as a plain string (no serializer: a string or pre-rendered HTML) is the one-string
  // tree make_string(payload). Values that do not unwrap or decode are left out, counted by
  // error kind (Errc name). Errors: read_corpus's (io_error, corrupt: the message names the
  // file), and invalid_argument for a manifest scheme hitcost does not know.
  static Result<std::shared_ptr<const ValueOrigin>> load(const std::string& path);

  size_t size() const noexcept { return values_.size(); }
  // Value n mod size(): an id past the corpus is a value of the corpus under a key of its own,
  // so a never-seen id is a real miss with a real origin (a sweep's forced misses ask for such
  // ids, as they do for pages). size() > 0: load() refuses a corpus with nothing decodable.
  const corpus::Value& value(size_t n) const { return values_[n % values_.size()]; }

  const std::string& path() const noexcept { return path_; }
  const std::string& source() const noexcept { return source_; }  // the manifest's, e.g. memcached:H:P
  const std::string& scheme() const noexcept { return scheme_; }  // the manifest's flag scheme
  bool redacted() const noexcept { return redacted_; }
  uint64_t records() const noexcept { return records_; }  // in the file: size() + left out
  uint64_t left_out() const noexcept { return records_ - values_.size(); }
  // Left-out values by error kind ("parse_error", "unknown_flags", ...), sorted by name.
  const std::map<std::string, uint64_t>& left_out_by_kind() const noexcept { return left_out_by_kind_; }

  // The start-up line: "corpus PATH: N values (M left out: parse_error 2, unknown_flags 1)".
  std::string summary_line() const;

 private:
  std::string path_, source_, scheme_;
  bool redacted_ = false;
  uint64_t records_ = 0;
  std::vector<corpus::Value> values_;
  std::map<std::string, uint64_t> left_out_by_kind_;
};

}  // namespace hitcost::server
