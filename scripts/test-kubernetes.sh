# shellcheck shell=bash
# scripts/test-kubernetes.sh — step 7 of scripts/test-containers.sh (sourced there: its engine,
# its image $image, its work folder and its pass/fail/expect/timed): deploy/kubernetes checked as
# far as a machine without a cluster allows (docs/journeys.md, "Across machines").
#   a. `kubectl kustomize` renders the base and every overlay (with this run's image tag and an
#      admin token, as a user's own kustomization adds them)
#   b. a strict schema check of every rendered object (tests/kubernetes/schema-check.mjs: the
#      npm registry's Kubernetes models, pinned; unknown fields refused), and its self-test
#   c. every container's command line through its program's own parser (--check-args, in the
#      image), and the sizes that must agree (K = completions = parallelism = HITCOST_CLIENTS; the
#      StatefulSet's replicas = the nodes the server and the load name; threads = CPUs)
#   d. a misspelled field and a renamed flag make (b) and (c) fail
#   e. overlays/quick executed on the engine (tests/kubernetes/run-on-docker.mjs): 3 memcached
#      pods, the server, an Indexed Job of 3 load pods; the merged report's requests = the sum of
#      the pods' own; 0 errors; every memcached node served hits; nothing left afterwards
k8s_dir=$work/kubernetes
mkdir -p "$k8s_dir"
k8s_tools=tests/kubernetes
k8s_ok=1
if ! command -v kubectl >/dev/null; then
  fail "kubernetes: kubectl is installed (it comes with the machine; Debian 12 has no package for it)"; k8s_ok=""
elif [ ! -f "$k8s_tools/node_modules/.package-lock.json" ]; then
  fail "kubernetes: tests/kubernetes/node_modules is installed (scripts/install-deps.sh runs npm ci)"; k8s_ok=""
fi

