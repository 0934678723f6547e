#pragma once
// A generic HTML rendering of a value tree: the work a PHP template does on a cached array
// on every hit (foreach + htmlspecialchars). It is the "html" strategy's stored form for
// hitcost-corpus, what /value/{n} serves, and the "render" cost a struct hit pays on top of
// its decode.
//   map    <dl><dt>key</dt><dd>value</dd>...</dl>   (int keys in decimal)
//   list   <ol><li>value</li>...</ol>
//   string its bytes, HTML-escaped (& < > " ' as &amp; &lt; &gt; &quot; &#39;)
//   int    decimal;  double: shortest text that reads back to the same double
//          (std::to_chars; "nan", "inf", "-inf" as to_chars prints them)
//   bool   true / false;  null: nothing
// Strings are bytes: non-UTF-8 bytes pass through unchanged (the escaping is byte-wise).
// Recursion follows the tree's depth; decoders limit it to kMaxDepth (tree_codec.h).
#include <string>
#include <string_view>

#include "corpus/value.h"

namespace hitcost::corpus {

// Appends the rendering of `v` to `out` (reusing its capacity).
void render_tree_html(const Value& v, std::string& out);

// Appends `text` HTML-escaped to `out` (the five characters above).
void append_html_escaped(std::string_view text, std::string& out);

}  // namespace hitcost::corpus
