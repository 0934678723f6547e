// hitcost-server: renders pages from cached data and says where each microsecond goes.
// parse options -> check --cpus -> open store + bind -> probe the store's nodes -> serve
// until SIGTERM/SIGINT (SIGHUP reopens the access log) -> drain -> exit 0. --check-args stops
// after the checks of the line (prints "hitcost-server: arguments ok", exit 0). Exit codes (README,
// "Exit codes"): 0 stopped cleanly; 1 could not start (the port taken, a store or a corpus that
// cannot be read); 2 usage (an unknown option, a bad value — UsageError —, a --cpus CPU that is
// not online). tests/server/server_exit_codes_test.cpp walks every row.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "codecs/strategy.h"
#include "codecs/zstd_dictionary.h"
#include "proc/proc.h"
#include "server/http_server.h"
#include "server/runtime_config.h"
#include "server/start_checks.h"
#include "server/store_health.h"
#include "server/value_origin.h"
#include "stores/store.h"

namespace {
// The grammar with every serializer, compressor and preset, from the codec tables.
std::string strategy_help() {
  using namespace hitcost;
  std::string h = "html | struct:SER[+COMP[:LEVEL]], e.g. struct:json+zlib; SER:";
  for (SerializerId s : kSerializers) h += std::string(" ") + to_string(s);
  h += "; COMP:";
  for (CompressorId c : kCompressors) h += std::string(" ") + to_string(c);
  h += "; presets:";
  for (const StrategyPreset& p : kStrategyPresets) {
    h += std::string(" ") + p.name + " (" + p.strategy + " under --flags " + to_string(p.scheme) + ")";
  }
  return h;
}
// Every option of the command line, into `o` (and --log-buffer as text, parsed after;
// --check-args into `check_args`).
void add_options(CLI::App& app, hitcost::server::ServerOptions& o, std::string& log_buffer, bool& check_args) {
  app.add_option("--host", o.host, "Address to listen on")->capture_default_str();
  app.add_option("--port", o.port, "Port (0 picks a free one and prints it)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  app.add_flag("--reuse-port", o.reuse_port,
               "SO_REUSEPORT: let other --reuse-port processes listen on the same port (several server processes "
               "behind one port; without it a taken port stops the start)");
  app.add_option("--threads", o.threads, "io threads, one io_context each")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--cpus", o.cpus, "Pin thread i to CPU cpus[i % n], e.g. --cpus 0,1")->delimiter(',');
  app.add_option(
         "--store", o.store,
         "memory | memory:objects | memcached:H:P[,H:P...] | mmap:PATH | pread:PATH (see docs/formats.md, Stores)")
      ->capture_default_str();
  app.add_flag("--store-create", o.store_create,
               "An mmap:/pread: store may make a new store file (as ?create=1 in the spec, also for stores switched to "
               "at run time); an existing file that is not a store file is refused either way");
  app.add_option("--strategy", o.strategy, strategy_help())->capture_default_str();
  app.add_option("--flags", o.flags, "Flag scheme: php-memcached | php-memcache | native")->capture_default_str();
  app.add_option("--rows", o.rows, "Rows per page when ?rows= is absent")->capture_default_str();
  app.add_option("--max-rows", o.max_rows, "Largest ?rows= accepted")->capture_default_str();
  app.add_option("--max-id", o.max_id, "Largest page id served (larger: 404)")->capture_default_str();
  app.add_option("--seed", o.seed, "Origin seed: same seed, same pages")->capture_default_str();
  app.add_option("--compressibility", o.compressibility, "1 = vocabulary text (zlib 3-5x), 0 = incompressible")
      ->capture_default_str();
  app.add_option("--namespace", o.ns, "Key namespace: keys are hc:NS:pID:rROWS")->capture_default_str();
  app.add_option("--inflate", o.inflate,
                 "Library that inflates zlib values (the same bytes, other speeds): " + hitcost::inflate_names())
      ->capture_default_str();
  app.add_option("--json-decoder", o.json_decoder,
                 "Library that decodes JSON values into pages: " + hitcost::json_decoder_names())
      ->capture_default_str();
  app.add_option("--threshold", o.threshold, "Compression threshold in bytes (default: the flag scheme's)");
  app.add_option("--min-savings", o.min_savings, "Keep compressed only if it saves this fraction (php-memcache rule)");
  app.add_option("--factor", o.factor, "Keep compressed only if plain > packed * factor (php-memcached rule)");
  app.add_option("--origin-delay-us", o.origin_delay_us, "Simulated backend wait on a miss (sleep)")
      ->capture_default_str();
  app.add_flag("!--no-metrics", o.metrics, "Turn off per-phase timing and CPU sampling (to measure their cost)");
  app.add_option("--cpu-sample-period", o.cpu_sample_period,
                 "Read the thread CPU clock around 1 in N requests; 0 = adapt N to cost about 1 % of the CPU")
      ->capture_default_str()
      ->check(CLI::Range(0u, 4096u));
  app.add_option("--header-limit", o.header_limit, "Max request header bytes (431 above)")->capture_default_str();
  app.add_option("--body-limit", o.body_limit, "Max request body bytes (413 above)")->capture_default_str();
  app.add_option("--idle-timeout-ms", o.idle_timeout_ms, "A whole request must arrive within this (408 / close)")
      ->capture_default_str();
  app.add_option("--drain-timeout-ms", o.drain_timeout_ms, "On SIGTERM, in-flight requests get this long")
      ->capture_default_str();
  app.add_option("--access-log", o.access_log,
                 "Write an access log here: combined log format + cache outcome, strategy, service µs (O_APPEND; "
                 "SIGHUP reopens it)");
  app.add_option("--log-buffer", log_buffer, "Access log buffer per io thread (e.g. 64k); 0 = one write(2) per line")
      ->capture_default_str();
  app.add_option("--log-flush-ms", o.log_flush_ms, "Buffered log lines wait at most this long")->capture_default_str();
  app.add_option("--log-sync", o.log_sync, "fdatasync the access log: none | each (every write) | interval:MS")
      ->capture_default_str();
  app.add_flag("--admin-remote", o.admin_remote,
               "Allow admin routes from non-loopback peers (with --admin-token-file or --admin-token)");
  CLI::Option* token_file =
      app.add_option("--admin-token-file", o.admin_token_file,
                     "Read the bearer token remote admin routes require from this file's first line (not visible "
                     "in ps, as --admin-token is)");
  app.add_option("--admin-token", o.admin_token, "Bearer token required for remote admin routes")->excludes(token_file);
  app.add_flag("--serve-unredacted", o.serve_unredacted,
               "Serve a --corpus that is not redacted on a --host beyond loopback (sampled production values may "
               "hold personal data: hitcost-corpus redact makes a shareable one)");
  app.add_option("--slow-log", o.slow_log,
                 "Record every request whose service time is above this (e.g. 2ms) with its parts' CPU and wall "
                 "time and what it waited on (GET /admin/slow; reads the thread CPU clock at every part: a "
                 "diagnostic mode)");
  app.add_option("--slow-log-file", o.slow_log_file, "Also append each slow request to this file, one JSON line each");
  app.add_option("--slow-log-rate", o.slow_log_rate,
                 "At most this many lines a second into --slow-log-file (the rest counted)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  app.add_option("--zstd-dict", o.zstd_dicts,
                 "Load a zstd dictionary ([SCOPE=]FILE, repeatable): it writes the values of +zstd-dict strategies of "
                 "that form (html, struct:json, ...; no scope: every form) and reads any frame that names it");
  app.add_option("--corpus", o.corpus,
                 "Serve a user's sampled values (a hitcost-corpus file) at GET /value/{n}, n = 0..N-1 in corpus "
                 "order; values that do not decode are left out (docs/http-api.md)");
  app.add_flag("--check-args", check_args,
               "Check the command line as a start does, print 'hitcost-server: arguments ok' and exit 0 (a bad line "
               "exits 2 with the message a start prints), opening, binding and resolving nothing. Skipped, as they "
               "need a file, a host or this machine: opening the --store (its spec is checked; memcached names, "
               "resolve=all included, are not resolved), reading --corpus (and so whether it is redacted, "
               "--serve-unredacted's check), --admin-token-file and the --zstd-dict files, opening --access-log and "
               "--slow-log-file, binding --port, and whether the --cpus are online here");
}

// Values the parser cannot judge alone; false (the reason printed) is a usage error, exit 2.
// `check_args`: only what the line alone decides (the --cpus are this machine's question).
bool check_options(hitcost::server::ServerOptions& o, const std::string& log_buffer, bool check_args) {
  if (auto size = hitcost::parse_size(log_buffer)) {
    o.log_buffer = *size;
  } else {
    std::cerr << "hitcost-server: --log-buffer: " << size.error().message << "\n";
    return false;
  }
  if (o.admin_remote && o.admin_token.empty() && o.admin_token_file.empty()) {
    std::cerr << "hitcost-server: --admin-remote needs --admin-token-file or --admin-token\n";
    return false;
  }
  // A CPU that cannot be pinned to would leave a thread running anywhere while /stats and the
  // user believe it pinned: refused before anything starts.
  if (auto why = check_args ? std::optional<std::string>() : hitcost::proc::cpus_not_online_error(o.cpus)) {
    std::cerr << "hitcost-server: --cpus: " << *why << "\n";
    return false;
  }

  try {
    hitcost::server::check_start_values(o);  // usage before any input is read: exit 2 first
  } catch (const hitcost::server::UsageError& e) {
    std::cerr << "hitcost-server: " << e.what() << "\n";
    return false;
  }
  return true;
}

// The stop signals blocked in every thread (the main thread waits for them); SIGPIPE and
// SIGXFSZ ignored so that a write that cannot be made is an error code, not a death.
sigset_t block_stop_signals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);  // not a stop: reopens the access log (logrotate)
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is an error code, not a death
  signal(SIGXFSZ, SIG_IGN);  // a log past RLIMIT_FSIZE: write(2) fails with EFBIG (counted), no death
  return stop_signals;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // redirected (CI, a script's log): lines in order with stderr's
  using hitcost::server::ServerOptions;
  ServerOptions o;
  CLI::App app{"hitcost-server: an HTTP server that renders pages from cached data"};
  std::string log_buffer = "0";
  bool check_args = false;
  add_options(app, o, log_buffer, check_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help is a success; every other parse failure a usage error
  }
  if (!check_options(o, log_buffer, check_args)) return 2;
  if (check_args) {  // every check of the line passed; those that need a file or a host are a start's
    std::printf("hitcost-server: arguments ok\n");
    return 0;
  }

  // A corpus that cannot be read is an input that cannot be opened, like a store: exit 1 with
  // the reader's reason (it names the file), as hitcost-corpus does for a corrupt file. Decoded
  // here, before the store opens or the port binds, so a large corpus delays "listening on"
  // rather than the first requests.
  if (!o.admin_token_file.empty()) {  // an input: unreadable is exit 1, empty a usage error
    auto token = hitcost::server::read_admin_token_file(o.admin_token_file);
    if (!token) {
      std::cerr << "hitcost-server: " << token.error().message << "\n";
      return token.error().code == hitcost::Errc::invalid_argument ? 2 : 1;
    }
    o.admin_token = std::move(*token);
  }
  std::shared_ptr<const hitcost::server::ValueOrigin> values;
  if (!o.corpus.empty()) {
    auto loaded = hitcost::server::ValueOrigin::load(o.corpus);
    if (!loaded) {
      std::cerr << "hitcost-server: --corpus: " << loaded.error().message << "\n";
      return 1;
    }
    values = std::move(loaded).value();
    if (!values->redacted() && !o.serve_unredacted && hitcost::server::listens_beyond_loopback(o.host)) {
      std::cerr << "hitcost-server: --corpus " << o.corpus << " is not redacted and --host " << o.host
                << " is reachable beyond this machine: serve a redacted copy (hitcost-corpus redact), or say "
                   "--serve-unredacted\n";
      return 2;
    }
    std::printf("%s\n", values->summary_line().c_str());
  }
  std::printf("%s\n", hitcost::server::open_file_line(hitcost::server::raise_open_file_limit()).c_str());

  const sigset_t stop_signals = block_stop_signals();

  try {
    hitcost::server::HttpServer server(o, values);
    // Each memcached node's state, before "listening on" (scripts wait for that line). A node
    // that is down does not stop the start, nor do all of them: memcached may come up later,
    // and the server answers every page from the origin meanwhile (GET /healthz: degraded).
    for (const auto& d : hitcost::zstd_dictionaries())  // loaded by the server's first config
      std::printf("zstd dictionary %u: %zu bytes, writes %s\n", d.id, d.bytes,
                  d.writes_for.empty() ? "nothing (reads only)" : hitcost::join_scopes(d.writes_for).c_str());
    const auto health = hitcost::server::probe_store(*server.config()->store);
    for (const auto& node : health.nodes) std::printf("%s\n", node_line(node, health).c_str());
    if (!health.nodes.empty() && health.down() == health.nodes.size())
      std::fprintf(stderr,
                   "hitcost-server: warning: no memcached node answers; starting anyway, every page is a miss "
                   "served from the origin until one does\n");
    server.start();
    std::printf("listening on %s:%d\n", o.host.c_str(), server.port());
    std::fflush(stdout);
    int sig = 0;
    while (sigwait(&stop_signals, &sig) == 0 && sig == SIGHUP) {
      if (const int err = server.reopen_access_log(); err != 0)
        std::fprintf(stderr, "hitcost-server: SIGHUP: cannot reopen %s: %s; still writing to the old file\n",
                     o.access_log.c_str(), std::strerror(err));
      else if (!o.access_log.empty())
        std::fprintf(stderr, "hitcost-server: SIGHUP: %s reopened\n", o.access_log.c_str());
    }
    std::fprintf(stderr, "hitcost-server: signal %d, draining\n", sig);
    server.drain_and_wait();
  } catch (const hitcost::server::UsageError& e) {
    std::cerr << "hitcost-server: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hitcost-server: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
