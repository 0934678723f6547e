#pragma once
// zstd dictionaries: trained on a sample of the values, kept in files, loaded by the process
// that reads and writes them (hitcost-server --zstd-dict, hitcost-corpus recommend).
//
// No flag says a value used a dictionary: a zstd frame carries its dictionary's id in its
// header (RFC 8878 §3.1.1.1.3), and the reader looks the id up here. So a `+zstd-dict` value
// has zstd's flags under every scheme; a reader without the dictionary refuses it
// (decompress_failed naming the id), never guesses. PHP's extensions load no dictionary:
// php-memcached 3.3.0's zstd reads only frames without one.
//
// Which dictionary writes a value: the one registered for the value's form ("html",
// "struct:json", ...: values of one form share their words), else the one registered for
// every form (scope ""). A dictionary is trained on one form's bytes, so a scope keeps
// html pages from being compressed with a msgpack dictionary.
//
// Process-wide and thread-safe: registering takes a lock, reading takes a shared one; the
// digested forms (ZSTD_DDict, and a ZSTD_CDict per level) are made once and shared.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/codec_table.h"
#include "core/result.h"

namespace hitcost {

// A registered dictionary, as /stats and reports list it.
struct ZstdDictionaryInfo {
  uint32_t id = 0;
  size_t bytes = 0;
  std::vector<std::string> writes_for;  // the scopes it writes ("" every form); empty: it only reads
};

// The scope word of a form: "html" or "struct:<serializer>".
std::string dictionary_scope(bool html, SerializerId serializer);

// Registers `bytes` (a dictionary as zstd --train or train_zstd_dictionary writes it: magic
// 0xEC30A437 and a non-zero id) as the writer for `scope`. The same id again replaces the
// scope's writer and keeps reading. Errors (invalid_argument): not a zstd dictionary, id 0
// (a raw-content dictionary, which frames cannot name), an unknown scope, another
// dictionary's bytes under an id already registered.
Result<uint32_t> register_zstd_dictionary(std::string_view bytes, std::string_view scope);

// Reads a dictionary file and registers it. Errors: io_error (missing, unreadable, empty),
// and register_zstd_dictionary's, each naming the path.
Result<uint32_t> load_zstd_dictionary_file(const std::string& path, std::string_view scope);

// "SCOPE=FILE" or "FILE" (every form), as --zstd-dict takes it. Errors (invalid_argument): an
// unknown scope, no file. Nothing is read.
struct DictionaryOption {
  std::string scope, path;
};
Result<DictionaryOption> parse_dictionary_option(std::string_view option);

// Ok when `scope` has a dictionary to write with (its own or the every-form one); otherwise
// invalid_argument saying how to load one.
Status zstd_dictionary_ready(std::string_view scope);

// Ok unless `strategy` is a +zstd-dict one whose form had no dictionary when it was parsed
// (then zstd_dictionary_ready's error): what the server's config, ?strategy= and hitcost-corpus
// compare refuse before storing anything.
struct Strategy;
Status strategy_dictionary_ready(const Strategy& strategy);

// The id that writes values of `scope` (its own, else the every-form one); 0 when none.
uint32_t zstd_dictionary_for(std::string_view scope);

// "html, struct:json" ("every form" for ""), for messages.
std::string join_scopes(const std::vector<std::string>& scopes);

// Every registered dictionary, in id order.
std::vector<ZstdDictionaryInfo> zstd_dictionaries();

// One zstd frame of `in` with dictionary `id` at `level` (content size and a checksum),
// appended to `out`; id 0: no dictionary (zstd_compress, the codec row's function, is this).
// Errors: invalid_argument when `id` is not registered.
Status zstd_compress_with_dictionary(uint32_t id, int level, std::string_view in, std::string& out);

// The dictionary that decodes a frame naming `id`; nullptr when none is registered.
// (zstd_decompress in compressor.cpp is the caller; the type is ZSTD_DDict.)
const void* zstd_ddict(uint32_t id);

// Trains a dictionary of at most `capacity` bytes on `samples` (libzstd's ZDICT builder,
// its default fastCover parameters). Errors (invalid_argument): too few or too small samples
// for the builder (its message), an empty sample set.
Result<std::string> train_zstd_dictionary(const std::vector<std::string_view>& samples, size_t capacity);

// The capacity recommend and the tests train with: zstd's own default (110 KiB) for a large
// sample, a tenth of the sample's bytes for a small one (a dictionary larger than that learns
// the sample by heart), never under 1 KiB.
size_t default_dictionary_capacity(size_t sample_bytes);

}  // namespace hitcost
