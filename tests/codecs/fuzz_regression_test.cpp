// Regression tests for findings of the fuzz targets (fuzz/), named for each finding.
#include <gtest/gtest.h>

#include <string>

#include "codecs/page_generator.h"
#include "codecs/value_codec.h"

using namespace hitcost;

// fuzz_decoders: a PHP-serialized row whose tags array claims more elements than the
// data holds reserved that count anyway (array_open had already failed): a huge count
// threw bad_alloc out of the decoder instead of a parse_error.
TEST(DecoderFuzzRegression, PhpTagCountBeyondTheDataIsAParseError) {
  std::string text = encode_page(SerializerId::php, generate_page({1, 2, 1, 1.0}));
  const size_t at = text.find("s:4:\"tags\";a:");
  ASSERT_NE(at, std::string::npos);
  const size_t count_at = at + 13, colon = text.find(':', count_at);
  text.replace(count_at, colon - count_at, "1099511627776");  // 2^40 tags
  Result<Page> r = decode_page(SerializerId::php, text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::parse_error);
}
