// Every serializer row of codecs/codec_table.h against corpus/tree_codec.cpp's kTreeCodecs:
// a serializer added to the codec table without its tree codec row would leave hitcost-corpus
// and the server's /value route unable to read what that serializer stores. The rows are
// walked through the public entry points (decode_tree, encode_tree), so the check holds
// whatever the tree codec table looks like inside.
#include <gtest/gtest.h>

#include <string>

#include "codecs/codec_table.h"
#include "corpus/tree_codec.h"
#include "tests/codecs/test_pages.h"

namespace hitcost::corpus {
namespace {

TEST(TreeCodecTable, EverySerializerRowReadsAndWritesItsBytesAsATree) {
  const Page page = testing::tricky_page();
  size_t checked = 0;
  for (const SerializerCodec& row : kSerializerCodecs) {
    std::string bytes;
    row.encode(page, bytes);
    auto tree = decode_tree(row.id, bytes);
    ASSERT_TRUE(tree.ok()) << row.name << ": " << tree.error().message;
    std::string again;
    Status written = encode_tree(row.id, *tree, again);
    ASSERT_TRUE(written.ok()) << row.name << ": " << written.error().message;
    auto back = decode_tree(row.id, again);
    ASSERT_TRUE(back.ok()) << row.name << ": " << back.error().message;
    EXPECT_EQ(*back, *tree) << row.name;
    ++checked;
  }
  // Not vacuous: every row of the codec table was walked, and there are rows to walk.
  EXPECT_EQ(checked, std::size(kSerializerCodecs));
  EXPECT_GE(checked, 4u);  // json, msgpack, php, igbinary
}

TEST(TreeCodecTable, NoneHasNoTreeCodec) {
  std::string out;
  EXPECT_EQ(decode_tree(SerializerId::none, "x").error().code, Errc::invalid_argument);
  EXPECT_EQ(encode_tree(SerializerId::none, make_null(), out).error().code, Errc::invalid_argument);
}

}  // namespace
}  // namespace hitcost::corpus
