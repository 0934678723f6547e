#!/usr/bin/env node
// Strict schema check of rendered Kubernetes manifests (`kubectl kustomize DIR` output, a YAML
// stream of several documents) against the models of the npm package kubernetes-models (pinned
// in package.json / package-lock.json): wrong types are rejected, and so are fields the schema
// does not define, at every depth.
//
//   node schema-check.mjs [FILE|-]     check FILE, or stdin with `-` or no argument
//   node schema-check.mjs --self-test  run the built-in cases, print how many behaved
//   node schema-check.mjs --audit      check the premise below over every model in the package
//
// stdout: a JSON array, one entry per document: {"apiVersion","kind","name","errors":[...]},
// each error "PATH: message", PATH like spec.template.spec.containers[0].ports[0].containerPort
// or metadata.annotations['batch.kubernetes.io/job-completion-index'].
// Exit 0: no document has errors; 1: some have (each error also on stderr as
// `schema-check: Kind/name: PATH: message`); 2: usage error (bad arguments, file missing,
// YAML that does not parse, no document at all).
//
// How the check is strict
// -----------------------
// kubernetes-models ships, for each apiVersion+kind, a model class whose prototype.validate()
// runs a validator that ajv compiled ahead of time from the Kubernetes OpenAPI schema (the raw
// JSON schema is not in the package, only this generated code). It checks types, enums, formats
// and required fields, but the schemas do not say additionalProperties:false, so an unknown key
// (`replicass`, `containerport`) passes. We add that half by watching what the validator reads:
// the document is handed to validate() wrapped in Proxies (one per object or array, made as the
// validator reaches it), which record for each object
//   - every key the validator reads by name (get / has / getOwnPropertyDescriptor traps), and
//   - whether it listed the object's keys (ownKeys trap).
// The generated code reads every property its schema declares, present or not
// (`void 0===data.replicas||validate21(data.replicas,...)`), reads each array item by index, and
// lists keys (`for (let key in data)`) only where the schema gives additionalProperties a schema,
// i.e. for maps: metadata.labels/annotations, Secret data/stringData, nodeSelector,
// resources.limits/requests. (The generated code has no Object.keys, no propertyNames, no
// min/maxProperties, no patternProperties: its only keywords are type, enum, format, required
// and, in the CRD schema types only, oneOf.) So after validate() we walk the document:
//   - an object whose keys were listed is a map: every key is allowed, and each value was
//     validated against the map's value schema (walk on into it);
//   - an object the validator read some keys of (always true for a typed object: it reads all
//     declared properties): a key it never read is not in the schema -> "unknown field";
//   - an object the validator never looked into at all has a schema that says nothing about
//     its contents (e.g. managedFields[].fieldsV1, declared as a bare object), or a wrong type
//     that validate() already reported: nothing more to say about it.
// Why this is right, not just plausible:
//   - `--audit` (also a case of --self-test) hands every model class of the package
//     (kubernetes-models and @kubernetes-models/apimachinery: 879 classes, every object type of
//     the API) an empty object and compares the keys its validator reads with the properties the
//     class's own TypeScript interface (.d.ts, generated from the same schema) declares. Equal
//     for all but 8, and no validator lists the keys of a typed object. The 8: the package's
//     generator dropped from the schemas every property named `description` (taking it for
//     documentation) and the x-kubernetes-* ones, so PriorityClass.description and, in CRDs,
//     CustomResourceColumnDefinition / ExternalDocumentation / JSONSchemaProps description and
//     x-kubernetes-* are never read. They are listed in SKIPPED (the audit fails if the list is
//     not exactly what it finds) and allowed, unchecked, on an object whose read keys are exactly
//     those of such a type (the audit checks no other type reads the same set).
//   - The self-test's renaming case renames, one at a time, each key of the valid manifests
//     (142 of them, at every depth) and requires the error `PATH: unknown field` at that exact
//     path, and no error when the key is one of a map's (24 of them); the other cases show
//     misspellings at the top of spec, deep in a container (env[].valueFrom.fieldRef), in a probe
//     and in volumeClaimTemplates named, wrong types named once (an object where a number goes
//     is not walked into), a bare-object field (fieldsV1) left free.
// The Proxies refuse writes (set/defineProperty/deleteProperty), so a validator that changed
// the document would fail loudly rather than be watched wrongly; and each document is deep-copied
// first so that YAML aliases (one object in two places) are watched as two objects.
//
// YAML is read as YAML 1.1, as the API server does (sigs.k8s.io/yaml, go-yaml v2): yes/no/on/off
// are booleans, 0755 is octal; without 1.1's timestamps and base-60 numbers, which go-yaml leaves
// as strings. Duplicate keys are a parse error, as there.

