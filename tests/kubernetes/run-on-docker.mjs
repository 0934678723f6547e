// run-on-docker.mjs — runs rendered Kubernetes manifests (kubectl kustomize output) on a Docker
// engine, with the names Kubernetes would give their parts, so ./test.sh executes the manifests
// a user applies to a cluster, not a copy of them. No cluster can run on the test machines
// (docs/journeys.md, "Across machines"); what a cluster adds (scheduling, the CPU manager,
// real DNS, RWX storage) is named there as what only a real cluster shows.
//
//   node run-on-docker.mjs RENDERED.yaml --work DIR [--prefix P] [--timeout 600] [--keep]
//   node run-on-docker.mjs RENDERED.yaml --check-args
//
// What it does with each kind (in this order):
//   Secret                 a folder per Secret (data decoded, stringData as is), mounted
//                          read-only where a pod's secret volume says
//   PersistentVolumeClaim  a folder per claim under --work, group-owned by the pods' fsGroup
//                          with the setgid bit, as a kubelet prepares a volume for fsGroup
//   Service                network aliases: the Service's name on every pod it selects; a
//                          headless one (clusterIP: None) also POD.SERVICE for a StatefulSet's
//                          pods (mc-0.mc), as cluster DNS names them
//   StatefulSet            pods NAME-0..NAME-(replicas-1), started together (Parallel) or in
//                          order (OrderedReady: each ready before the next), hostname = pod name
//   Deployment             pods NAME-0..; each ready (its readiness probe) before the Job starts
//   Job (Indexed)          completions pods NAME-I with JOB_COMPLETION_INDEX=I, the annotation
//                          batch.kubernetes.io/job-completion-index and the labels job-name,
//                          batch.kubernetes.io/controller-uid (a uid made here) and the index;
//                          at most parallelism at once; the Job ends when every pod has exited
// Containers: command as the entrypoint, args after it, $(VAR) expanded from the container's
// env as the kubelet does ($$ for a literal $), env values from value, fieldRef (metadata.name,
// namespace, labels['k'], annotations['k']) and secretKeyRef; limits.cpu → --cpus,
// limits.memory → --memory; securityContext runAsUser/runAsGroup/fsGroup → --user/--group-add;
// readiness by exec or httpGet (curl inside the container, the image has it).
// A field this driver does not act on is refused, naming its path: silently ignoring it would
// run something other than what the cluster would (UNDERSTOOD below is the whole list).
//
// --check-args: no pods; each container's expanded command line is run once in its image with
// --check-args appended (network none), so each program's own parser checks it; placeholders
// stand for what only a running pod has (its index 0, a uid).
//
// Output: a JSON object on stdout: {prefix, network, pods: [{name, kind, owner, ready, exit_code,
// log}], volumes: {claim: folder}, job: {name, uid, exit_codes}} (with --check-args:
// {checked: [{container, command, ok, output}]}). Exit 0 when everything ran (every Job pod
// exit 0), 1 when something failed (named on stderr), 2 on a usage error or a refused field.
// Cleanup: every container and the network carry the label hitcost.k8s-run=PREFIX and are removed
// at the end, also on SIGINT/SIGTERM (--keep leaves them for a look).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

