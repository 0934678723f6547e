#pragma once
// How much slower this build runs what a test times: 1 in a plain build, more under the
// sanitizers (scripts/test-sanitizers.sh builds the tests and the programs they start alike).
// For the slack of a wall-clock bound, never for the quantity the bound is about.
namespace hitcost::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// ASan and TSan slow a request's handling 2-15x; the scheduling slack of a bound grows with it.
inline constexpr double kSlackScale = kSanitized ? 4.0 : 1.0;

}  // namespace hitcost::testing
