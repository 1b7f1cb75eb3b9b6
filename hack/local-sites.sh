# local-sites.sh is sourced by local-cluster.sh: the site clusters of the local fleet. A site is a cluster of
# its own, as Argo CD sees it: its own kube-apiserver (own CA, own serving certificate, own client credentials)
# with its own kube-controller-manager, kube-scheduler and kwok node, so Deployments, Jobs and Rollouts become
# Ready there. Its state lives under the hub's etcd with --etcd-prefix=/sites/NAME: one etcd saves ~100 MB a
# site and keeps the sites apart all the same. Argo CD on the hub reaches it through a declarative cluster Secret
# named cluster-NAME (label argocd.argoproj.io/secret-type=cluster), never as in-cluster.
# SITEOPS_CLUSTER_SITE_COMPONENTS (default none) adds optional parts to every site: "rollouts" applies Argo
# Rollouts' CRDs on the site and runs a rollouts-controller against it (all namespaces, no leader election), so
# a site's manager Rollout pauses, is promoted and becomes Healthy there as on a real site. It costs about
# 190 MiB a site (the controller ~70 MiB, the CRDs' schemas ~120 MiB in the site's kube-apiserver): off unless
# asked for (test/e2e asks). "managers" runs, for the siteops manager pods that base/ deploys on the site,
# bin/manager processes on the host (hack/sitemanagers, SITEOPS_SITE_MANAGERS, running SITEOPS_SITE_MANAGER),
# and routes the site kube-apiserver's egress to the cluster through it (an HTTP CONNECT proxy on the Unix socket
# egress.sock), so the admission webhooks of base/, called through their Service, reach the manager behind it;
# it also serves the site's cluster DNS on 127.0.0.1, UDP port +6, which the site's rollouts-controller asks
# (SITEOPS_CLUSTER_DNS), so an analysis reaches the preview Service by its name (make run asks).
# shellcheck shell=bash

# site_port NAME prints the first port of site NAME: the port base + 20 + 10 × (its index among the sites
# started in this state folder). The index is kept in the site's folder so a restart keeps its ports. A site
# uses ten ports from there: kube-apiserver, kube-controller-manager (+1), kube-scheduler (+2), kwok (+3),
# rollouts-controller metrics (+4) and healthz (+5), the cluster DNS (+6, UDP); +7…+9 are free. The cluster DNS
# gives the site's Services addresses in 127.A.B.0/24, A.B the two bytes of the DNS port.
site_port() {
  local sd=$D/sites/$1 n
  if [ ! -f "$sd/port" ]; then
    mkdir -p "$D/sites"
    (
      flock 9 # two add-site runs at once take different ports
      if [ ! -f "$sd/port" ]; then
        n=$(find "$D/sites" -mindepth 2 -maxdepth 2 -name port | wc -l)
        mkdir -p "$sd" && echo $((PB + 20 + 10 * n)) >"$sd/port"
      fi
    ) 9>"$D/sites/.ports.lock"
  fi
  cat "$sd/port"
}

# site_pki NAME writes the site's CA, its apiserver's serving certificate, a client certificate for its admin
# (system:masters) and one for Argo CD (user argocd-manager, bound to cluster-admin on the site).
site_pki() {
  local sp=$D/sites/$1/pki q=openssl u
  [ -f "$sp/argocd.crt" ] && return
  mkdir -p "$sp"
  $q req -x509 -newkey rsa:2048 -nodes -keyout "$sp/ca.key" -out "$sp/ca.crt" -subj "/CN=siteops-site-$1-ca" -days 3650 2>/dev/null
  $q req -newkey rsa:2048 -nodes -keyout "$sp/apiserver.key" -out "$sp/apiserver.csr" -subj /CN=kube-apiserver 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$sp/apiserver.ext"
  $q x509 -req -in "$sp/apiserver.csr" -CA "$sp/ca.crt" -CAkey "$sp/ca.key" -CAcreateserial -out "$sp/apiserver.crt" -days 3650 -extfile "$sp/apiserver.ext" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$sp/client.ext"
  for u in "admin:/O=system:masters/CN=admin" "argocd:/CN=argocd-manager"; do
    $q req -newkey rsa:2048 -nodes -keyout "$sp/${u%%:*}.key" -out "$sp/${u%%:*}.csr" -subj "${u#*:}" 2>/dev/null
    $q x509 -req -in "$sp/${u%%:*}.csr" -CA "$sp/ca.crt" -CAkey "$sp/ca.key" -CAcreateserial -out "$sp/${u%%:*}.crt" -days 3650 -extfile "$sp/client.ext" 2>/dev/null
  done
  $q genrsa -out "$sp/sa.key" 2048 2>/dev/null
  $q rsa -in "$sp/sa.key" -pubout -out "$sp/sa.pub" 2>/dev/null
}