# render NAME DIR: DIR's manifests with this run's image and a token, as one YAML stream
render() {
  local name=$1 dir=$2 root=$k8s_dir/render-$1
  mkdir -p "$root"
  cat >"$root/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - $(realpath --relative-to="$root" "$dir")
images:
  - name: hitcost
    newName: ${image%:*}
    newTag: ${image##*:}
secretGenerator:
  - name: hitcost-admin
    literals: [token=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')]
    options: {disableNameSuffixHash: true}
EOF
  kubectl kustomize --load-restrictor LoadRestrictionsNone "$root" >"$k8s_dir/$name.yaml" 2>"$k8s_dir/$name.render.log"
}
# as_json NAME: the rendered stream as a JSON array (for jq)
as_json() { (cd "$k8s_tools" && node --input-type=module -e '
  import fs from "node:fs"; import YAML from "yaml";
  process.stdout.write(JSON.stringify(YAML.parseAllDocuments(fs.readFileSync(process.argv[1], "utf8")).map((d) => d.toJS()).filter(Boolean)));
' "$1"); }

if [ -n "$k8s_ok" ]; then
  t0=$SECONDS
  overlays=(base quick small scaled)
  for o in "${overlays[@]}"; do
    d=deploy/kubernetes/overlays/$o
    [ "$o" = base ] && d=deploy/kubernetes/base
    expect "kubernetes: kubectl kustomize renders $o" render "$o" "$d"
    as_json "$k8s_dir/$o.yaml" >"$k8s_dir/$o.json" 2>/dev/null || echo '[]' >"$k8s_dir/$o.json"
    kinds=$(jq -c '[.[].kind] | sort' "$k8s_dir/$o.json")
    expect "kubernetes: $o holds the 7 objects ($kinds)" \
      [ "$kinds" = '["Deployment","Job","PersistentVolumeClaim","Secret","Service","Service","StatefulSet"]' ]
    # b. strict schema
    node "$k8s_tools/schema-check.mjs" "$k8s_dir/$o.yaml" >"$k8s_dir/$o.schema.json" 2>"$k8s_dir/$o.schema.log"
    rc=$?
    ok=no; [ "$rc" = 0 ] && [ "$(jq length "$k8s_dir/$o.schema.json")" = 7 ] && ok=yes
    expect "kubernetes: $o passes the strict schema check (exit $rc, $(jq length "$k8s_dir/$o.schema.json" 2>/dev/null) objects checked)" [ "$ok" = yes ]
    [ "$rc" = 0 ] || cat "$k8s_dir/$o.schema.log" >&2
    # c. each container's line by its own program, in the image
    node "$k8s_tools/run-on-docker.mjs" "$k8s_dir/$o.yaml" --check-args --prefix "hck$$-$o" \
      >"$k8s_dir/$o.args.json" 2>"$k8s_dir/$o.args.log"
    rc=$?
    ok=no; [ "$rc" = 0 ] && [ "$(jq '[.checked[] | select(.ok)] | length' "$k8s_dir/$o.args.json")" = 3 ] && ok=yes
    passed=$(jq -r '[.checked[] | select(.ok) | .container] | join(", ")' "$k8s_dir/$o.args.json" 2>/dev/null)
    expect "kubernetes: $o: every container's command passes its program's --check-args (exit $rc; $passed)" [ "$ok" = yes ]
    [ "$rc" = 0 ] || cat "$k8s_dir/$o.args.log" >&2
    # c. the sizes that must agree
    sizes=$(jq -r '
      def env(n): [.[] | select(.kind == "Deployment" or .kind == "Job") | .spec.template.spec.containers[].env[]? | select(.name == n) | .value][0];
      def job: [.[] | select(.kind == "Job")][0].spec;
      def sts: [.[] | select(.kind == "StatefulSet")][0].spec;
      def server: [.[] | select(.kind == "Deployment")][0].spec.template.spec.containers[0];
      [job.completions, job.parallelism, (env("HITCOST_CLIENTS") | tonumber),
       sts.replicas, (env("HITCOST_STORE") | sub("^memcached:"; "") | split(",") | length),
       (env("HITCOST_MEMCACHED") | split(",") | length),
       (env("HITCOST_SERVER_THREADS") | tonumber), (server.resources.limits.cpu | tonumber),
       ([.[] | (.spec.template.spec.containers[]? | select(.resources.requests != .resources.limits))] | length)] | @tsv' \
      "$k8s_dir/$o.json" 2>/dev/null)
    read -r comp par k reps store_nodes load_nodes threads cpu unequal <<<"${sizes:-x}"
    ok=no; [ -n "$k" ] && [ "$comp" = "$par" ] && [ "$par" = "$k" ] && ok=yes
    expect "kubernetes: $o: K = completions = parallelism = HITCOST_CLIENTS ($comp $par $k)" [ "$ok" = yes ]
    ok=no; [ -n "$reps" ] && [ "$reps" = "$store_nodes" ] && [ "$reps" = "$load_nodes" ] && ok=yes
    expect "kubernetes: $o: memcached replicas = the server's nodes = the load's nodes ($reps $store_nodes $load_nodes)" [ "$ok" = yes ]
    ok=no; [ -n "$threads" ] && [ "$threads" = "$cpu" ] && [ "$unequal" = 0 ] && ok=yes
    expect "kubernetes: $o: server threads = its CPUs ($threads $cpu), requests = limits in every container ($unequal differ)" [ "$ok" = yes ]
  done
  node "$k8s_tools/schema-check.mjs" --self-test >"$k8s_dir/self-test.log" 2>&1
  rc=$?
  expect "kubernetes: the schema check's self-test ($(tail -1 "$k8s_dir/self-test.log"))" [ "$rc" = 0 ]

  # d. A misspelled field fails the schema check, naming it; a renamed flag fails --check-args.
  sed 's/^  replicas: 3$/  replicass: 3/' "$k8s_dir/quick.yaml" >"$k8s_dir/misspelled.yaml"
  node "$k8s_tools/schema-check.mjs" "$k8s_dir/misspelled.yaml" >/dev/null 2>"$k8s_dir/misspelled.log"
  rc=$?
  ok=no; [ "$rc" = 1 ] && grep -q 'replicass' "$k8s_dir/misspelled.log" && ok=yes
  expect "kubernetes: a misspelled field (replicass) fails the schema check (exit $rc: $(head -1 "$k8s_dir/misspelled.log"))" [ "$ok" = yes ]
  sed 's/- --strategies$/- --strategie/' "$k8s_dir/quick.yaml" >"$k8s_dir/renamed.yaml"
  node "$k8s_tools/run-on-docker.mjs" "$k8s_dir/renamed.yaml" --check-args --prefix "hck$$-renamed" >/dev/null 2>"$k8s_dir/renamed.log"
  rc=$?
  ok=no; [ "$rc" = 1 ] && grep -q 'unknown option --strategie' "$k8s_dir/renamed.log" && ok=yes
  expect "kubernetes: a renamed flag (--strategie) fails --check-args (exit $rc: $(grep -o 'unknown option[^(]*' "$k8s_dir/renamed.log" | head -1))" [ "$ok" = yes ]
  sed 's/^      restartPolicy: Never$/      restartPolicy: Never\n      hostNetwork: true/' "$k8s_dir/quick.yaml" >"$k8s_dir/unknown.yaml"
  node "$k8s_tools/run-on-docker.mjs" "$k8s_dir/unknown.yaml" --work "$k8s_dir/unused" >/dev/null 2>"$k8s_dir/unknown.log"
  rc=$?
  ok=no; [ "$rc" = 2 ] && grep -q 'spec.template.spec.hostNetwork: not understood' "$k8s_dir/unknown.log" && ok=yes
  expect "kubernetes: the driver refuses a field it does not act on (hostNetwork; exit $rc)" [ "$ok" = yes ]
  timed "kubernetes: render, schema, args" $((SECONDS - t0))

  # e. overlays/quick on the engine.
  t0=$SECONDS
  node "$k8s_tools/run-on-docker.mjs" "$k8s_dir/quick.yaml" --work "$k8s_dir/run" --prefix "hck$$" --timeout 420 \
    >"$k8s_dir/run.json" 2>"$k8s_dir/run.log"
  rc=$?
  timed "kubernetes: overlays/quick executed" $((SECONDS - t0))
  [ "$rc" = 0 ] || { tail -30 "$k8s_dir/run.log" >&2; for f in "$k8s_dir"/run/logs/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -15 "$f" >&2; }; done; }
  expect "kubernetes: the quick overlay runs to its end (exit $rc)" [ "$rc" = 0 ]
  pods=$(jq -c '[.pods[].kind] | group_by(.) | map({(.[0]): length}) | add' "$k8s_dir/run.json" 2>/dev/null)
  expect "kubernetes: 3 memcached pods, 1 server pod, 3 load pods ($pods)" [ "$pods" = '{"Deployment":1,"Job":3,"StatefulSet":3}' ]
  expect "kubernetes: the 3 load pods exit 0 ($(jq -c '.job.exit_codes' "$k8s_dir/run.json" 2>/dev/null))" \
    [ "$(jq -c '.job.exit_codes' "$k8s_dir/run.json" 2>/dev/null)" = '[0,0,0]' ]
  out=$(jq -r '.volumes["hitcost-results"] + "/" + .job.uid' "$k8s_dir/run.json" 2>/dev/null)
  merged=$out/merged.json
  expect "kubernetes: the merged report is on the volume, from 3 inputs" [ "$(jq '.merged.inputs' "$merged" 2>/dev/null)" = 3 ]
  # The pods' own counts: every run JSON each pod wrote (c1..c3, each step).
  own=$(jq -s 'map(.requests) | add' "$out"/runs/c?-step?.json 2>/dev/null)
  own_runs=$(ls "$out"/runs/c?-step?.json 2>/dev/null | wc -l)
  total=$(jq '[.runs[].requests] | add' "$merged" 2>/dev/null)
  ok=no; [ "$own_runs" = 6 ] && [ -n "$total" ] && [ "$total" = "$own" ] && [ "$total" -gt 0 ] && ok=yes
  expect "kubernetes: merged requests $total = the sum of the pods' own $own ($own_runs runs: 3 pods x 2 steps)" [ "$ok" = yes ]
  expect "kubernetes: 0 errors in the merged report" [ "$(jq '[.runs[].errors.total] | add' "$merged" 2>/dev/null)" = 0 ]
  served=$(awk 'NR > 1 && $3 > 0' "$out/nodes.txt" 2>/dev/null | wc -l)
  expect "kubernetes: each of the 3 memcached pods served hits ($served did)" [ "$served" = 3 ]
  expect "kubernetes: pod 0 printed the merged report" grep -q '^hitcost topology: 3 memcached nodes' "$k8s_dir/run/logs/hitcost-load-0.log"
  sed 's/^/        /' "$out/nodes.txt" >&2 2>/dev/null
  ok=no; [ -z "$(docker ps -aq --filter "label=hitcost.k8s-run=hck$$")" ] && [ -z "$(docker network ls -q --filter "label=hitcost.k8s-run=hck$$")" ] && ok=yes
  expect "kubernetes: no container or network of the run is left" [ "$ok" = yes ]
fi
