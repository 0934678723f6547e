#include "codecs/renderer.h"

#include <cmath>
#include <cstdint>

#include "codecs/text_append.h"

// One pass, appending into the caller's string: no iostreams, no locale, no strftime,
// no temporary strings per field. Dates are computed from unix seconds with the
// days-to-civil arithmetic of the proleptic Gregorian calendar.
namespace hitcost {
namespace {

struct Civil {
  int64_t year;
  unsigned month, day, hour, minute, second;
};

// Valid for every int64 second count (no overflow: |days| < 2^47).
Civil civil_from_unix(int64_t t) {
  int64_t days = t / 86400, secs = t % 86400;
  if (secs < 0) {  // floor division for dates before 1970
    secs += 86400;
    days -= 1;
  }
  // Shift the epoch to 0000-03-01 so leap days fall at the end of each 400-year era.
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  auto doe = static_cast<uint64_t>(z - era * 146097);                    // [0, 146096]
  uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  uint64_t mp = (5 * doy + 2) / 153;                                     // [0, 11], March = 0
  Civil c;
  c.day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  c.year = static_cast<int64_t>(yoe) + era * 400 + (c.month <= 2 ? 1 : 0);
  c.hour = static_cast<unsigned>(secs / 3600);
  c.minute = static_cast<unsigned>(secs / 60 % 60);
  c.second = static_cast<unsigned>(secs % 60);
  return c;
}

void two(std::string& out, unsigned v) {
  out += static_cast<char>('0' + v / 10);
  out += static_cast<char>('0' + v % 10);
}

void append_year(std::string& out, int64_t y) {
  if (y >= 0 && y <= 9999) {
    two(out, static_cast<unsigned>(y / 100));
    two(out, static_cast<unsigned>(y % 100));
  } else {
    append_int(out, y);  // outside ISO's 4 digits: still unambiguous
  }
}

// "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SSZ"
void append_iso(std::string& out, const Civil& c, bool with_time) {
  append_year(out, c.year);
  out += '-';
  two(out, c.month);
  out += '-';
  two(out, c.day);
  if (!with_time) return;
  out += 'T';
  two(out, c.hour);
  out += ':';
  two(out, c.minute);
  out += ':';
  two(out, c.second);
  out += 'Z';
}

// Two decimals from integer cents (prices are validated finite by every decoder).
void append_price(std::string& out, double price) {
  if (!(std::fabs(price) < 1e15)) {  // beyond exact cents (or NaN from a direct caller)
    append_double_shortest(out, price);
    return;
  }
  auto cents = static_cast<int64_t>(std::llround(price * 100.0));
  if (cents < 0) {
    out += '-';
    cents = -cents;
  }
  append_int(out, cents / 100);
  out += '.';
  two(out, static_cast<unsigned>(cents % 100));
}

size_t estimate(const Page& page) {
  size_t n = 512 + 2 * page.title.size();
  for (const Row& r : page.rows) {
    n += 220 + r.title.size() + r.author.size() + r.excerpt.size() + r.url.size();
    for (const auto& t : r.tags) n += t.size() + 9;
  }
  return n + n / 32;  // escapes
}

}  // namespace

void append_html_escaped(std::string_view text, std::string& out) {
  size_t run = 0;  // start of the current run of bytes that need no escaping
  for (size_t i = 0; i < text.size(); ++i) {
    const char* rep;
    switch (text[i]) {
      case '&': rep = "&amp;"; break;
      case '<': rep = "&lt;"; break;
      case '>': rep = "&gt;"; break;
      case '"': rep = "&quot;"; break;
      case '\'': rep = "&#39;"; break;
      default: continue;
    }
    out.append(text.data() + run, i - run);
    out += rep;
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
}

void render_page(const Page& page, std::string& out) {
  out.reserve(out.size() + estimate(page));
  out += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  append_html_escaped(page.title, out);
  out += "</title>\n</head>\n<body>\n<h1>";
  append_html_escaped(page.title, out);
  out += "</h1>\n<p class=\"meta\">Page ";
  append_int(out, page.id);
  out += " &middot; ";
  append_uint(out, page.rows.size());
  out += page.rows.size() == 1 ? " item" : " items";
  out +=
      "</p>\n<table>\n<thead><tr><th>Title</th><th>Author</th><th>Tags</th><th>Price</th>"
      "<th>Created</th><th>Excerpt</th></tr></thead>\n<tbody>\n";
  for (const Row& r : page.rows) {
    out += "<tr id=\"r";
    append_int(out, r.id);
    out += "\"><td><a href=\"";
    append_html_escaped(r.url, out);
    out += "\">";
    append_html_escaped(r.title, out);
    out += "</a></td><td>";
    append_html_escaped(r.author, out);
    out += "</td><td><ul>";
    for (const auto& t : r.tags) {
      out += "<li>";
      append_html_escaped(t, out);
      out += "</li>";
    }
    out += "</ul></td><td class=\"price\">";
    append_price(out, r.price);
    Civil c = civil_from_unix(r.created);
    out += "</td><td><time datetime=\"";
    append_iso(out, c, true);
    out += "\">";
    append_iso(out, c, false);
    out += "</time></td><td>";
    append_html_escaped(r.excerpt, out);
    out += "</td></tr>\n";
  }
  out += "</tbody>\n</table>\n</body>\n</html>\n";
}

}  // namespace hitcost
