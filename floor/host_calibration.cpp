#include "floor/host_calibration.h"

#include "codecs/compressor.h"
#include "codecs/page_generator.h"
#include "codecs/renderer.h"

namespace hitcost::floor {
namespace {

Page host_page(const HostSpec& spec) {
  PageSpec p;
  p.id = 1;
  p.rows = spec.rows;
  p.seed = spec.seed;
  return generate_page(p);
}

}  // namespace

HostBytes host_bytes(const HostSpec& spec) {
  const Page page = host_page(spec);
  HostBytes b;
  b.html = render_page(page);
  for (SerializerId s : kSerializers) b.serialized.emplace_back(s, encode_page(s, page));
  (void)compress(CompressorId::zlib, 6, b.serialized.front().second, b.zlib_of_json);  // json is the first row
  (void)compress(CompressorId::zlib, 6, b.html, b.zlib_of_html);
  return b;
}

Result<std::vector<Step>> calibrate_host(const HostSpec& spec, const TimingPlan& timing) {
  const Page page = host_page(spec);
  const HostBytes bytes = host_bytes(spec);
  Plan plan(spec.peer_cpu);
  plan.add_memcpy("copy", bytes.html, "html");
  // Every compressor on the HTML and on each serialization, stored natively with compression
  // forced (threshold 0, no minimum saving) so that each one is timed.
  std::vector<std::pair<std::string, std::string>> payloads = {{"html", bytes.html}};
  for (const auto& [s, b] : bytes.serialized) payloads.emplace_back(to_string(s), b);
  for (const CompressorCodec& c : kCompressorCodecs) {
    for (const auto& [name, plain] : payloads) {
      Strategy st = *parse_strategy(std::string("html+") + c.name, FlagScheme::native);
      st.rule.threshold_bytes = 0;
      st.rule.factor = 0;
      st.rule.min_savings = 0;
      const EncodedValue v = wrap_payload(st, plain);
      plan.add_unwrap("decompress", v, FlagScheme::native, plain, Decoders{}, std::string(c.name) + " of " + name);
    }
  }
  for (const auto& [s, b] : bytes.serialized) plan.add_decode("decode", s, b, page, Decoders{}, to_string(s));
  for (SerializerId s : kSerializers) plan.add_encode("encode", s, page);
  plan.add_render("render", page, bytes.html);
  if (Status st = plan.add_receive("loopback", spec.request_bytes); !st) return st.error();
  if (Status st = plan.add_round_trip("loopback", 32, bytes.html.size() + 48); !st) return st.error();
  if (Status st = plan.add_send("loopback", spec.head_bytes + bytes.html.size()); !st) return st.error();
  return plan.run(timing);
}

}  // namespace hitcost::floor