// The fields acted on, per kind: nested objects list their keys; '*' = any key (a free map);
// [x] = a list whose items follow x; true = a leaf. Anything else is refused.
const META = { name: true, labels: { '*': true }, annotations: { '*': true } };
const ENV = [{
  name: true, value: true,
  valueFrom: {
    fieldRef: { fieldPath: true, apiVersion: true },
    secretKeyRef: { name: true, key: true },
  },
}];
const PROBE = {
  exec: { command: [true] },
  httpGet: { path: true, port: true },
  periodSeconds: true, timeoutSeconds: true, initialDelaySeconds: true, failureThreshold: true,
};
const CONTAINER = {
  name: true, image: true, command: [true], args: [true], env: ENV,
  ports: [{ name: true, containerPort: true, protocol: true }],
  readinessProbe: PROBE,
  resources: { requests: { cpu: true, memory: true }, limits: { cpu: true, memory: true } },
  volumeMounts: [{ name: true, mountPath: true, readOnly: true }],
};
const POD_SPEC = {
  containers: [CONTAINER],
  restartPolicy: true,
  securityContext: { runAsUser: true, runAsGroup: true, fsGroup: true },
  nodeSelector: { '*': true },  // one machine: every node is this one
  volumes: [{
    name: true,
    secret: { secretName: true },
    persistentVolumeClaim: { claimName: true },
  }],
};
const TEMPLATE = { metadata: { labels: { '*': true }, annotations: { '*': true } }, spec: POD_SPEC };
const UNDERSTOOD = {
  'v1/Secret': { apiVersion: true, kind: true, metadata: META, type: true, data: { '*': true }, stringData: { '*': true } },
  'v1/PersistentVolumeClaim': {
    apiVersion: true, kind: true, metadata: META,
    spec: { accessModes: [true], resources: { requests: { storage: true } } },
  },
  'v1/Service': {
    apiVersion: true, kind: true, metadata: META,
    spec: { clusterIP: true, selector: { '*': true }, ports: [{ name: true, port: true, targetPort: true, protocol: true }] },
  },
  'apps/v1/StatefulSet': {
    apiVersion: true, kind: true, metadata: META,
    spec: {
      serviceName: true, replicas: true, podManagementPolicy: true,
      selector: { matchLabels: { '*': true } }, template: TEMPLATE,
    },
  },
  'apps/v1/Deployment': {
    apiVersion: true, kind: true, metadata: META,
    spec: { replicas: true, selector: { matchLabels: { '*': true } }, template: TEMPLATE },
  },
  'batch/v1/Job': {
    apiVersion: true, kind: true, metadata: META,
    spec: {
      completionMode: true, completions: true, parallelism: true, backoffLimit: true,
      activeDeadlineSeconds: true, template: TEMPLATE,
    },
  },
};

function usage(message) {
  process.stderr.write(`run-on-docker: ${message}\n`);
  process.exit(2);
}

// refused(obj, shape, path): the paths of obj's fields that shape does not list
function refused(obj, shape, at) {
  if (shape === true) return [];
  if (Array.isArray(shape)) {
    if (!Array.isArray(obj)) return [`${at}: a list was expected`];
    return obj.flatMap((item, i) => refused(item, shape[0], `${at}[${i}]`));
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return [`${at}: an object was expected`];
  const out = [];
  for (const [key, value] of Object.entries(obj)) {
    const sub = shape[key] ?? shape['*'];
    const here = at ? `${at}.${key}` : key;
    if (sub === undefined) out.push(`${here}: not understood by this driver`);
    else out.push(...refused(value, sub, here));
  }
  return out;
}

// ---- the command line ----
const argv = process.argv.slice(2);
const opt = { file: null, work: null, prefix: `hck${process.pid}`, timeout: 600, keep: false, checkArgs: false };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => { if (i + 1 >= argv.length) usage(`${a} needs a value`); return argv[++i]; };
  if (a === '--work') opt.work = value();
  else if (a === '--prefix') opt.prefix = value();
  else if (a === '--timeout') opt.timeout = Number(value());
  else if (a === '--keep') opt.keep = true;
  else if (a === '--check-args') opt.checkArgs = true;
  else if (a.startsWith('-') && a !== '-') usage(`unknown option ${a}`);
  else if (opt.file === null) opt.file = a;
  else usage(`one file only (got ${opt.file} and ${a})`);
}
if (opt.file === null) usage('usage: run-on-docker.mjs RENDERED.yaml (--work DIR | --check-args) [--prefix P] [--timeout S] [--keep]');
if (!opt.checkArgs && !opt.work) usage('--work DIR is needed to run pods (their volumes go there)');
if (!/^[a-z0-9][a-z0-9-]{0,30}$/.test(opt.prefix)) usage(`--prefix must be lowercase letters, digits and -: ${opt.prefix}`);
if (!(opt.timeout > 0)) usage('--timeout must be a positive number of seconds');

