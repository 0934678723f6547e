#pragma once
// A corpus record redacted as a whole (corpus/redact.h does the strings): the key replaced by
// its keyed hash, the value decoded by its flags, every string replaced, and the value written
// back in the same layout — same flags word, same serializer, compressed with the same
// compressor when it was — so that it reads, costs and compresses like the original.
// Serialized sizes stay byte for byte (strings keep their lengths, JSON escapes their
// lengths); a compressed value's size changes by what the new bytes compress to.
#include <cstdint>

#include "codecs/strategy.h"
#include "core/result.h"
#include "corpus/corpus_file.h"

namespace hitcost::corpus {

// Errors: what decoding the value by its flags said (unknown_flags, decompress_failed,
// parse_error, ...): such a value cannot be redacted and must be left out, never kept raw.
Result<CorpusRecord> redact_record(const CorpusRecord& record, FlagScheme scheme, uint64_t secret);

// The manifest of a redacted corpus: marked redacted with `note` (what was replaced, what left
// out), and where the values came from taken out too — the source's hosts and ports become
// "memcached (N nodes, addresses redacted)" and each node "node I (address redacted)", so the
// records still name a node by index and nothing names a host of the user's network.
void redact_manifest(Manifest& manifest, std::string note);

}  // namespace hitcost::corpus
