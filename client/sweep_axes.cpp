#include "client/sweep_axes.h"

#include <algorithm>
#include <charconv>

namespace hitcost::client {

namespace {

// A whole number >= 1, canonical ("02" → "2").
Result<std::string> positive_int(std::string_view name, std::string_view v) {
  int n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < 1)
    return Error{Errc::invalid_argument, std::string(name) + ": '" + std::string(v) + "' is not a whole number >= 1"};
  return std::to_string(n);
}
int as_int(const std::string& v) { return std::stoi(v); }  // checked by positive_int first

Result<std::string> as_given(std::string_view v) { return std::string(v); }

// In the order a cell's settings are applied.
const std::vector<SweepAxis> kAxes = {
    {"store", "the server's store (memory, memcached:HOST:PORT, mmap:PATH, ...)", AxisRole::family, "--stores",
     as_given, [](const std::string& v, nlohmann::json& config) { config["store"] = v; }, nullptr, "store", true},
    {"strategy", "how values are stored (html, html+zlib, struct:json, ...)", AxisRole::row, "--strategies", as_given,
     [](const std::string& v, nlohmann::json& config) { config["strategy"] = v; }, nullptr, "strategy", true},
    {"log", "the server's access-log mode (off | line | buffered:SIZE[+flush:MS][+sync:...]); needs --access-log",
     AxisRole::cell, "", as_given, [](const std::string& v, nlohmann::json& config) { config["log"] = v; }, nullptr,
     "log", false},
    {"inflate", "the library the server inflates zlib values with (zlib | libdeflate | isal): the same bytes",
     AxisRole::cell, "", as_given, [](const std::string& v, nlohmann::json& config) { config["inflate"] = v; }, nullptr,
     "inflate", false},
    {"json_decoder", "the library the server decodes JSON values with (simdjson | hitcost | nlohmann): the same bytes",
     AxisRole::cell, "", as_given, [](const std::string& v, nlohmann::json& config) { config["json_decoder"] = v; },
     nullptr, "json_decoder", false},
    {"rows", "rows per page: the page size the server renders and stores (a namespace of its own each)", AxisRole::cell,
     "", [](std::string_view v) { return positive_int("rows", v); },
     [](const std::string& v, nlohmann::json& config) { config["rows"] = as_int(v); }, nullptr, "rows", true},
    {"threads", "hitcost-load's load threads (one epoll loop each)", AxisRole::cell, "",
     [](std::string_view v) { return positive_int("threads", v); }, nullptr,
     [](const std::string& v, LoadPlan& plan) { plan.threads = as_int(v); }, "", true},
    {"connections", "hitcost-load's TCP connections (one request in flight each)", AxisRole::cell, "",
     [](std::string_view v) { return positive_int("connections", v); }, nullptr,
     [](const std::string& v, LoadPlan& plan) { plan.connections = as_int(v); }, "", true},
};

std::string trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

const std::vector<SweepAxis>& sweep_axes() { return kAxes; }

const SweepAxis* find_sweep_axis(std::string_view name) {
  const auto it = std::find_if(kAxes.begin(), kAxes.end(), [&](const SweepAxis& a) { return a.name == name; });
  return it == kAxes.end() ? nullptr : &*it;
}

Result<std::vector<std::string>> parse_axis_values(const SweepAxis& axis, std::string_view option,
                                                   std::string_view text) {
  std::vector<std::string> values;
  if (text.find_first_not_of(' ') == std::string_view::npos) return values;
  const std::string whole(text);  // for the message: `text` is consumed below
  for (;;) {
    const size_t comma = text.find(',');
    const std::string value = trimmed(text.substr(0, comma));
    if (value.empty()) return Error{Errc::invalid_argument, std::string(option) + ": empty entry in '" + whole + "'"};
    // Labels split at spaces and CSV cells must not need quoting.
    if (value.find_first_of(" \"\n") != std::string::npos)
      return Error{Errc::invalid_argument, std::string(option) + ": '" + value + "' holds a space or a quote"};
    auto canonical = axis.check(value);
    if (!canonical) return Error{Errc::invalid_argument, std::string(option) + ": " + canonical.error().message};
    if (std::find(values.begin(), values.end(), *canonical) != values.end())
      return Error{Errc::invalid_argument, std::string(option) + ": '" + value + "' is listed twice"};
    values.push_back(std::move(canonical).value());
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return values;
}

Result<AxisValues> parse_axis(std::string_view spec) {
  const size_t eq = spec.find('=');
  const std::string name = trimmed(spec.substr(0, eq));
  const SweepAxis* axis = find_sweep_axis(name);
  if (!axis) {
    std::string known;
    for (const SweepAxis& a : kAxes)
      if (a.role == AxisRole::cell) known += (known.empty() ? "" : ", ") + std::string(a.name);
    return Error{Errc::invalid_argument, "--axis " + name + ": no such axis; the axes are " + known};
  }
  if (axis->role != AxisRole::cell)
    return Error{Errc::invalid_argument, "--axis " + name + ": " + std::string(axis->option) + " gives its values"};
  if (eq == std::string_view::npos)
    return Error{Errc::invalid_argument, "--axis " + name + ": give its values, --axis " + name + "=V1,V2"};
  auto values = parse_axis_values(*axis, "--axis " + name, spec.substr(eq + 1));
  if (!values) return values.error();
  if (values->empty()) return Error{Errc::invalid_argument, "--axis " + name + ": no values"};
  return AxisValues{axis, std::move(values).value(), "--axis " + name};
}

}  // namespace hitcost::client
