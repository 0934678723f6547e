#include "report/cpu_record.h"

namespace hitcost::client {

using nlohmann::json;

CpuRecord cpu_record_of(const CpuFigures& f, uint64_t requests) {
  auto us = [&](double s) { return f.per_request_us(s, requests); };
  auto party = [&](const PartyCpu& p) {
    PartyUsRecord out;
    out.server = us(p.server);
    if (f.has_cache && p.peers_split) out.cache = us(p.cache);
    if (p.peers_split) out.client = us(p.client);
    out.peers = us(p.peers());
    out.total = us(p.total());
    return out;
  };
  auto opt_us = [&](const std::optional<double>& s) { return s ? std::optional<double>(us(*s)) : std::nullopt; };
  CpuRecord c;
  c.attribution = to_string(f.attribution);
  c.attribution_note = f.attribution_note;
  c.requests = requests;
  c.receiver_pays_note = f.receiver_pays_note;
  c.per_request_us.raw = party(f.raw);
  c.per_request_us.net = party(f.net);
  if (f.receiver_pays) c.per_request_us.receiver_pays = party(*f.receiver_pays);
  c.per_request_us.attributed = party(f.attributed);
  // Read from this machine's /proc: null beside local false when a measured process is elsewhere.
  auto here = [&](const std::optional<double>& s) { return f.local ? opt_us(s) : std::nullopt; };
  c.machine_busy_us_per_req = {here(f.machine_busy_s), here(f.machine_busy_net_s), f.local, {}};
  // The idle baseline's rates: the server's and the cache's from their own figures (/stats,
  // memcached's rusage), wherever they ran; this client's its own.
  if (f.idle_cores) c.idle_cores = IdleCoresRecord{f.idle_cores->server, f.idle_cores->cache, f.idle_cores->client, {}};
  c.softirq_us_per_req = {here(f.softirq_server_cpus_s), here(f.softirq_peer_cpus_s), f.local, {}};
  c.cpus_busy_us_per_req = {here(f.busy_server_cpus_s), here(f.busy_peer_cpus_s), f.local, {}};
  c.server_hit_us = f.server_hit_us;
  c.server_hit_sampled_us = f.server_hit_sampled_us;
  c.server_hit_sender_pays_us = f.server_hit_sender_us;
  c.server_hit_receiver_pays_us = f.server_hit_receiver_us;
  c.server_miss_us = f.server_miss_us;
  c.idle_server_us_per_req = f.idle_server_us_per_req;
  c.server_shift_us_per_req = f.server_shift_us_per_req;
  c.idle_server_us_per_hit = f.idle_server_us_per_hit;
  c.server_shift_us_per_hit = f.server_shift_us_per_hit;
  c.idle_server_us_per_miss = f.idle_server_us_per_miss;
  c.server_shift_us_per_miss = f.server_shift_us_per_miss;
  c.corrections_shared = f.shared_by_cost ? "by the sampled CPU of each outcome" : "per request";
  if (!f.server_hit_parts.empty()) {
    c.server_hit_parts_us.emplace();
    for (const SampledPart& p : f.server_hit_parts) (*c.server_hit_parts_us)[p.name] = p.cpu_us;
  }
  const Contamination& k = f.contamination;
  c.contamination = {.state = to_string(k.state),
                     .why = k.why,
                     .cpus = proc::format_cpu_list(k.cpus),
                     .own_cores = k.own_cores,
                     .other_cores = k.other_cores,
                     .steal_cores = k.steal_cores,
                     .fraction = k.fraction(),
                     .kernel_cores = k.kernel_cores,
                     .kernel_where = k.kernel_where,
                     .other_server_cores = k.other_server_cores,
                     .other_peer_cores = k.other_peer_cores,
                     .local = f.local,
                     .as_read = {}};
  if (!f.local) {  // other work on this machine's CPUs says nothing of a process elsewhere
    c.contamination.own_cores = c.contamination.other_cores = c.contamination.steal_cores = c.contamination.fraction =
        c.contamination.kernel_cores = std::nullopt;
    c.contamination.other_server_cores = c.contamination.other_peer_cores = std::nullopt;
  }
  return c;
}

void to_json(json& j, const CpuRecord& c) { j = fields::write_part(c); }
void from_json(const json& j, CpuRecord& c) { fields::read_part(j, c); }
void to_json(json& j, const SamplingRecord& s) { j = fields::write_part(s); }
void from_json(const json& j, SamplingRecord& s) { fields::read_part(j, s); }

}  // namespace hitcost::client
