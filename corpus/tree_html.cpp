#include "corpus/tree_html.h"

#include <charconv>

namespace hitcost::corpus {

void append_html_escaped(std::string_view text, std::string& out) {
  size_t plain_from = 0;  // append runs of unescaped bytes in one go
  for (size_t i = 0; i < text.size(); ++i) {
    const char* entity = nullptr;
    switch (text[i]) {
      case '&': entity = "&amp;"; break;
      case '<': entity = "&lt;"; break;
      case '>': entity = "&gt;"; break;
      case '"': entity = "&quot;"; break;
      case '\'': entity = "&#39;"; break;
      default: continue;
    }
    out.append(text.data() + plain_from, i - plain_from);
    out.append(entity);
    plain_from = i + 1;
  }
  out.append(text.data() + plain_from, text.size() - plain_from);
}

namespace {

void append_int(int64_t i, std::string& out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, i);
  out.append(buf, r.ptr);
}

void append_double(double d, std::string& out) {
  char buf[32];  // shortest round-trip form of any double fits in 24 chars
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, r.ptr);
}

}  // namespace

void render_tree_html(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Kind::null: return;
    case Value::Kind::boolean: out.append(v.b ? "true" : "false"); return;
    case Value::Kind::integer: append_int(v.i, out); return;
    case Value::Kind::real: append_double(v.d, out); return;
    case Value::Kind::string: append_html_escaped(v.s, out); return;
    case Value::Kind::list:
      out.append("<ol>");
      for (const Value& item : v.items) {
        out.append("<li>");
        render_tree_html(item, out);
        out.append("</li>");
      }
      out.append("</ol>");
      return;
    case Value::Kind::map:
      out.append("<dl>");
      for (const auto& [key, value] : v.fields) {
        out.append("<dt>");
        if (key.is_int)
          append_int(key.i, out);
        else
          append_html_escaped(key.s, out);
        out.append("</dt><dd>");
        render_tree_html(value, out);
        out.append("</dd>");
      }
      out.append("</dl>");
      return;
  }
}

}  // namespace hitcost::corpus