let text;
try { text = opt.file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(opt.file, 'utf8'); }
catch (e) { usage(`cannot read ${opt.file}: ${e.message}`); }
const docs = YAML.parseAllDocuments(text);
const objects = [];
for (const d of docs) {
  if (d.errors.length) usage(`${opt.file}: ${d.errors[0].message}`);
  const o = d.toJS();
  if (o !== null) objects.push(o);
}

// Every field understood, or nothing runs.
const problems = [];
for (const o of objects) {
  const key = `${o.apiVersion}/${o.kind}`;
  const shape = UNDERSTOOD[key];
  const name = `${o.kind}/${o.metadata?.name}`;
  if (!shape) { problems.push(`${name}: kind ${key} is not one this driver runs`); continue; }
  for (const p of refused(o, shape, '')) problems.push(`${name}: ${p}`);
  if (o.kind === 'Job' && o.spec.completionMode !== 'Indexed') problems.push(`${name}: only Indexed Jobs are run (completionMode: Indexed)`);
  if (o.kind === 'StatefulSet' && !['Parallel', 'OrderedReady', undefined].includes(o.spec.podManagementPolicy)) {
    problems.push(`${name}: podManagementPolicy ${o.spec.podManagementPolicy}`);
  }
}
if (problems.length) {
  for (const p of problems) process.stderr.write(`run-on-docker: refused: ${p}\n`);
  process.exit(2);
}

const byKind = (kind) => objects.filter((o) => o.kind === kind);
const secrets = new Map(byKind('Secret').map((s) => [s.metadata.name, s]));
function secretValue(name, key) {
  const s = secrets.get(name);
  if (!s) throw new Error(`Secret ${name} is not in the manifests`);
  if (s.stringData && key in s.stringData) return String(s.stringData[key]);
  if (s.data && key in s.data) return Buffer.from(s.data[key], 'base64').toString('utf8');
  throw new Error(`Secret ${name} has no key ${key}`);
}

// The pods each workload makes: {name, kind, owner, index, labels, annotations, spec, aliases}
const uid = randomUUID();
function podsOf(w) {
  const t = w.spec.template;
  const make = (name, extraLabels = {}, extraAnnotations = {}, index = null) => ({
    name, kind: w.kind, owner: w.metadata.name, index,
    labels: { ...(t.metadata?.labels ?? {}), ...extraLabels },
    annotations: { ...(t.metadata?.annotations ?? {}), ...extraAnnotations },
    spec: t.spec, aliases: [], hostname: name,
  });
  const n = (x, d) => (x === undefined ? d : x);
  if (w.kind === 'StatefulSet') {
    return Array.from({ length: n(w.spec.replicas, 1) }, (_, i) => {
      const p = make(`${w.metadata.name}-${i}`, { 'statefulset.kubernetes.io/pod-name': `${w.metadata.name}-${i}` });
      p.subdomain = w.spec.serviceName;
      return p;
    });
  }
  if (w.kind === 'Deployment') return Array.from({ length: n(w.spec.replicas, 1) }, (_, i) => make(`${w.metadata.name}-${i}`));
  return Array.from({ length: n(w.spec.completions, 1) }, (_, i) => make(`${w.metadata.name}-${i}`, {
    'job-name': w.metadata.name, 'batch.kubernetes.io/job-name': w.metadata.name,
    'controller-uid': uid, 'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-completion-index': String(i),
  }, { 'batch.kubernetes.io/job-completion-index': String(i) }, i));
}
const workloads = [...byKind('StatefulSet'), ...byKind('Deployment'), ...byKind('Job')];
const pods = workloads.flatMap(podsOf);
for (const svc of byKind('Service')) {
  const sel = Object.entries(svc.spec.selector ?? {});
  for (const p of pods) {
    if (sel.length === 0 || !sel.every(([k, v]) => p.labels[k] === v)) continue;
    p.aliases.push(svc.metadata.name);
    if (svc.spec.clusterIP === 'None' && p.subdomain === svc.metadata.name) p.aliases.push(`${p.name}.${svc.metadata.name}`);
  }
}

