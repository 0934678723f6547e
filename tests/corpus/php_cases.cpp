#include "tests/corpus/php_cases.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tests/support/command.h"

namespace hitcost::corpus::testing {
namespace {

namespace fs = std::filesystem;

// Writes DIR/NAME.ser, .igb and .igbf for each case and prints "NAME SHARES" per case.
// Arrays are built at run time where a literal could let the compiler share them.
constexpr const char* kGeneratorPhp = R"PHP(<?php
ini_set('serialize_precision', '-1');
$dir = $argv[1];
$cases = [];
$cases['nested_map'] = ['user' => ['id' => 42, 'name' => 'Ann', 'tags' => ['a', 'b'],
                        'address' => ['city' => 'Zürich', 'zip' => '8001']], 'ok' => true, 'score' => 9.5];
$cases['list_mixed'] = [1, 'two', 3.5, null, false, true, -7];
$cases['int_keys'] = [5 => 'a', -3 => 'b', 0 => 'c', 100 => 'd', PHP_INT_MAX => 'max', PHP_INT_MIN => 'min', 1 => 'e'];
$cases['numeric_string_keys'] = ['7' => 'x', '07' => 'y', '-3' => 'z', '1.5' => 'w', '' => 'empty', ' 1' => 'sp'];
$cases['floats'] = [0.1, 1e25, -0.0, 5.0, 1.0, 0.0, INF, -INF, NAN, 1.5e-7, 123456789012345678.0, 1e16, 1e17,
                    1.5e16, 1e-4, 1e-5, 0.00012, 5e-324, PHP_FLOAT_MAX, PHP_FLOAT_MIN, 0.5, -2.5, 100.0, 1e15,
                    1e21, 2.0 ** 53, -1e-300, 3.141592653589793, 1/3];
$cases['empty'] = [];
$cases['empties'] = ['a' => [], 'b' => [[], 'x' => []], 'c' => [1, []], 'd' => ''];
$cases['long_strings'] = ['long' => str_repeat('abcdefgh', 9000), 'mid' => str_repeat('z', 300), 'short' => 'q'];
$cases['binary_strings'] = ["a\0b", 'say "hi";', "\xff\xfe\x80\x00", 's:3:"x";', '}', "\n\r\t", "\0"];
$cases['bools_nulls'] = [true, false, null, 'k' => null, 'f' => false];
$cases['int_bounds'] = [PHP_INT_MAX, PHP_INT_MIN, 0, -1, 1, 255, 256, -255, -256, -257, 65535, 65536, -65535,
                        -65536, -65537, 4294967295, 4294967296, -4294967295, -4294967296, -4294967297,
                        PHP_INT_MIN + 1, PHP_INT_MAX - 1];
$rep = [];
for ($i = 0; $i < 300; $i++) $rep["k$i"] = "v" . ($i % 7);
for ($i = 0; $i < 300; $i++) $rep[] = "k" . (299 - $i);
$rep[] = str_repeat('y', 70000);
$rep[] = str_repeat('y', 70000);
$cases['repeated_strings'] = $rep;
$cases['unicode'] = ['日本語' => 'キー', 'emoji' => '😀', 'é' => 'é', 'mix' => "Grüße \u{1F600}"];
$cases['scalar_int'] = 42;
$cases['scalar_string'] = 'top level';
$cases['scalar_null'] = null;
$cases['scalar_double'] = 0.1;
$many = [];
for ($i = 0; $i < 300; $i++) $many[] = [$i, "s" . ($i % 5)];
$many[] = []; $many[] = ['e' => []]; $many[] = [];
$cases['many_arrays'] = $many;
$deep = 'bottom';
for ($i = 0; $i < 512; $i++) $deep = [$deep];
$cases['deep_512'] = $deep;
mt_srand(15);
$doubles = [];
for ($i = 0; $i < 2000; $i++) {
  $b = '';
  for ($k = 0; $k < 8; $k++) $b .= chr(mt_rand(0, 255));
  $d = unpack('E', $b)[1];
  $doubles[] = is_nan($d) ? 0.25 : $d;  // a NaN's payload survives igbinary but not serialize
  $doubles[] = mt_rand(0, 1000000000) / (10 ** mt_rand(0, 12));
  $doubles[] = mt_rand() * (10.0 ** mt_rand(-30, 30));
}
$cases['random_doubles'] = $doubles;
$row = [];
$row['id'] = 7; $row['name'] = 'shared';
$cases['shared_rows'] = ['a' => $row, 'b' => $row, 'c' => [$row]];
$cases['keys_as_values'] = ['name' => 'id', 'id' => 'name', 'list' => ['name', 'id', 'name'],
                            'sub' => ['name' => 'name', 'id' => ['id' => 'id']]];
$big = [];
for ($i = 0; $i < 70000; $i++) $big[] = $i * 37 - 1000000;
$cases['big_list'] = $big;
$rows = [];
for ($i = 0; $i < 100; $i++)
  $rows[] = ['id' => $i, 'title' => "Item $i", 'price' => $i / 4, 'tags' => $i % 3 ? ['sale' . ($i % 2)] : [], 'stock' => $i % 2 === 0];
$cases['map_of_lists'] = ['rows' => $rows, 'total' => 100, 'page' => null];
foreach ($cases as $name => $v) {
  $ser = serialize($v);
  file_put_contents("$dir/$name.ser", $ser);
  file_put_contents("$dir/$name.igb", igbinary_serialize($v));
  file_put_contents("$dir/$name.igbf", igbinary_serialize(unserialize($ser)));
  echo $name, ' ', $name === 'shared_rows' ? 1 : 0, "\n";
}
)PHP";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<PhpCase> generate(std::string* error) {
  char dir_template[] = "/tmp/hitcost_php_cases_XXXXXX";
  if (!mkdtemp(dir_template)) {
    *error = "mkdtemp failed";
    return {};
  }
  const fs::path dir = dir_template;
  { std::ofstream(dir / "gen.php") << kGeneratorPhp; }
  const hitcost::testing::CommandResult run =
      hitcost::testing::run_command({"php", (dir / "gen.php").string(), dir.string()});
  std::vector<PhpCase> cases;
  if (run.exit_code != 0) {
    *error = "php generator failed (exit " + std::to_string(run.exit_code) + "): " + run.err;
  } else {
    std::istringstream lines(run.out);
    std::string name;
    int shares = 0;
    while (lines >> name >> shares) {
      PhpCase c;
      c.name = name;
      c.ser = read_file(dir / (name + ".ser"));
      c.igb = read_file(dir / (name + ".igb"));
      c.igb_fresh = read_file(dir / (name + ".igbf"));
      c.shares_arrays = shares != 0;
      cases.push_back(std::move(c));
    }
    if (!run.err.empty()) *error = "php generator wrote to stderr: " + run.err;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return cases;
}

}  // namespace

std::vector<size_t> cut_points(size_t size) {
  std::vector<size_t> at;
  if (size <= 4096) {
    for (size_t n = 0; n < size; ++n) at.push_back(n);
    return at;
  }
  for (size_t n = 0; n < 256; ++n) at.push_back(n);
  for (size_t k = 1; k < 32; ++k) at.push_back(size * k / 32);
  for (size_t n = size - 64; n < size; ++n) at.push_back(n);
  return at;
}

const std::vector<PhpCase>& php_cases(std::string* error) {
  static std::string generator_error;
  static const std::vector<PhpCase> cases = generate(&generator_error);
  *error = generator_error;
  return cases;
}

}  // namespace hitcost::corpus::testing