# site_kubeconfig NAME writes the site's admin kubeconfig.
site_kubeconfig() {
  local sd=$D/sites/$1 port
  port=$(site_port "$1")
  [ -f "$sd/admin.kubeconfig" ] && return
  KUBECONFIG=$sd/admin.kubeconfig kubectl config set-cluster "$1" --server="https://127.0.0.1:$port" \
    --certificate-authority="$sd/pki/ca.crt" --embed-certs >/dev/null
  KUBECONFIG=$sd/admin.kubeconfig kubectl config set-credentials admin --client-certificate="$sd/pki/admin.crt" \
    --client-key="$sd/pki/admin.key" --embed-certs >/dev/null
  KUBECONFIG=$sd/admin.kubeconfig kubectl config set-context "$1" --cluster="$1" --user=admin >/dev/null
  KUBECONFIG=$sd/admin.kubeconfig kubectl config use-context "$1" >/dev/null
}

# start_site_apiserver NAME starts site NAME's kube-apiserver (its etcd is the hub's, under /sites/NAME) and
# waits until it is ready.
start_site_apiserver() {
  local name=$1 sd=$D/sites/$1 port kube kc=$D/sites/$1/admin.kubeconfig
  port=$(site_port "$name") kube=$(bindir kube)
  local sp=$sd/pki egress=()
  if site_has managers; then
    cat >"$sd/egress.yaml" <<EOT
apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: HTTPConnect
    transport: {uds: {udsName: "$sd/egress.sock"}}
EOT
    egress=(--egress-selector-config-file="$sd/egress.yaml")
  fi
  start "site.$name.kube-apiserver" "$kube/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --etcd-prefix="/sites/$name" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" \
    --endpoint-reconciler-type=none --tls-cert-file="$sp/apiserver.crt" --tls-private-key-file="$sp/apiserver.key" \
    --client-ca-file="$sp/ca.crt" --requestheader-client-ca-file="$sp/ca.crt" \
    --requestheader-allowed-names=front-proxy-client --requestheader-username-headers=X-Remote-User \
    --requestheader-group-headers=X-Remote-Group --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --authorization-mode=Node,RBAC --service-account-issuer="https://$name.sites.siteops.local" \
    --service-account-key-file="$sp/sa.pub" --service-account-signing-key-file="$sp/sa.key" \
    --service-cluster-ip-range=10.96.0.0/24 --allow-privileged=true --cert-dir="$sd/apiserver-certs" --profiling=false \
    "${egress[@]}"
  waitfor "site $name kube-apiserver" kubectl --kubeconfig "$kc" get --raw /readyz
}

# restart_site_apiserver NAME [SECONDS] crashes site NAME's kube-apiserver (crash), keeps it down for the given
# seconds (default 10), starts it again and waits until it is ready.
restart_site_apiserver() {
  crash "site.$1.kube-apiserver" "${2:-10}"
  start_site_apiserver "$1"
}

# up_site NAME [--unregistered] starts site NAME (what is not running) and, unless --unregistered, registers it
# in the hub's Argo CD.
up_site() {
  local name=$1 sd=$D/sites/$1 port kube k kc
  case $name in *[!a-z0-9-]* | "") log "site name $name: lower-case letters, digits and '-' only"; return 1 ;; esac
  port=$(site_port "$name")
  kube=$(bindir kube) k=$(bindir kwok) kc=$sd/admin.kubeconfig
  site_pki "$name"
  site_kubeconfig "$name"
  start_site_apiserver "$name"
  local sp=$sd/pki
  start "site.$name.kube-controller-manager" "$kube/kube-controller-manager" --kubeconfig="$kc" \
    --authentication-kubeconfig="$kc" --authorization-kubeconfig="$kc" --bind-address=127.0.0.1 \
    --secure-port=$((port + 1)) --leader-elect=false --service-account-private-key-file="$sp/sa.key" \
    --root-ca-file="$sp/ca.crt" \
    --use-service-account-credentials=false --profiling=false --node-monitor-grace-period="$NODE_GRACE"
  start "site.$name.kube-scheduler" "$kube/kube-scheduler" --kubeconfig="$kc" --authentication-kubeconfig="$kc" \
    --authorization-kubeconfig="$kc" --bind-address=127.0.0.1 --secure-port=$((port + 2)) --leader-elect=false \
    --profiling=false
  start "site.$name.kwok" "$k/kwok" --kubeconfig="$kc" --config="$k/kwok-stages.yaml" --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake --server-address="127.0.0.1:$((port + 3))" \
    --node-port=$((port + 3)) --node-ip=127.0.0.1 --cidr=10.244.0.0/16 --node-lease-duration-seconds=40
  kubectl --kubeconfig "$kc" apply -f - >/dev/null <<EOT