// A pod's environment, then its command with $(VAR) expanded as the kubelet does.
function fieldValue(p, fieldPath) {
  if (fieldPath === 'metadata.name') return p.name;
  if (fieldPath === 'metadata.namespace') return 'default';
  const m = /^metadata\.(labels|annotations)\['([^']+)'\]$/.exec(fieldPath);
  if (m) return (m[1] === 'labels' ? p.labels : p.annotations)[m[2]] ?? '';
  throw new Error(`fieldRef ${fieldPath} is not one this driver fills`);
}
function envOf(p, c) {
  const env = {};
  if (p.index !== null) env.JOB_COMPLETION_INDEX = String(p.index);
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = expand(String(e.value), env);
    else if (e.valueFrom?.fieldRef) env[e.name] = fieldValue(p, e.valueFrom.fieldRef.fieldPath);
    else if (e.valueFrom?.secretKeyRef) env[e.name] = secretValue(e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key);
    else env[e.name] = '';
  }
  return env;
}
function expand(s, env) {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, name) => {
    if (all === '$$') return '$';
    return name in env ? env[name] : all;  // an unknown $(X) stays as written, as in Kubernetes
  });
}
function commandOf(p, c, env) {
  const line = [...(c.command ?? []), ...(c.args ?? [])].map((x) => expand(String(x), env));
  if (line.length === 0) throw new Error(`${p.name}/${c.name}: no command (the image's own is not run here)`);
  return line;
}
const cpus = (q) => (q === undefined ? null : String(q).endsWith('m') ? Number(String(q).slice(0, -1)) / 1000 : Number(q));
function bytes(q) {
  if (q === undefined) return null;
  const m = /^([0-9.]+)(Ki|Mi|Gi|Ti|K|M|G|T)?$/.exec(String(q));
  if (!m) throw new Error(`memory ${q} is not a quantity this driver reads`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2]] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

function docker(args, { allowFail = false, input } = {}) {
  const r = spawnSync('docker', args, { encoding: 'utf8', input, maxBuffer: 64 << 20 });
  if (r.status !== 0 && !allowFail) throw new Error(`docker ${args.slice(0, 3).join(' ')} ...: ${(r.stderr || r.error?.message || '').trim()}`);
  return r;
}

// ---- --check-args: each container's line through its program's own parser ----
if (opt.checkArgs) {
  const checked = [];
  const seen = new Set();
  for (const p of pods) {
    for (const c of p.spec.containers) {
      const key = `${p.owner}/${c.name}`;
      if (seen.has(key)) continue;  // one pod per workload: the others differ only in index
      seen.add(key);
      let env;
      try { env = envOf(p, c); } catch (e) {
        // A secret the test supplies outside the manifests: its value is not part of the line.
        env = envOf({ ...p }, { ...c, env: (c.env ?? []).filter((e2) => !e2.valueFrom?.secretKeyRef) });
      }
      const line = commandOf(p, c, env);
      const r = docker(['run', '--rm', '--network', 'none', '--label', `hitcost.k8s-run=${opt.prefix}`,
        ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
        '--entrypoint', line[0], c.image, ...line.slice(1), '--check-args'], { allowFail: true });
      const output = `${r.stdout}${r.stderr}`.trim();
      checked.push({ container: key, command: line, ok: r.status === 0, exit_code: r.status, output });
      if (r.status !== 0) process.stderr.write(`run-on-docker: ${key}: ${line.join(' ')} --check-args exited ${r.status}: ${output}\n`);
    }
  }
  process.stdout.write(`${JSON.stringify({ checked }, null, 2)}\n`);
  process.exit(checked.length > 0 && checked.every((c) => c.ok) ? 0 : 1);
}