import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseAllDocuments, isScalar } from "yaml";

const SELF = fileURLToPath(import.meta.url);
// createRequire rather than import.meta.resolve, which Node 18 (Debian 12's nodejs) lacks.
const require = createRequire(import.meta.url);
const MODELS_DIR = path.dirname(require.resolve("kubernetes-models"));
const MACHINERY_DIR = path.dirname(require.resolve("@kubernetes-models/apimachinery"));
const readJSON = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const MODELS_PKG = readJSON(path.join(MODELS_DIR, "package.json"));
const MODELS = `kubernetes-models ${MODELS_PKG.version}`;

// ---------------------------------------------------------------------------------------------
// Models: kubernetes-models/<apiVersion> ("v1", "apps/v1", "batch/v1", ...) exports one class per
// type; the classes of the top-level kinds carry static apiVersion and kind.

const GROUP_VERSIONS = new Set(
  Object.keys(MODELS_PKG.exports)
    .filter((k) => /^\.\/(?:[a-z0-9.-]+\/)?v[0-9]+(?:(?:alpha|beta)[0-9]+)?$/.test(k))
    .map((k) => k.slice(2)),
);

async function findModel(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !GROUP_VERSIONS.has(apiVersion)) return null;
  const mod = await import(`kubernetes-models/${apiVersion}`);
  for (const cls of Object.values(mod)) {
    if (typeof cls === "function" && cls.apiVersion === apiVersion && cls.kind === kind) return cls;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Watching the validator.

// A deep copy of plain YAML data: no object is shared between two places.
function copy(v) {
  if (Array.isArray(v)) return v.map(copy);
  if (v !== null && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) Object.defineProperty(o, k, { value: copy(v[k]), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}

// Wraps data so that every object and array reached through it records what is read of it.
// Returns [proxy, watched] where watched maps each reached object to {read: Set, listed: bool}.
function watch(data) {
  const watched = new WeakMap();
  const proxies = new WeakMap();
  const refuse = () => { throw new Error("schema-check: the validator tried to change the document"); };
  const wrap = (v) => {
    if (v === null || typeof v !== "object") return v;
    let p = proxies.get(v);
    if (p) return p;
    const rec = { read: new Set(), listed: false };
    watched.set(v, rec);
    p = new Proxy(v, {
      get(t, k) { if (typeof k === "string") rec.read.add(k); return wrap(Reflect.get(t, k)); },
      has(t, k) { if (typeof k === "string") rec.read.add(k); return Reflect.has(t, k); },
      getOwnPropertyDescriptor(t, k) { if (typeof k === "string") rec.read.add(k); return Reflect.getOwnPropertyDescriptor(t, k); },
      ownKeys(t) { rec.listed = true; return Reflect.ownKeys(t); },
      set: refuse, defineProperty: refuse, deleteProperty: refuse, setPrototypeOf: refuse,
    });
    proxies.set(v, p);
    return p;
  };
  return [wrap(data), watched];
}

function keyPath(base, key, inArray) {
  if (inArray) return `${base}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return base ? `${base}.${key}` : key;
  return `${base}['${key.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
}

// The keys the validator did not know, after it ran: see the header. Each is [path, key, record
// of the object holding it].
function unknownFields(node, where, watched, out) {
  const rec = watched.get(node);
  if (!rec || (!rec.listed && rec.read.size === 0)) return; // not reached, or nothing said about its contents
  const isArray = Array.isArray(node);
  for (const key of Object.keys(node)) {
    const here = keyPath(where, key, isArray);
    if (!rec.listed && !rec.read.has(key)) {
      out.push([here, isArray ? "item not checked by the schema" : "unknown field", key, rec]);
      continue;
    }
    const v = node[key];
    if (v !== null && typeof v === "object") unknownFields(v, here, watched, out);
  }
}

// The package's generator dropped from the schemas every property named `description` (taking it
// for documentation) and the x-kubernetes-* ones, so the validators of these types never read
// them although the types declare them. The audit finds exactly these. An object of one of these
// types is told by what the validator read of it: all the other declared properties, a set no
// other type has (the audit checks that too; JSONSchemaProps v1 and v1beta1 share one, so the
// union of theirs is allowed). The dropped properties are then allowed there, unchecked: the
// package has no schema for their values.
const SKIPPED = {
  "apiextensions.k8s.io/v1 CustomResourceColumnDefinition": "description",
  "apiextensions.k8s.io/v1 ExternalDocumentation": "description",
  "apiextensions.k8s.io/v1 JSONSchemaProps": "description,x-kubernetes-embedded-resource,x-kubernetes-int-or-string,x-kubernetes-list-map-keys,x-kubernetes-list-type,x-kubernetes-map-type,x-kubernetes-preserve-unknown-fields,x-kubernetes-validations",
  "apiextensions.k8s.io/v1beta1 CustomResourceColumnDefinition": "description",
  "apiextensions.k8s.io/v1beta1 ExternalDocumentation": "description",
  "apiextensions.k8s.io/v1beta1 JSONSchemaProps": "description,x-kubernetes-embedded-resource,x-kubernetes-int-or-string,x-kubernetes-list-map-keys,x-kubernetes-list-type,x-kubernetes-map-type,x-kubernetes-preserve-unknown-fields",
  "scheduling.k8s.io/v1 PriorityClass": "description",
  "scheduling.k8s.io/v1beta1 PriorityClass": "description",
};
const signature = (read) => [...read].sort().join("\n");

// What a model's validator reads of an empty object: {read: Set, listed: bool}.
function readsOf(cls) {
  const target = {};
  const [proxy, watched] = watch(target);
  try { cls.prototype.validate.call(proxy); } catch (err) { if (!Array.isArray(err.errors)) throw err; }
  return watched.get(target);
}

let skippedBySignature = null; // signature of what is read -> Set of the properties not read
async function skippedAt(rec) {
  if (!skippedBySignature) {
    skippedBySignature = new Map();
    for (const [what, props] of Object.entries(SKIPPED)) {
      const [gv, name] = what.split(" ");
      const cls = (await import(`kubernetes-models/${gv}`))[name];
      const sig = signature(readsOf(cls).read);
      skippedBySignature.set(sig, new Set([...(skippedBySignature.get(sig) ?? []), ...props.split(",")]));
    }
  }
  return skippedBySignature.get(signature(rec.read));
}

// An ajv instancePath (/spec/template/spec/containers/0/env) as a path into the document.
function pointerPath(doc, pointer) {
  let where = "", node = doc;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    where = keyPath(where, key, Array.isArray(node));
    node = node !== null && typeof node === "object" ? node[key] : undefined;
  }
  return where || "(document)";
}

function ajvMessage(e) {
  let m = e.message || e.keyword;
  if (e.keyword === "enum" && e.params && Array.isArray(e.params.allowedValues)) m += `: ${e.params.allowedValues.map((x) => JSON.stringify(x)).join(", ")}`;
  return m;
}

function typeName(v) {
  return v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `a ${typeof v}`;
}

// Checks one parsed document (plain data); returns its report entry.
export async function checkDocument(data) {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { apiVersion: null, kind: null, name: null, errors: [`(document): not an object but ${typeName(data)}`] };
  }
  const meta = data.metadata;
  const entry = {
    apiVersion: typeof data.apiVersion === "string" ? data.apiVersion : null,
    kind: typeof data.kind === "string" ? data.kind : null,
    name: meta && typeof meta === "object" && typeof meta.name === "string" ? meta.name : null,
    errors: [],
  };
  const model = await findModel(data.apiVersion, data.kind);
  if (!model) {
    entry.errors.push(`apiVersion/kind: no model for ${JSON.stringify(data.apiVersion ?? null)} ${JSON.stringify(data.kind ?? null)} in ${MODELS}`);
    return entry;
  }
  const doc = copy(data);
  const [proxy, watched] = watch(doc);
  try {
    model.prototype.validate.call(proxy);
  } catch (err) {
    if (!Array.isArray(err.errors)) throw err;
    for (const e of err.errors) entry.errors.push(`${pointerPath(doc, e.instancePath)}: ${ajvMessage(e)}`);
  }
  const unknown = [];
  unknownFields(doc, "", watched, unknown);
  for (const [here, message, key, rec] of unknown) {
    if ((key === "description" || key.startsWith("x-kubernetes-")) && (await skippedAt(rec))?.has(key)) continue;
    entry.errors.push(`${here}: ${message}`);
  }
  entry.errors = [...new Set(entry.errors)];
  return entry;
}

// YAML 1.1 as go-yaml v2 reads it: no timestamps, no base-60 numbers (see the header).
const YAML_OPTIONS = {
  version: "1.1",
  customTags: (tags) => tags.filter((t) => t.tag !== "tag:yaml.org,2002:timestamp" && t.format !== "TIME"),
};

class UsageError extends Error {}

// Parses a YAML stream into plain documents; empty documents (nothing but comments) are skipped.
export function parseStream(text, source) {
  const docs = [];
  for (const doc of parseAllDocuments(text, YAML_OPTIONS)) {
    if (doc.errors.length) throw new UsageError(`${source}: YAML does not parse: ${doc.errors[0].message.split("\n")[0]}`);
    const c = doc.contents;
    if (c === null || (isScalar(c) && c.value === null && c.source === "")) continue;
    docs.push(doc.toJS());
  }
  if (docs.length === 0) throw new UsageError(`${source}: no YAML document in it`);
  return docs;
}

export async function checkStream(text, source = "-") {
  const out = [];
  for (const d of parseStream(text, source)) out.push(await checkDocument(d));
  return out;
}

// ---------------------------------------------------------------------------------------------
// The audit: for every model class, the keys its validator reads on an empty object are the
// properties its TypeScript interface declares, but for SKIPPED; no validator lists the keys of a
// typed object; each type in SKIPPED is told apart by what is read of it (see the header).

export async function audit() {
  let classes = 0;
  const problems = [];
  const differ = {};
  const bySignature = new Map();
  for (const root of [MODELS_DIR, MACHINERY_DIR]) {
    for (const key of Object.keys(readJSON(path.join(root, "package.json")).exports)) {
      if (key === "." || key.includes("*")) continue;
      const dir = path.join(root, key.slice(2));
      if (!fs.existsSync(path.join(dir, "index.mjs"))) continue;
      for (const file of fs.readdirSync(dir).sort()) {
        if (!file.endsWith(".mjs") || file === "index.mjs") continue;
        const name = file.slice(0, -4), what = `${key.slice(2)} ${name}`;
        const cls = (await import(pathToFileURL(path.join(dir, file))))[name];
        if (typeof cls !== "function" || typeof cls.prototype.validate !== "function") continue; // Quantity, Time, IntOrString: scalars
        const dts = fs.readFileSync(path.join(dir, `${name}.d.ts`), "utf8");
        const m = dts.match(new RegExp(`\\nexport interface I${name}(?: extends [^{]*)? \\{\\n([\\s\\S]*?)\\n\\}`));
        if (!m) { problems.push(`${what}: no interface in its .d.ts`); continue; }
        const declared = new Set([...m[1].matchAll(/^ {4}"([^"]+)"\??:/gm)].map((x) => x[1]));
        const seen = readsOf(cls);
        classes++;
        if (seen.listed) problems.push(`${what}: its validator lists the keys of the object`);
        const missing = [...declared].filter((k) => !seen.read.has(k)).sort();
        const extra = [...seen.read].filter((k) => !declared.has(k)).sort();
        if (extra.length) problems.push(`${what}: its validator reads undeclared ${extra.join(",")}`);
        if (missing.length) differ[what] = missing.join(",");
        const sig = signature(seen.read);
        bySignature.set(sig, [...(bySignature.get(sig) ?? []), what]);
      }
    }
  }
  for (const [what, missing] of Object.entries(differ)) {
    if (SKIPPED[what] !== missing) problems.push(`${what}: its validator does not read declared ${missing}`);
  }
  for (const [what, missing] of Object.entries(SKIPPED)) {
    if (differ[what] !== missing) problems.push(`${what}: expected its validator to skip ${missing}, it skips ${differ[what] ?? "nothing"}`);
  }
  for (const names of bySignature.values()) {
    const skipping = names.filter((n) => SKIPPED[n]);
    // Two of SKIPPED may share one (JSONSchemaProps in v1 and v1beta1): the union is allowed.
    if (skipping.length && names.length !== skipping.length) {
      problems.push(`${names.join(", ")}: validators read the same keys, so ${skipping.join(", ")} cannot be told apart`);
    }
  }
  if (classes < 800) problems.push(`only ${classes} model classes found`);
  return { classes, problems };
}

// ---------------------------------------------------------------------------------------------
// Self-test: manifests shaped like hitcost's, which must pass, and mistakes that must be named.

const STATEFULSET = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: memcached
  labels: {app.kubernetes.io/name: memcached, app.kubernetes.io/part-of: hitcost}
spec:
  serviceName: memcached
  replicas: 3
  podManagementPolicy: Parallel
  selector:
    matchLabels: {app.kubernetes.io/name: memcached}
  template:
    metadata:
      labels: {app.kubernetes.io/name: memcached}
      annotations: {hitcost.example/any-key: "any value"}
    spec:
      nodeSelector: {kubernetes.io/os: linux, node.example/pool: cache}
      containers:
        - name: memcached
          image: memcached:1.6
          args: ["-m", "256", "-c", "4096"]
          ports:
            - {name: memcache, containerPort: 11211, protocol: TCP}
          resources:
            requests: {cpu: 500m, memory: 320Mi}
            limits: {cpu: 500m, memory: 320Mi}
          livenessProbe:
            tcpSocket: {port: memcache}
            periodSeconds: 10
          volumeMounts:
            - {name: data, mountPath: /data}
  volumeClaimTemplates:
    - metadata: {name: data}
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests: {storage: 1Gi}
`;
const HEADLESS = `apiVersion: v1
kind: Service
metadata: {name: memcached, labels: {app.kubernetes.io/name: memcached}}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {app.kubernetes.io/name: memcached}
  ports:
    - {name: memcache, port: 11211, targetPort: memcache}
`;
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: hitcost-server}
spec:
  replicas: 2
  selector:
    matchLabels: {app.kubernetes.io/name: hitcost-server}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  template:
    metadata:
      labels: {app.kubernetes.io/name: hitcost-server}
    spec:
      containers:
        - name: server
          image: hitcost:latest
          imagePullPolicy: IfNotPresent
          ports:
            - {name: http, containerPort: 8080}
          env:
            - name: HITCOST_TOKEN
              valueFrom:
                secretKeyRef: {name: hitcost, key: token}
            - name: POD_NAME
              valueFrom:
                fieldRef: {fieldPath: metadata.name}
            - {name: HITCOST_STORE, value: "memcached"}
          readinessProbe:
            httpGet: {path: /healthz, port: http}
            initialDelaySeconds: 2
            periodSeconds: 5
          resources:
            requests: {cpu: "1", memory: 512Mi}
            limits: {cpu: "1", memory: 512Mi}
          securityContext:
            runAsNonRoot: true
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
`;
const JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: hitcost-load}
spec:
  completionMode: Indexed
  completions: 4
  parallelism: 4
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      securityContext: {fsGroup: 1000, runAsUser: 1000}
      containers:
        - name: load
          image: hitcost:latest
          command: [hitcost-load, --lane-from-env]
          env:
            - name: LANE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']
          volumeMounts:
            - {name: traces, mountPath: /traces, readOnly: true}
      volumes:
        - name: traces
          persistentVolumeClaim: {claimName: hitcost-traces, readOnly: true}
`;
const PVC = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: hitcost-traces}
spec:
  accessModes: [ReadOnlyMany]
  volumeMode: Filesystem
  resources:
    requests: {storage: 10Gi}
`;
const SECRET = `apiVersion: v1
kind: Secret
metadata: {name: hitcost}
type: Opaque
data:
  token: c2VjcmV0
  any.key-at_all: aGl0Y29zdA==
stringData:
  note: plain text
`;

// Each case: a YAML stream and, per document, the exact errors it must give.
const CASES = [
  ["valid StatefulSet", STATEFULSET, [[]]],
  ["valid headless Service", HEADLESS, [[]]],
  ["valid Deployment (readinessProbe httpGet, requests=limits, secretKeyRef, fieldRef)", DEPLOYMENT, [[]]],
  ["valid Indexed Job (PVC volume, fsGroup, completion-index fieldRef)", JOB, [[]]],
  ["valid PersistentVolumeClaim", PVC, [[]]],
  ["valid Secret with data", SECRET, [[]]],
  ["valid stream of all six", [STATEFULSET, HEADLESS, DEPLOYMENT, JOB, PVC, SECRET].join("---\n"), [[], [], [], [], [], []]],
  ["misspelled field at the top of spec", DEPLOYMENT.replace("  replicas: 2", "  replicass: 2"),
    [["spec.replicass: unknown field"]]],
  ["misspelled field in a container's port", DEPLOYMENT.replace("containerPort: 8080", "containerport: 8080"),
    [["spec.template.spec.containers[0].ports[0]: must have required property containerPort",
      "spec.template.spec.containers[0].ports[0].containerport: unknown field"]]],
  ["misspelled field deep in a container (env valueFrom fieldRef)", JOB.replace("fieldPath: metadata.annotations", "fieldpath: metadata.annotations"),
    [["spec.template.spec.containers[0].env[0].valueFrom.fieldRef: must have required property fieldPath",
      "spec.template.spec.containers[0].env[0].valueFrom.fieldRef.fieldpath: unknown field"]]],
  ["misspelled field inside a probe", DEPLOYMENT.replace("initialDelaySeconds: 2", "initialDelaySecond: 2"),
    [["spec.template.spec.containers[0].readinessProbe.initialDelaySecond: unknown field"]]],
  ["misspelled field inside a probe's httpGet", DEPLOYMENT.replace("{path: /healthz, port: http}", "{path: /healthz, port: http, sheme: HTTP}"),
    [["spec.template.spec.containers[0].readinessProbe.httpGet.sheme: unknown field"]]],
  ["misspelled field in a volumeClaimTemplate", STATEFULSET.replace("accessModes: [ReadWriteOnce]", "accesModes: [ReadWriteOnce]"),
    [["spec.volumeClaimTemplates[0].spec.accesModes: unknown field"]]],
  ["misspelled field in metadata (not a map) and at the top", SECRET.replace("type: Opaque", "typ: Opaque").replace("metadata: {name: hitcost}", "metadata: {name: hitcost, label: {a: b}}"),
    [["metadata.label: unknown field", "typ: unknown field"]]],
  ["wrong type (replicas: \"three\")", DEPLOYMENT.replace("replicas: 2", "replicas: \"three\""),
    [["spec.replicas: must be integer"]]],
  ["wrong type in a map (a label's value a number) and a bad enum", HEADLESS.replace("labels: {app.kubernetes.io/name: memcached}", "labels: {app.kubernetes.io/name: memcached, tier: 3}").replace("{name: memcache, port: 11211, targetPort: memcache}", "{name: memcache, port: 11211, targetPort: memcache, protocol: TCPP}"),
    [["metadata.labels.tier: must be string",
      "spec.ports[0].protocol: must be equal to one of the allowed values: \"SCTP\", \"TCP\", \"UDP\""]]],
  ["YAML 1.1 as the API server reads it (an env value `yes` is a boolean)", DEPLOYMENT.replace("value: \"memcached\"", "value: yes"),
    [["spec.template.spec.containers[0].env[2].value: must be string"]]],
  ["wrong type, an object where a number goes: named once, its keys not walked", DEPLOYMENT.replace("replicas: 2", "replicas: {count: 2}"),
    [["spec.replicas: must be integer"]]],
  ["an unknown field holding an object is named once", DEPLOYMENT.replace("requests: {cpu: \"1\", memory: 512Mi}", "requets: {cpu: \"1\", memory: 512Mi}"),
    [["spec.template.spec.containers[0].resources.requets: unknown field"]]],
  ["maps accept any key (limits nvidia.com/gpu); a bare-object field (managedFields[].fieldsV1) is free-form",
    DEPLOYMENT.replace("limits: {cpu: \"1\", memory: 512Mi}", "limits: {cpu: \"1\", memory: 512Mi, nvidia.com/gpu: 1}")
      .replace("metadata: {name: hitcost-server}", "metadata:\n  name: hitcost-server\n  managedFields:\n    - manager: kubectl\n      operation: Apply\n      fieldsV1: {f:spec: {f:replicas: {}}}"),
    [[]]],
  ["a property the package's generator dropped (PriorityClass description) is allowed, a misspelling of it is not",
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: load}\nvalue: 1000\ndescription: the load jobs\n---\n"
    + "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: load}\nvalue: 1000\ndescripton: the load jobs\n",
    [[], ["descripton: unknown field"]]],
  ["unknown kind, and a known kind in an unknown apiVersion", `apiVersion: apps/v1\nkind: StatefulSett\nmetadata: {name: x}\n---\napiVersion: hitcost.example/v1\nkind: Deployment\nmetadata: {name: y}\n`,
    [[`apiVersion/kind: no model for "apps/v1" "StatefulSett" in ${MODELS}`],
     [`apiVersion/kind: no model for "hitcost.example/v1" "Deployment" in ${MODELS}`]]],
  ["a document that is not an object", `${PVC}---\n- a list\n---\njust a string\n`,
    [[], ["(document): not an object but a list"], ["(document): not an object but a string"]]],
];

function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

async function selfTest() {
  let ran = 0, behaved = 0;
  const report = (ok, name, detail) => {
    ran++;
    if (ok) behaved++;
    console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok || !detail ? "" : `\n     ${detail}`}`);
  };
  for (const [name, text, want] of CASES) {
    let got;
    try { got = (await checkStream(text, name)).map((e) => e.errors); } catch (err) { got = String(err); }
    report(same(got, want), name, `want ${JSON.stringify(want)}\n     got  ${JSON.stringify(got)}`);
  }
  // Every key of the valid manifests, renamed (key + "X"), must be named as an unknown field at
  // its path, but for the keys of maps, which any key may be.
  {
    const MAP = /(^|\.)(labels|annotations|matchLabels|nodeSelector|limits|requests|data|stringData)$/;
    const SERVICE_MAP = /^spec\.selector$/;
    let renamed = 0, mapKeys = 0;
    const wrong = [];
    function* keyPaths(o, p = []) {
      if (o !== null && typeof o === "object") for (const k of Object.keys(o)) { yield [...p, k]; yield* keyPaths(o[k], [...p, k]); }
    }
    const docs = parseStream([STATEFULSET, HEADLESS, DEPLOYMENT, JOB, PVC, SECRET].join("---\n"), "self-test");
    for (const d of docs) {
      for (const p of keyPaths(d)) {
        const last = p[p.length - 1];
        if (Array.isArray(p.slice(0, -1).reduce((o, k) => o[k], d)) || (p.length === 1 && (last === "apiVersion" || last === "kind"))) continue;
        const c = copy(d);
        const parent = p.slice(0, -1).reduce((o, k) => o[k], c);
        parent[`${last}X`] = parent[last];
        delete parent[last];
        let where = "", node = c;
        for (const k of p.slice(0, -1)) { where = keyPath(where, k, Array.isArray(node)); node = node[k]; }
        const isMap = MAP.test(where) || (d.kind === "Service" && SERVICE_MAP.test(where));
        const errors = (await checkDocument(c)).errors;
        if (isMap) {
          mapKeys++;
          if (errors.length) wrong.push(`${d.kind} ${keyPath(where, `${last}X`, false)}: a map key, yet ${JSON.stringify(errors)}`);
        } else {
          renamed++;
          const want = `${keyPath(where, `${last}X`, false)}: unknown field`;
          if (!errors.includes(want)) wrong.push(`${d.kind} ${want}: not among ${JSON.stringify(errors)}`);
        }
      }
    }
    report(wrong.length === 0 && renamed > 100 && mapKeys > 10,
      `renaming: each of ${renamed} keys of the valid manifests renamed is named as an unknown field; the ${mapKeys} map keys renamed pass`,
      wrong.join("\n     "));
  }
  // The command line: exit codes, stdout, stderr.
  const run = (args, input) => spawnSync(process.execPath, [SELF, ...args], { input, encoding: "utf8" });
  {
    const r = run(["-"], [STATEFULSET, HEADLESS, DEPLOYMENT, JOB, PVC, SECRET].join("---\n"));
    let out = null; try { out = JSON.parse(r.stdout); } catch {}
    const ok = r.status === 0 && r.stderr === "" && Array.isArray(out)
      && same(out.map((e) => `${e.apiVersion} ${e.kind}/${e.name} ${e.errors.length}`),
        ["apps/v1 StatefulSet/memcached 0", "v1 Service/memcached 0", "apps/v1 Deployment/hitcost-server 0",
         "batch/v1 Job/hitcost-load 0", "v1 PersistentVolumeClaim/hitcost-traces 0", "v1 Secret/hitcost 0"]);
    report(ok, "command line: a valid stream on stdin exits 0 with one entry per document", `exit ${r.status} stdout ${r.stdout} stderr ${r.stderr}`);
  }
  {
    const r = run([], `${PVC}---\n${DEPLOYMENT.replace("  replicas: 2", "  replicass: 2")}`);
    let out = null; try { out = JSON.parse(r.stdout); } catch {}
    const ok = r.status === 1 && r.stderr === "schema-check: Deployment/hitcost-server: spec.replicass: unknown field\n"
      && Array.isArray(out) && out.length === 2 && out[0].errors.length === 0 && same(out[1].errors, ["spec.replicass: unknown field"]);
    report(ok, "command line: a stream with a mistake exits 1 and names it on stderr", `exit ${r.status} stdout ${r.stdout} stderr ${r.stderr}`);
  }
  {
    const r = run(["/nonexistent/kustomize-output.yaml"]);
    const r2 = run(["-"], "a: [1\nb: c: d\n");
    const r3 = run(["-"], "# nothing\n");
    const r4 = run(["a.yaml", "b.yaml"]);
    const ok = [r, r2, r3, r4].every((x) => x.status === 2 && x.stdout === "" && x.stderr.startsWith("schema-check: "));
    report(ok, "command line: missing file, YAML that does not parse, no document, two files exit 2",
      [r, r2, r3, r4].map((x) => `exit ${x.status} ${x.stderr.trim()}`).join("; "));
  }
  {
    const { classes, problems } = await audit();
    report(problems.length === 0, `audit: each of ${classes} model validators reads exactly the properties its type declares (bar the dropped description/x-kubernetes-* ones)`, problems.join("\n     "));
  }
  console.log(`self-test: ${behaved} of ${ran} cases behaved`);
  return behaved === ran ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------

const USAGE = "usage: node schema-check.mjs [FILE|-] | --self-test | --audit";

async function main(args) {
  if (args.length === 1 && args[0] === "--self-test") return selfTest();
  if (args.length === 1 && args[0] === "--audit") {
    const { classes, problems } = await audit();
    for (const p of problems) console.error(`schema-check: audit: ${p}`);
    console.log(`audit: ${classes} model classes, ${problems.length} problems`);
    return problems.length ? 1 : 0;
  }
  if (args.length > 1 || (args.length === 1 && args[0] !== "-" && args[0].startsWith("-"))) throw new UsageError(USAGE);
  const file = args[0] ?? "-";
  let text;
  try {
    text = fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new UsageError(`${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  }
  const results = await checkStream(text, file === "-" ? "stdin" : file);
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  let bad = 0;
  for (const e of results) {
    for (const msg of e.errors) console.error(`schema-check: ${e.kind ?? "(no kind)"}/${e.name ?? "(no name)"}: ${msg}`);
    if (e.errors.length) bad++;
  }
  return bad ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (err) => {
      if (err instanceof UsageError) { console.error(`schema-check: ${err.message}`); process.exitCode = 2; return; }
      console.error(err);
      process.exitCode = 3;
    },
  );
}