apiVersion: v1
kind: Node
metadata:
  name: $name-node-0
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels: {kubernetes.io/hostname: $name-node-0, kubernetes.io/os: linux, kubernetes.io/arch: amd64, type: kwok}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "2000"}
  capacity: {cpu: "64", memory: 256Gi, pods: "2000"}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: argocd-manager}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: argocd-manager}]
EOT
  waitfor "site $name node" kubectl --kubeconfig "$kc" wait --for=condition=Ready "node/$name-node-0" --timeout=1s
  if site_has rollouts; then up_site_rollouts "$name" "$port"; fi
  if site_has managers; then up_site_managers "$name"; fi
  if has argocd && [ "${2:-}" != --unregistered ]; then register_site "$name" "$port"; fi
  log "site $name up at https://127.0.0.1:$port (kubeconfig $kc)"
}

# site_has COMPONENT reports whether SITEOPS_CLUSTER_SITE_COMPONENTS names COMPONENT.
site_has() { case " ${SITEOPS_CLUSTER_SITE_COMPONENTS:-} " in *" $1 "*) return 0 ;; esac; return 1; }

# up_site_rollouts NAME PORT applies Argo Rollouts' CRDs on site NAME and starts its rollouts-controller,
# metrics on PORT+4 and healthz on PORT+5. With site component managers, the controller resolves names
# through the site's cluster DNS (PORT+6, served by hack/sitemanagers: until it is up, names do not resolve).
up_site_rollouts() {
  local name=$1 port=$2 r kc=$D/sites/$1/admin.kubeconfig dns=()
  r=$(bindir rollouts)
  if site_has managers; then dns=(env "SITEOPS_CLUSTER_DNS=127.0.0.1:$((port + 6))"); fi
  kubectl --kubeconfig "$kc" apply --server-side $(for f in "$r"/crds/*-crd.yaml; do echo -f "$f"; done) >/dev/null
  waitfor "site $name rollout CRDs" kubectl --kubeconfig "$kc" wait --for=condition=Established \
    crd/rollouts.argoproj.io --timeout=1s
  start "site.$name.rollouts-controller" "${dns[@]}" "$r/rollouts-controller" --kubeconfig="$kc" --leader-elect=false \
    --metricsPort=$((port + 4)) --healthzPort=$((port + 5))
  waitfor "site $name rollouts-controller" curl -sf "http://127.0.0.1:$((port + 5))/healthz"
}

# up_site_managers NAME starts hack/sitemanagers for site NAME: a bin/manager process for each siteops
# manager pod there, the site kube-apiserver's egress proxy on $D/sites/NAME/egress.sock and the site's cluster
# DNS on 127.0.0.1, UDP port +6.
up_site_managers() {
  local name=$1 sd=$D/sites/$1 port
  port=$(site_port "$name")
  [ -x "${SITEOPS_SITE_MANAGERS:-}" ] && [ -x "${SITEOPS_SITE_MANAGER:-}" ] || {
    log "site component managers: set SITEOPS_SITE_MANAGERS (go build -o bin/site-managers ./hack/sitemanagers)" \
      "and SITEOPS_SITE_MANAGER (bin/manager)"
    return 1
  }
  mkdir -p "$sd/managers"
  start "site.$name.managers" "$SITEOPS_SITE_MANAGERS" --kubeconfig "$sd/admin.kubeconfig" \
    --manager "$SITEOPS_SITE_MANAGER" --work-dir "$sd/managers" --egress-socket "$sd/egress.sock" \
    --cluster-dns "127.0.0.1:$((port + 6))"
}

# register_site NAME PORT writes the hub's Argo CD cluster Secret for site NAME: its server, its CA and the
# argocd-manager client certificate, nothing shared with the hub.
register_site() {
  local sp=$D/sites/$1/pki b64="base64 -w0"
  kubectl -n argocd apply -f - >/dev/null <<EOT
apiVersion: v1
kind: Secret
metadata:
  name: cluster-$1
  labels: {argocd.argoproj.io/secret-type: cluster, siteops.dev/site: "$1"}
type: Opaque
stringData:
  name: $1
  server: https://127.0.0.1:$2
  config: '{"tlsClientConfig":{"caData":"$($b64 "$sp/ca.crt")","certData":"$($b64 "$sp/argocd.crt")","keyData":"$($b64 "$sp/argocd.key")"}}'
EOT
}

# stop_site NAME stops site NAME's processes; its state stays, start-site NAME brings it back.
stop_site() {
  stop "site.$1.managers"
  stop "site.$1.rollouts-controller" "site.$1.kwok" "site.$1.kube-scheduler" "site.$1.kube-controller-manager"
  stop "site.$1.kube-apiserver"
}
