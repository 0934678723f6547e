#include "corpus/redact_record.h"

#include "codecs/flag_scheme.h"
#include "codecs/value_codec.h"
#include "corpus/redact.h"
#include "corpus/tree_codec.h"

namespace hitcost::corpus {

namespace {
// Bits of the flags word that are the application's, not the layout's: kept as they were.
uint32_t app_bits(FlagScheme scheme) { return scheme == FlagScheme::php_memcached ? flags::kMdUserMask : 0u; }
}  // namespace

Result<CorpusRecord> redact_record(const CorpusRecord& record, FlagScheme scheme, uint64_t secret) {
  auto info = read_flags(scheme, record.flags);
  if (!info) return info.error();
  std::string scratch;
  Unwrapped unwrapped;
  auto tree = decode_stored(record.value, record.flags, scheme, scratch, &unwrapped);
  if (!tree) return tree.error();

  std::string plain;
  if (unwrapped.rep == Representation::html) {
    plain = redact_value(*tree, secret).s;
  } else {
    Status st = encode_tree(unwrapped.serializer, redact_value(*tree, secret), plain);
    if (!st) return st.error();
  }

  // The same layout: compressed exactly when the original was (the rule forced either way).
  Strategy layout;
  layout.rep = unwrapped.rep;
  layout.serializer = unwrapped.rep == Representation::html ? SerializerId::none : unwrapped.serializer;
  layout.compressor = unwrapped.compressor;
  layout.scheme = scheme;
  layout.rule.threshold_bytes = 0;
  layout.rule.min_savings = 0;
  layout.rule.factor = 0;  // both unused: compression kept whatever it saves
  EncodedValue ev = wrap_payload(layout, std::move(plain));
  const uint32_t keep = app_bits(scheme);
  if ((ev.flags & ~keep) != (record.flags & ~keep)) {
    return Error{Errc::inconsistent_flags, "the redacted value would be written with other flags"};
  }

  CorpusRecord out = record;
  out.key = redact_key(record.key, secret);
  out.value = std::move(ev.bytes);
  return out;
}

void redact_manifest(Manifest& manifest, std::string note) {
  const size_t n = manifest.nodes.size();
  const std::string kind = manifest.source.substr(0, manifest.source.find(':'));
  manifest.source = (kind.empty() ? std::string("source") : kind) + " (" + std::to_string(n) +
                    (n == 1 ? " node" : " nodes") + ", addresses redacted)";
  for (size_t i = 0; i < n; ++i) manifest.nodes[i] = "node " + std::to_string(i + 1) + " (address redacted)";
  manifest.redacted = true;
  manifest.redact_note = std::move(note) + "; the source's addresses removed";
}

}  // namespace hitcost::corpus