// ---- running them ----
const network = `${opt.prefix}-net`;
const label = `hitcost.k8s-run=${opt.prefix}`;
let cleaned = false;
function cleanup() {
  if (cleaned || opt.keep) return;
  cleaned = true;
  const ids = docker(['ps', '-aq', '--filter', `label=${label}`], { allowFail: true }).stdout.split('\n').filter(Boolean);
  if (ids.length) docker(['rm', '-f', ...ids], { allowFail: true });
  docker(['network', 'rm', network], { allowFail: true });
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { cleanup(); process.exit(130); });

const say = (s) => process.stderr.write(`run-on-docker: ${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const result = { prefix: opt.prefix, network, pods: [], volumes: {}, job: null };

async function main() {
  fs.mkdirSync(opt.work, { recursive: true });
  docker(['network', 'create', '--label', label, network]);
  // Secrets and claims become folders.
  const fsGroups = pods.map((p) => p.spec.securityContext?.fsGroup).filter((g) => g !== undefined);
  for (const s of secrets.values()) {
    const dir = path.join(opt.work, 'secrets', s.metadata.name);
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
    for (const key of new Set([...Object.keys(s.data ?? {}), ...Object.keys(s.stringData ?? {})])) {
      fs.writeFileSync(path.join(dir, key), secretValue(s.metadata.name, key), { mode: 0o644 });
    }
  }
  for (const c of byKind('PersistentVolumeClaim')) {
    const dir = path.join(opt.work, 'volumes', c.metadata.name);
    fs.mkdirSync(dir, { recursive: true });
    if (fsGroups.length) fs.chownSync(dir, 0, fsGroups[0]);
    fs.chmodSync(dir, 0o2775);
    result.volumes[c.metadata.name] = dir;
  }

  function start(p) {
    const c = p.spec.containers[0];
    if (p.spec.containers.length !== 1) throw new Error(`${p.name}: one container per pod is what this driver runs`);
    const env = envOf(p, c);
    const line = commandOf(p, c, env);
    const args = ['run', '-d', '--name', `${opt.prefix}-${p.name}`, '--hostname', p.name, '--network', network,
      '--label', label, '--label', `hitcost.k8s-pod=${p.name}`];
    for (const a of p.aliases) args.push('--network-alias', a);
    for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`);
    const lim = c.resources?.limits ?? {};
    if (cpus(lim.cpu) !== null) args.push('--cpus', String(cpus(lim.cpu)));
    if (bytes(lim.memory) !== null) args.push('--memory', String(bytes(lim.memory)));
    const sc = p.spec.securityContext ?? {};
    if (sc.runAsUser !== undefined) args.push('--user', `${sc.runAsUser}:${sc.runAsGroup ?? sc.runAsUser}`);
    if (sc.fsGroup !== undefined) args.push('--group-add', String(sc.fsGroup));
    for (const m of c.volumeMounts ?? []) {
      const v = (p.spec.volumes ?? []).find((x) => x.name === m.name);
      if (!v) throw new Error(`${p.name}: volumeMount ${m.name} has no volume`);
      const src = v.secret ? path.join(opt.work, 'secrets', v.secret.secretName) : result.volumes[v.persistentVolumeClaim.claimName];
      if (!src || !fs.existsSync(src)) throw new Error(`${p.name}: volume ${m.name} has nothing behind it (a Secret or claim missing)`);
      args.push('-v', `${src}:${m.mountPath}${m.readOnly || v.secret ? ':ro' : ''}`);
    }
    args.push('--entrypoint', line[0], c.image, ...line.slice(1));
    docker(args);
    const record = { name: p.name, kind: p.kind, owner: p.owner, index: p.index, aliases: p.aliases, ready: false, exit_code: null, log: null };
    result.pods.push(record);
    say(`started ${p.kind}/${p.owner} pod ${p.name}${p.aliases.length ? ` (${p.aliases.join(', ')})` : ''}: ${line.join(' ')}`);
    return record;
  }
  function probeOnce(p) {
    const c = p.spec.containers[0];
    const probe = c.readinessProbe;
    if (!probe) return true;
    const name = `${opt.prefix}-${p.name}`;
    if (probe.exec) return docker(['exec', name, ...probe.exec.command], { allowFail: true }).status === 0;
    let port = probe.httpGet.port;
    if (typeof port === 'string') port = (c.ports ?? []).find((x) => x.name === port)?.containerPort;
    return docker(['exec', name, 'curl', '-fsS', '--max-time', String(probe.timeoutSeconds ?? 1),
      `http://127.0.0.1:${port}${probe.httpGet.path ?? '/'}`], { allowFail: true }).status === 0;
  }
  async function ready(list, record, seconds = 120) {
    const deadline = Date.now() + seconds * 1000;
    for (const [i, p] of list.entries()) {
      while (!probeOnce(p)) {
        const state = docker(['inspect', '-f', '{{.State.Running}}', `${opt.prefix}-${p.name}`], { allowFail: true }).stdout.trim();
        if (state !== 'true') throw new Error(`${p.name} exited before it was ready:\n${logsOf(p.name).slice(-2000)}`);
        if (Date.now() > deadline) throw new Error(`${p.name} not ready within ${seconds} s:\n${logsOf(p.name).slice(-2000)}`);
        await sleep(500);
      }
      record[i].ready = true;
      say(`${p.name} ready`);
    }
  }
  const logsOf = (name) => { const r = docker(['logs', `${opt.prefix}-${name}`], { allowFail: true }); return `${r.stdout}${r.stderr}`; };

  for (const w of [...byKind('StatefulSet'), ...byKind('Deployment')]) {
    const list = pods.filter((p) => p.owner === w.metadata.name && p.kind === w.kind);
    if (w.kind === 'StatefulSet' && w.spec.podManagementPolicy !== 'Parallel') {
      for (const p of list) await ready([p], [start(p)]);  // OrderedReady: one at a time
    } else {
      const records = list.map(start);
      await ready(list, records);
    }
  }
  for (const j of byKind('Job')) {
    const list = pods.filter((p) => p.owner === j.metadata.name && p.kind === 'Job');
    const parallel = j.spec.parallelism ?? 1;
    const deadline = Date.now() + Math.min(opt.timeout, j.spec.activeDeadlineSeconds ?? Infinity) * 1000;
    const running = new Map();
    const records = new Map();
    let next = 0;
    while (next < list.length || running.size > 0) {
      while (running.size < parallel && next < list.length) {
        const p = list[next++];
        const rec = start(p);
        rec.ready = true;
        running.set(p.name, p);
        records.set(p.name, rec);
      }
      for (const name of [...running.keys()]) {
        const state = docker(['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', `${opt.prefix}-${name}`]).stdout.trim().split(' ');
        if (state[0] !== 'exited' && state[0] !== 'dead') continue;
        const rec = records.get(name);
        rec.exit_code = Number(state[1]);
        rec.log = path.join(opt.work, 'logs', `${name}.log`);
        fs.mkdirSync(path.dirname(rec.log), { recursive: true });
        fs.writeFileSync(rec.log, logsOf(name));
        running.delete(name);
        say(`${name} exited ${rec.exit_code}`);
      }
      if (running.size > 0 && Date.now() > deadline) throw new Error(`Job ${j.metadata.name}: pods ${[...running.keys()].join(', ')} still running after the deadline`);
      await sleep(300);
    }
    result.job = { name: j.metadata.name, uid, exit_codes: list.map((p) => records.get(p.name).exit_code) };
  }
  // The long-running pods' logs too, for a look when a check fails.
  for (const rec of result.pods.filter((r) => r.log === null)) {
    rec.log = path.join(opt.work, 'logs', `${rec.name}.log`);
    fs.mkdirSync(path.dirname(rec.log), { recursive: true });
    fs.writeFileSync(rec.log, logsOf(rec.name));
  }
}

let code = 0;
try {
  await main();
  if (!result.job || result.job.exit_codes.some((c) => c !== 0)) code = 1;
} catch (e) {
  say(`FAILED: ${e.message}`);
  code = 1;
}
cleanup();
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(code);
