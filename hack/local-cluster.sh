#!/usr/bin/env bash
# local-cluster.sh runs a real Kubernetes control plane without containers, every listener on 127.0.0.1:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok (simulated node: pods go Ready, Job pods
# Succeed), the Argo Rollouts controller, and Argo CD's application-controller, ApplicationSet controller and
# repo-server (with Debian's redis-server) plus a git daemon serving $SITEOPS_CLUSTER_DIR/git: the hub.
# With SITEOPS_CLUSTER_SITES it also starts one site cluster per name: a kube-apiserver of its own (own CA, own
# credentials, sharing the hub's etcd under --etcd-prefix=/sites/NAME) with its own kube-controller-manager,
# kube-scheduler and kwok (and, with SITEOPS_CLUSTER_SITE_COMPONENTS=rollouts, Argo Rollouts), registered in
# the hub's Argo CD as the cluster NAME (a declarative cluster Secret).
# Binaries come from hack/build-bins.sh.
#
#   hack/local-cluster.sh up      start what is not running (idempotent); builds missing binaries first
#   hack/local-cluster.sh down    stop what up started, by PID file (add --wipe to delete the state); with no
#                                 SITEOPS_CLUSTER_DIR and nothing running in the default folder, it stops the
#                                 fleet `make run` started, or lists the local clusters that run
#   hack/local-cluster.sh env     print the exports that point kubectl (and the argo rollouts plugin) at it
#   hack/local-cluster.sh status  show each process
#   hack/local-cluster.sh restart-apiserver [SECONDS]  SIGKILL kube-apiserver, keep it down SECONDS (10), start it
#   hack/local-cluster.sh stop NAME       stop one hub component (SIGTERM), as an outage of it; start NAME starts
#                                 it again. NAME: argocd-application-controller
#   hack/local-cluster.sh stop-site NAME   stop site NAME's processes (as an unreachable cluster); start-site NAME
#   hack/local-cluster.sh add-site NAME    start one more site cluster and register it in Argo CD
#   hack/local-cluster.sh add-cluster NAME start a cluster as a site is started, not registered in Argo CD
#   hack/local-cluster.sh restart-site-apiserver NAME [SECONDS]  restart-apiserver for site NAME
#
# SITEOPS_CLUSTER_DIR (default $SITEOPS_CACHE/cluster) holds state, logs and the admin kubeconfig;
# SITEOPS_CLUSTER_PORT_BASE (default 26400) shifts every port so two clusters can run side by side;
# SITEOPS_CLUSTER_COMPONENTS (default "kwok rollouts argocd") picks the optional parts;
# SITEOPS_CLUSTER_KCM_CONTROLLERS (default '*') the kube-controller-manager controllers (benchmarks run the
# CronJob controller in a kube-controller-manager of their own); SITEOPS_CLUSTER_AUDIT=1 writes an audit log of
# every write request to $SITEOPS_CLUSTER_DIR/audit.log (benchmarks count requests and time them from it);
# SITEOPS_CLUSTER_SITES (default none) names the site clusters, e.g. "site-a site-b" or site-a,site-b; site
# i's ten ports start at port base + 20 + 10i, its state is in $SITEOPS_CLUSTER_DIR/sites/NAME (admin.kubeconfig);
# SITEOPS_CLUSTER_SITE_COMPONENTS (default none) the sites' optional parts: "rollouts" runs Argo Rollouts' CRDs
# and controller on each site, "managers" backs the sites' siteops manager pods with bin/manager processes
# (hack/local-sites.sh); SITEOPS_CLUSTER_SERVICE_RANGE (default 10.96.0.0/24, 254 Services) the hub's Service IP
# range (make bench-flux creates 1,000 Services); SITEOPS_ARGOCD_APP_RESYNC (default 15) the seconds between
# Argo CD's refreshes of every Application (Argo CD's own default is 180); SITEOPS_ARGOCD_PROCESSORS (default
# "10 20", Argo CD's) its application controller's operation and status processors. `up` keeps these settings in
# $SITEOPS_CLUSTER_DIR/fleet.env for the other commands.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.sh"
. "$here/local-sites.sh"
D=${SITEOPS_CLUSTER_DIR:-$SITEOPS_CACHE/cluster}
log() { printf '[local-cluster %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# runs DIR reports whether a process of the state folder DIR runs.
runs() {
  local f
  for f in "$1"/*.pid; do [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && return 0; done
  return 1
}

# down_dir points `down` without SITEOPS_CLUSTER_DIR at a cluster that runs: the default folder's, else the one
# `make run` started (its folder holds the file make-run); with none or several, it lists the state folders
# under $SITEOPS_CACHE whose processes run, and how to stop each, and exits.
down_dir() {
  local d run=() other=()
  if [ -n "${SITEOPS_CLUSTER_DIR:-}" ] || runs "$D"; then return 0; fi
  for d in "$SITEOPS_CACHE"/*/; do
    d=${d%/}
    [ -f "$d/admin.kubeconfig" ] && runs "$d" || continue
    if [ -f "$d/make-run" ]; then run+=("$d"); else other+=("$d"); fi
  done
  if [ ${#run[@]} = 1 ]; then D=${run[0]}; log "stopping the fleet make run started ($D)"; return 0; fi
  if [ ${#run[@]} = 0 ] && [ ${#other[@]} = 0 ]; then log "no local cluster runs (state folders in $SITEOPS_CACHE)"; exit 0; fi
  log "nothing runs in $D; these local clusters run, stop one with:"
  for d in "${run[@]}" "${other[@]}"; do echo "  SITEOPS_CLUSTER_DIR=$d $0 down"; done
  exit 1
}
[ "${1:-}" != down ] || down_dir
# fleet.env keeps the settings `up` started the fleet of this state folder with; the other commands (add-site,
# env, start-site…) read back those the environment does not set, so a site added later gets the same parts.
if [ "${1:-}" != up ] && [ -f "$D/fleet.env" ]; then
  while IFS='=' read -r k v; do [ -n "${!k+x}" ] || export "$k=$v"; done <"$D/fleet.env"
fi
PB=${SITEOPS_CLUSTER_PORT_BASE:-26400}
COMPONENTS=${SITEOPS_CLUSTER_COMPONENTS:-kwok rollouts argocd}
ETCD_PORT=$((PB + 1)) ETCD_PEER=$((PB + 2)) API_PORT=$((PB + 3)) KCM_PORT=$((PB + 4)) SCHED_PORT=$((PB + 5))
KWOK_PORT=$((PB + 6)) RO_METRICS=$((PB + 7)) RO_HEALTHZ=$((PB + 8)) REDIS_PORT=$((PB + 9)) REPO_PORT=$((PB + 10))
REPO_METRICS=$((PB + 11)) CTRL_METRICS=$((PB + 12)) GIT_PORT=$((PB + 13)) APPSET_METRICS=$((PB + 14))
APPSET_PROBE=$((PB + 15)) APPSET_WEBHOOK=$((PB + 16))
SITES=${SITEOPS_CLUSTER_SITES:-}
SITES=${SITES//,/ }
SERVICE_RANGE=${SITEOPS_CLUSTER_SERVICE_RANGE:-10.96.0.0/24}
# NODE_GRACE is how long a node may miss its heartbeats before the node lifecycle controller marks it and every
# pod on it NotReady: long, because kwok, unlike a kubelet, never reports such pods Ready again once the node is
# back, and a test that restarts an API server under load can keep it away longer than the usual 50 s.
NODE_GRACE=10m
export KUBECONFIG=$D/admin.kubeconfig
P=$D/pki

has() { case " $COMPONENTS " in *" $1 "*) return 0 ;; esac; return 1; }
bindir() { "$here/build-bins.sh" --path "$1"; }

# start NAME CMD... runs CMD detached with its PID in $D/NAME.pid and output in $D/logs/NAME.log.
start() {
  local n=$1; shift
  if [ -f "$D/$n.pid" ] && kill -0 "$(cat "$D/$n.pid")" 2>/dev/null; then log "$n already running"; return; fi
  nohup setsid "$@" >"$D/logs/$n.log" 2>&1 </dev/null &
  echo $! >"$D/$n.pid"
  log "started $n (pid $!)"
}

# waitfor WHAT CMD... polls CMD for up to 60 s.
waitfor() {
  local what=$1 i; shift
  for i in $(seq 1 120); do
    if "$@" >/dev/null 2>&1; then log "$what ready after $((i / 2))s"; return 0; fi
    sleep 0.5
  done
  log "$what NOT ready after 60s; see $D/logs"; return 1
}

pki() {
  [ -f "$P/ca.crt" ] && return
  mkdir -p "$P"
  local q="openssl"
  $q req -x509 -newkey rsa:2048 -nodes -keyout "$P/ca.key" -out "$P/ca.crt" -subj /CN=siteops-local-ca -days 3650 2>/dev/null
  $q req -newkey rsa:2048 -nodes -keyout "$P/apiserver.key" -out "$P/apiserver.csr" -subj /CN=kube-apiserver 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' >"$P/apiserver.ext"
  $q x509 -req -in "$P/apiserver.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -out "$P/apiserver.crt" -days 3650 -extfile "$P/apiserver.ext" 2>/dev/null
  $q req -newkey rsa:2048 -nodes -keyout "$P/admin.key" -out "$P/admin.csr" -subj "/O=system:masters/CN=admin" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$P/client.ext"
  $q x509 -req -in "$P/admin.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" -CAcreateserial -out "$P/admin.crt" -days 3650 -extfile "$P/client.ext" 2>/dev/null
  $q genrsa -out "$P/sa.key" 2048 2>/dev/null
  $q rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
  kubectl config set-cluster local --server="https://127.0.0.1:$API_PORT" --certificate-authority="$P/ca.crt" --embed-certs >/dev/null
  kubectl config set-credentials admin --client-certificate="$P/admin.crt" --client-key="$P/admin.key" --embed-certs >/dev/null
  kubectl config set-context local --cluster=local --user=admin >/dev/null
  kubectl config use-context local >/dev/null
}

# start_apiserver starts kube-apiserver against the local etcd and waits until it is ready.
start_apiserver() {
  local kube audit=()
  kube=$(bindir kube)
  if [ "${SITEOPS_CLUSTER_AUDIT:-0}" = 1 ]; then
    cat >"$D/audit-policy.yaml" <<EOT
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    verbs: [create, update, patch, delete, deletecollection]
    resources: [{group: "", resources: [events, pods, pods/status, services]}, {group: events.k8s.io}, {group: batch},
      {group: batch.tutorial.kubebuilder.io}, {group: coordination.k8s.io, resources: [leases]}, {group: argoproj.io}]
  - level: None
EOT
    audit=(--audit-policy-file="$D/audit-policy.yaml" --audit-log-path="$D/audit.log" --audit-log-format=json
      --audit-log-mode=batch --audit-log-batch-max-wait=1s)
  fi
  # --endpoint-reconciler-type=none: no real node IP to publish; --requestheader-*: delegated auth of kcm/scheduler.
  start kube-apiserver "$kube/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" --endpoint-reconciler-type=none \
    --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
    --requestheader-client-ca-file="$P/ca.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- --authorization-mode=Node,RBAC \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local --service-account-key-file="$P/sa.pub" \
    --service-account-signing-key-file="$P/sa.key" --service-cluster-ip-range="$SERVICE_RANGE" --allow-privileged=true \
    --enable-aggregator-routing=true --cert-dir="$D/apiserver-certs" --profiling=false "${audit[@]}"
  waitfor kube-apiserver kubectl get --raw /readyz
}

up_control_plane() {
  local etcd kube
  etcd=$(bindir etcd)/etcd kube=$(bindir kube)
  start etcd "$etcd" --name local --data-dir "$D/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
    --initial-cluster "local=http://127.0.0.1:$ETCD_PEER" --listen-metrics-urls "" --unsafe-no-fsync --log-level warn
  waitfor etcd curl -sf "http://127.0.0.1:$ETCD_PORT/health"
  start_apiserver
  start kube-controller-manager "$kube/kube-controller-manager" --kubeconfig="$KUBECONFIG" \
    --authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" \
    --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --leader-elect=false \
    --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" \
    --use-service-account-credentials=false --controllers="${SITEOPS_CLUSTER_KCM_CONTROLLERS:-*}" \
    --node-monitor-grace-period="$NODE_GRACE"
  # The scheduler is required: kwok does not bind pods to nodes.
  start kube-scheduler "$kube/kube-scheduler" --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" \
    --authorization-kubeconfig="$KUBECONFIG" --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" --leader-elect=false
  waitfor kube-controller-manager curl -skf "https://127.0.0.1:$KCM_PORT/healthz"
  waitfor kube-scheduler curl -skf "https://127.0.0.1:$SCHED_PORT/healthz"
}

up_kwok() {
  local k
  k=$(bindir kwok)
  # --node-lease-duration-seconds must be explicit, or the node flaps NotReady; --server-address, or it binds 0.0.0.0.
  start kwok "$k/kwok" --kubeconfig="$KUBECONFIG" --config="$k/kwok-stages.yaml" --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake --server-address="127.0.0.1:$KWOK_PORT" \
    --node-port="$KWOK_PORT" --node-ip=127.0.0.1 --cidr=10.244.0.0/16 --node-lease-duration-seconds=40
  kubectl apply -f - >/dev/null <<EOT
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels: {kubernetes.io/hostname: kwok-node-0, kubernetes.io/os: linux, kubernetes.io/arch: amd64, type: kwok}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "2000"}
  capacity: {cpu: "64", memory: 256Gi, pods: "2000"}
EOT
  waitfor "node kwok-node-0" kubectl wait --for=condition=Ready node/kwok-node-0 --timeout=1s
}

up_rollouts() {
  local r
  r=$(bindir rollouts)
  kubectl create namespace argo-rollouts --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl apply --server-side $(for f in "$r"/crds/*-crd.yaml; do echo -f "$f"; done) >/dev/null
  waitfor "rollout CRDs" kubectl wait --for=condition=Established crd/rollouts.argoproj.io --timeout=1s
  start rollouts-controller "$r/rollouts-controller" --kubeconfig="$KUBECONFIG" --namespace=argo-rollouts \
    --metricsPort="$RO_METRICS" --healthzPort="$RO_HEALTHZ" --leader-elect=false
  waitfor rollouts-controller curl -sf "http://127.0.0.1:$RO_HEALTHZ/healthz"
}

up_argocd() {
  local a
  a=$(bindir argocd)
  command -v redis-server >/dev/null || { log "installing Debian's redis-server"; apt-get install -y -qq redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server >/dev/null; }; }
  mkdir -p "$D/git"
  start git-daemon git daemon --listen=127.0.0.1 --port="$GIT_PORT" --base-path="$D/git" --export-all \
    --enable=receive-pack --reuseaddr "$D/git"
  start redis redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no
  waitfor redis redis-cli -p "$REDIS_PORT" ping
  kubectl create namespace argocd --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl apply --server-side $(for f in "$a"/crds/*-crd.yaml; do echo -f "$f"; done) >/dev/null
  # All three: the AppProject below fails "no matches for kind" while its CRD is not yet established.
  waitfor "argocd CRDs" kubectl wait --for=condition=Established crd/applications.argoproj.io \
    crd/appprojects.argoproj.io crd/applicationsets.argoproj.io --timeout=1s
  kubectl -n argocd apply -f - >/dev/null <<EOT
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, labels: {app.kubernetes.io/part-of: argocd}}
data: {timeout.reconciliation: "10s"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-rbac-cm, labels: {app.kubernetes.io/part-of: argocd}}
---
apiVersion: v1
kind: Secret
metadata: {name: argocd-secret, labels: {app.kubernetes.io/part-of: argocd}}
stringData: {server.secretkey: "$(openssl rand -hex 16)"}
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: default}
spec:
  sourceRepos: ['*']
  destinations: [{server: '*', namespace: '*'}]
  clusterResourceWhitelist: [{group: '*', kind: '*'}]
EOT
  # ARGOCD_FAKE_IN_CLUSTER: the in-cluster destination uses $KUBECONFIG. --persist-resource-health (Argo CD 3
  # keeps resource health out of the Application otherwise): siteops reports a site's Degraded resources and
  # its manager Rollout from it.
  ARGOCD_GPG_ENABLED=false ARGOCD_FAKE_IN_CLUSTER=true start argocd-repo-server "$a/argocd-repo-server" \
    --address 127.0.0.1 --port "$REPO_PORT" --metrics-address 127.0.0.1 --metrics-port "$REPO_METRICS" \
    --disable-tls --redis "127.0.0.1:$REDIS_PORT" --revision-cache-expiration 10s
  # ARGOCD_CLUSTER_CACHE_RESYNC_DURATION: Argo CD notices a site cluster that went away only when it
  # relists the cluster (12 h by default; watch errors alone keep the last state, and the cluster Secret's
  # argocd.argoproj.io/refresh annotation, which `argocd cluster invalidate-cache` sets, asks for one now):
  # 10 min on the local fleet. A relist reads every resource type of the cluster and holds the cluster's cache
  # meanwhile (renders for it wait), so a short one on many sites starves Argo CD. It reports the failure
  # after --repo-error-grace-period-seconds (180 s by default): 30 s here.
  start_app_controller "$a"
  # The ApplicationSet controller generates one Application per site folder of the rendered branch.
  start argocd-applicationset-controller "$a/argocd-applicationset-controller" --kubeconfig "$KUBECONFIG" \
    --namespace argocd --argocd-repo-server "127.0.0.1:$REPO_PORT" --repo-server-plaintext \
    --metrics-addr "127.0.0.1:$APPSET_METRICS" --probe-addr "127.0.0.1:$APPSET_PROBE" \
    --webhook-addr "127.0.0.1:$APPSET_WEBHOOK" --enable-scm-providers=false --logformat text
  # It registers no health check: its metrics endpoint answering means it runs.
  waitfor argocd-applicationset-controller curl -sf -o /dev/null "http://127.0.0.1:$APPSET_METRICS/metrics"
}

# start_app_controller DIR starts Argo CD's application-controller of the argocd binaries in DIR and waits until
# it is healthy.
start_app_controller() {
  local procs
  read -r -a procs <<<"${SITEOPS_ARGOCD_PROCESSORS:-10 20}"
  ARGOCD_CLUSTER_CACHE_RESYNC_DURATION=${ARGOCD_CLUSTER_CACHE_RESYNC_DURATION:-10m} \
    ARGOCD_GPG_ENABLED=false ARGOCD_FAKE_IN_CLUSTER=true \
    start argocd-application-controller \
    "$1/argocd-application-controller" --kubeconfig "$KUBECONFIG" --namespace argocd \
    --repo-server "127.0.0.1:$REPO_PORT" --repo-server-plaintext --redis "127.0.0.1:$REDIS_PORT" \
    --metrics-port "$CTRL_METRICS" --app-resync "${SITEOPS_ARGOCD_APP_RESYNC:-15}" --app-resync-jitter 0 \
    --persist-resource-health --repo-error-grace-period-seconds 30 \
    --operation-processors "${procs[0]}" --status-processors "${procs[1]}"
  waitfor argocd-application-controller curl -sf "http://127.0.0.1:$CTRL_METRICS/healthz"
}

# inotify_room raises the per-user limit on inotify instances when it is below 512 and this user may: every
# kube-apiserver (5 each) and siteops manager watches its certificate files, and a fleet with several sites (and
# the tests' own clusters) comes near the usual 128, past which a process that starts fails with "too many open
# files". Otherwise it says how to raise it. (The controller managers sign no CSRs, which kwok nodes do not
# send: without the signing files they watch 1 each, not 5.)
inotify_room() {
  local f=/proc/sys/fs/inotify/max_user_instances n
  n=$(cat "$f" 2>/dev/null || echo 512)
  [ "$n" -ge 512 ] && return 0
  if [ -w "$f" ] && echo 512 >"$f" 2>/dev/null; then
    log "raised fs.inotify.max_user_instances from $n to 512 (a fleet's processes each watch their certificates)"
  else
    log "fs.inotify.max_user_instances is $n; a fleet with several sites may need 512:" \
      "sysctl -w fs.inotify.max_user_instances=512"
  fi
}

cmd_up() {
  local want="etcd kube" c
  inotify_room
  for c in $COMPONENTS; do want="$want $c"; done
  site_has rollouts && want="$want rollouts"
  # shellcheck disable=SC2086
  "$here/build-bins.sh" $want
  mkdir -p "$D/logs"
  local k
  for k in SITEOPS_CLUSTER_PORT_BASE SITEOPS_CLUSTER_COMPONENTS SITEOPS_CLUSTER_SITES SITEOPS_CLUSTER_SITE_COMPONENTS \
    SITEOPS_SITE_MANAGER SITEOPS_SITE_MANAGERS SITEOPS_CLUSTER_SERVICE_RANGE SITEOPS_ARGOCD_APP_RESYNC \
    SITEOPS_ARGOCD_PROCESSORS; do
    [ -z "${!k+x}" ] || echo "$k=${!k}"
  done >"$D/fleet.env"
  pki
  up_control_plane
  # A site needs only the hub's etcd and, for its Argo CD cluster Secret, namespace argocd: the sites start in
  # the background beside the hub's other components, their ports given out in order first.
  local site pids=() p failed=0
  if [ -n "$SITES" ] && has argocd; then
    kubectl create namespace argocd --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  fi
  for site in $SITES; do site_port "$site" >/dev/null; done
  for site in $SITES; do
    up_site "$site" &
    pids+=($!)
  done
  has kwok && up_kwok
  has rollouts && up_rollouts
  has argocd && up_argocd
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  [ "$failed" = 0 ] || { log "a site did not come up; see $D/logs"; return 1; }
  log "cluster up: $(cmd_env | tr '\n' ' ')"
}

# stop NAME... stops the processes started as the NAMEs, all at once (SIGTERM, SIGKILL after 10 s), and
# removes their PID files.
stop() {
  local n f i left
  local -a pids=() names=()
  for n in "$@"; do
    f=$D/$n.pid
    [ -f "$f" ] || continue
    if kill -0 "$(cat "$f")" 2>/dev/null; then pids+=("$(cat "$f")"); names+=("$n"); kill "$(cat "$f")"; fi
  done
  for i in $(seq 1 40); do
    left=0
    for f in "${pids[@]}"; do kill -0 "$f" 2>/dev/null && left=1; done
    [ "$left" = 1 ] || break
    sleep 0.25
  done
  for i in "${!pids[@]}"; do
    kill -0 "${pids[$i]}" 2>/dev/null && kill -9 "${pids[$i]}"
    log "stopped ${names[$i]} (${pids[$i]})"
  done
  for n in "$@"; do rm -f "$D/$n.pid"; done
}

# pid_names lists the names of the PID files that match the glob, e.g. 'site.*.kube-apiserver'.
pid_names() {
  local f
  for f in "$D"/$1.pid; do [ -f "$f" ] && basename "$f" .pid; done
  return 0
}

cmd_down() {
  # In three steps, each stopping its processes at once: the controllers of the sites and of the hub, then
  # every kube-apiserver, then etcd.
  # shellcheck disable=SC2046 # one word per name
  stop $(pid_names 'site.*' | grep -v '\.kube-apiserver$') argocd-applicationset-controller \
    argocd-application-controller argocd-repo-server redis git-daemon rollouts-controller kwok kube-scheduler \
    kube-controller-manager
  # shellcheck disable=SC2046
  stop $(pid_names 'site.*.kube-apiserver') kube-apiserver
  stop etcd
  if [ "${1:-}" = --wipe ]; then rm -rf "$D" && log "wiped $D"; fi
}

# crash NAME SECONDS kills the process started as NAME with SIGKILL (no graceful shutdown, as a crash) and keeps
# it down for SECONDS; the caller starts it again.
crash() {
  local f=$D/$1.pid p i
  [ -f "$f" ] && p=$(cat "$f") && kill -0 "$p" 2>/dev/null || { log "$1 is not running"; return 1; }
  kill -9 "$p"
  for i in $(seq 1 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
  rm -f "$f"
  log "killed $1 ($p); down for ${2}s"
  sleep "$2"
}

# cmd_restart_apiserver crashes kube-apiserver (crash), keeps it down for the given seconds (default 10), starts
# it again and waits until it is ready; everything else keeps running.
cmd_restart_apiserver() {
  crash kube-apiserver "${1:-10}"
  start_apiserver
}

# hub_components are the hub's processes `stop` and `start` act on one at a time.
hub_components="argocd-application-controller"

# cmd_stop NAME stops one process of the hub (hub_components) gracefully, as an outage of that component;
# everything else keeps running.
cmd_stop() {
  case " $hub_components " in *" $1 "*) ;; *) log "stop: $1 is not one of: $hub_components"; return 2 ;; esac
  stop "$1"
}

# cmd_start NAME starts again one process of the hub that cmd_stop stopped, and waits until it is healthy.
cmd_start() {
  case $1 in
    argocd-application-controller) start_app_controller "$(bindir argocd)" ;;
    *) log "start: $1 is not one of: $hub_components"; return 2 ;;
  esac
}

cmd_env() {
  echo "export KUBECONFIG=$KUBECONFIG"
  [ -z "$SITES" ] || echo "export SITEOPS_CLUSTER_SITES=$(echo $SITES | tr ' ' ,) SITEOPS_CLUSTER_SITES_DIR=$D/sites"
  echo "export PATH=$(bindir rollouts):\$PATH"
  echo "export SITEOPS_GIT_DAEMON=git://127.0.0.1:$GIT_PORT SITEOPS_GIT_ROOT=$D/git"
}

# remember_site NAME adds site NAME to the fleet's sites in fleet.env, so `env` names it.
remember_site() {
  local f=$D/fleet.env sites
  [ -f "$f" ] || return 0
  (
    flock 9 # two add-site runs at once both get written
    sites=$(sed -n 's/^SITEOPS_CLUSTER_SITES=//p' "$f")
    case ",${sites//[ ]/,}," in *",$1,"*) exit 0 ;; esac
    sed -i '/^SITEOPS_CLUSTER_SITES=/d' "$f"
    echo "SITEOPS_CLUSTER_SITES=${sites:+$sites,}$1" >>"$f"
  ) 9>"$D/.fleet.env.lock"
}

cmd_status() {
  local f
  for f in "$D"/*.pid; do
    [ -f "$f" ] || continue
    if kill -0 "$(cat "$f")" 2>/dev/null; then echo "$(basename "$f" .pid) running (pid $(cat "$f"))"
    else echo "$(basename "$f" .pid) NOT running"; fi
  done
}

case ${1:-} in
  up) cmd_up ;;
  down) shift; cmd_down "${1:-}" ;;
  env) cmd_env ;;
  status) cmd_status ;;
  restart-apiserver) shift; cmd_restart_apiserver "${1:-10}" ;;
  stop) shift; cmd_stop "${1:?component name}" ;;
  start) shift; cmd_start "${1:?component name}" ;;
  stop-site) shift; stop_site "${1:?site name}" ;;
  start-site) shift; mkdir -p "$D/logs"; up_site "${1:?site name}" ;;
  add-site) shift; mkdir -p "$D/logs"; up_site "${1:?site name}"; remember_site "$1" ;;
  add-cluster) shift; mkdir -p "$D/logs"; up_site "${1:?cluster name}" --unregistered ;;
  restart-site-apiserver) shift; restart_site_apiserver "${1:?site name}" "${2:-10}" ;;
  *) echo "usage: $0 up|down [--wipe]|env|status|restart-apiserver [SECONDS]|stop NAME|start NAME|stop-site NAME|start-site NAME|add-site NAME|add-cluster NAME|restart-site-apiserver NAME [SECONDS]" >&2; exit 2 ;;
esac
