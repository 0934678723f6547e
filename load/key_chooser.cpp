#include "load/key_chooser.h"

#include <cstdlib>

namespace hitcost::client {

namespace {
uint64_t splitmix64(uint64_t& x) noexcept {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// log1p(x)/x and expm1(x)/x, accurate near 0 (where the plain quotient loses digits).
double helper1(double x) noexcept {
  return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}
double helper2(double x) noexcept {
  return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
}
}  // namespace

Rng::Rng(uint64_t seed) noexcept {
  for (auto& s : s_) s = splitmix64(seed);
}

ZipfSampler::ZipfSampler(uint64_t n, double s) : n_(n), s_(s) {
  h_integral_x1_ = h_integral(1.5) - 1.0;
  h_integral_n_ = h_integral(double(n) + 0.5);
  sdiv_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
}

double ZipfSampler::h_integral(double x) const noexcept {
  const double log_x = std::log(x);
  return helper2((1.0 - s_) * log_x) * log_x;
}

double ZipfSampler::h_integral_inverse(double x) const noexcept {
  double t = x * (1.0 - s_);
  if (t < -1.0) t = -1.0;  // rounding can push it just past the pole
  return std::exp(helper1(t) * x);
}

uint64_t ZipfSampler::sample(Rng& rng) const noexcept {
  for (;;) {
    const double u = h_integral_n_ + rng.uniform() * (h_integral_x1_ - h_integral_n_);
    const double x = h_integral_inverse(u);
    double kd = std::floor(x + 0.5);
    if (kd < 1.0) kd = 1.0;
    if (kd > double(n_)) kd = double(n_);
    if (kd - x <= sdiv_ || u >= h_integral(kd + 0.5) - h(kd)) return uint64_t(kd);
  }
}

std::optional<KeyDist> parse_key_dist(const std::string& text) {
  if (text == "uniform") return KeyDist{};
  if (text.rfind("zipf:", 0) == 0) {
    const std::string num = text.substr(5);
    char* end = nullptr;
    const double s = std::strtod(num.c_str(), &end);
    if (num.empty() || *end != '\0' || !(s > 0.0) || s > 20.0) return std::nullopt;
    return KeyDist{KeyDist::Kind::zipf, s};
  }
  if (text == "zipf") return KeyDist{KeyDist::Kind::zipf, 1.0};
  return std::nullopt;
}

KeyChooser::KeyChooser(const KeySpec& spec, uint64_t seed, uint64_t lane, uint64_t stride)
    : spec_(spec), rng_(seed), lane_(lane), stride_(stride ? stride : 1) {
  if (spec_.keys == 0) spec_.keys = 1;
  if (spec_.miss_start < spec_.keys) spec_.miss_start = spec_.keys;
  if (spec_.dist.kind == KeyDist::Kind::zipf) zipf_.emplace(spec_.keys, spec_.dist.zipf_s);
}

}  // namespace hitcost::client
