#include "corpus/tree_codec.h"

namespace hitcost::corpus {

namespace {
struct TreeCodec {
  SerializerId id;
  Result<Value> (*decode)(std::string_view);
  Status (*encode)(const Value&, std::string&);
};
// One row per serializer hitcost can store (codec_table.h).
constexpr TreeCodec kTreeCodecs[] = {
    {SerializerId::json, decode_json_tree, encode_json_tree},
    {SerializerId::msgpack, decode_msgpack_tree, encode_msgpack_tree},
    {SerializerId::php, decode_php_tree, encode_php_tree},
    {SerializerId::igbinary, decode_igbinary_tree, encode_igbinary_tree},
};
const TreeCodec* find_tree_codec(SerializerId id) {
  for (const TreeCodec& c : kTreeCodecs)
    if (c.id == id) return &c;
  return nullptr;
}
}  // namespace

Result<Value> decode_tree(SerializerId id, std::string_view bytes) {
  const TreeCodec* c = find_tree_codec(id);
  if (!c) return Error{Errc::invalid_argument, "no generic decoder for this serializer"};
  return c->decode(bytes);
}

Status encode_tree(SerializerId id, const Value& v, std::string& out) {
  const TreeCodec* c = find_tree_codec(id);
  if (!c) return Error{Errc::invalid_argument, "no generic encoder for this serializer"};
  return c->encode(v, out);
}

Result<Value> decode_stored(std::string_view stored, uint32_t flags, FlagScheme scheme, std::string& scratch,
                            Unwrapped* unwrapped) {
  auto u = unwrap_value(stored, flags, scheme, scratch);
  if (!u) return u.error();
  if (unwrapped) *unwrapped = *u;
  if (u->rep == Representation::html) return make_string(std::string(u->payload));
  auto tree = decode_tree(u->serializer, u->payload);
  if (!tree) return Error{tree.error().code, std::string(to_string(u->serializer)) + ": " + tree.error().message};
  return tree;
}

}  // namespace hitcost::corpus
