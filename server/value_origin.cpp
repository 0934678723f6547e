#include "server/value_origin.h"

#include "corpus/corpus_file.h"
#include "corpus/tree_codec.h"

namespace hitcost::server {

Result<std::shared_ptr<const ValueOrigin>> ValueOrigin::load(const std::string& path) {
  auto file = corpus::read_corpus(path);
  if (!file) return file.error();
  auto scheme = corpus::manifest_flag_scheme(file->manifest, path);
  if (!scheme) return scheme.error();
  auto origin = std::make_shared<ValueOrigin>();
  origin->path_ = path;
  origin->source_ = file->manifest.source;
  origin->scheme_ = file->manifest.scheme;
  origin->redacted_ = file->manifest.redacted;
  origin->records_ = file->records.size();
  origin->values_.reserve(file->records.size());
  std::string scratch;  // inflate buffer, reused across records
  for (corpus::CorpusRecord& rec : file->records) {
    auto tree = corpus::decode_stored(rec.value, rec.flags, *scheme, scratch);
    if (tree) {
      origin->values_.push_back(std::move(*tree));
    } else {
      ++origin->left_out_by_kind_[to_string(tree.error().code)];
    }
    std::string().swap(rec.value);  // the raw bytes are not kept: the trees are the origin
  }
  if (origin->values_.empty())
    return Error{Errc::invalid_argument, origin->summary_line() + ": nothing to serve (no value decodes)"};
  return std::shared_ptr<const ValueOrigin>(std::move(origin));
}

std::string ValueOrigin::summary_line() const {
  std::string line =
      "corpus " + path_ + ": " + std::to_string(size()) + " values (" + std::to_string(left_out()) + " left out";
  const char* sep = ": ";
  for (const auto& [kind, n] : left_out_by_kind_) {
    line += sep + kind + " " + std::to_string(n);
    sep = ", ";
  }
  line += ")";
  return line;
}

}  // namespace hitcost::server
