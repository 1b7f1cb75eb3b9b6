# siteops Makefile, in kubebuilder's idiom. Every tool is pinned and installed under bin/ with its version in
# the name; the Kubernetes binaries for tests are built from Go modules and cached outside the work tree
# (hack/build-bins.sh, hack/envtest.sh).

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# REVISION is the source commit the image's org.opencontainers.image.revision label names.
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
IMAGE_REPO ?= ghcr.io/siteops/manager
IMG ?= $(IMAGE_REPO):$(VERSION)
# ARCH of the image `make image` builds (linux only).
ARCH ?= $(shell go env GOARCH)
SITE ?= dev

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
export GOTOOLCHAIN ?= local
# CGO off everywhere (tests included): the binaries are static, and the tests' build cache then serves the
# manager binaries the end-to-end tests and benchmarks build, instead of a second compile of every package.
export CGO_ENABLED ?= 0

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_TOOLS_VERSION ?= v0.23.0
SETUP_ENVTEST_VERSION ?= v0.25.1
GOLANGCI_LINT_VERSION ?= v2.15.0
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
SETUP_ENVTEST ?= $(LOCALBIN)/setup-envtest-$(SETUP_ENVTEST_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
# hack/build-bins.sh lints the Argo CD wrapper (hack/argocd) with it when it is installed.
export SITEOPS_GOLANGCI_LINT ?= $(GOLANGCI_LINT)
GOVULNCHECK_VERSION ?= v1.9.0
GOVULNCHECK ?= $(LOCALBIN)/govulncheck-$(GOVULNCHECK_VERSION)
# The Go vulnerability database as of VULNDB_VERSION, built from the golang.org/x/vulndb module's OSV files
# (the module proxy is reachable where vuln.go.dev may not be); bump the pseudo-version to refresh it.
VULNDB_VERSION ?= v0.0.0-20261105234957-e22db6528018
VULNDB ?= $(LOCALBIN)/vulndb-$(VULNDB_VERSION)
# ENVTEST_K8S_VERSION is hack/versions.sh's KUBE_VERSION without the v: it follows k8s.io/api in go.mod
# (v0.37.2 -> 1.37.2) unless KUBE_VERSION is set, so envtest and the local cluster always agree.
ENVTEST_K8S_VERSION ?= $(shell . hack/versions.sh && echo "$$KUBE_VERSION" | sed "s/^v//")

# GO_FILES: the tracked and untracked-but-not-ignored Go files, testdata/ excluded (make fmt, make verify).
GO_FILES = $(shell git ls-files --cached --others --exclude-standard -- '*.go' ':(exclude,glob)**/testdata/**')

# BENCH_DIR is the benchmarks' module: its plotting (gonum.org/v1/plot) is no dependency of what siteops ships.
# vet, lint, verify-mod and test-unit check it beside siteops' own module.
BENCH_DIR := test/bench

LDFLAGS := -s -w -X github.com/siteops/siteops/internal/version.Version=$(VERSION)
GO_TEST_FLAGS ?=
# TESTSUMMARY prints go test -json as text and, last, what failed: the failed tests' last log entries. They go to
# TEST_FAILURES too, which make test prints at its very end, after the output of the targets it runs beside.
TEST_FAILURES := $(CURDIR)/bin/test-failures.txt
TESTSUMMARY := $(CURDIR)/bin/testsummary -failures $(TEST_FAILURES)
# E2E_PARALLEL is how many end-to-end tests that call t.Parallel run at once (go test's default is GOMAXPROCS).
# They mostly wait (for a scheduled minute, for Argo CD, for a soak), so it is more than the cores, and enough
# for every such test: one waiting for a part of the fleet another test holds keeps its slot meanwhile.
E2E_PARALLEL ?= 16

.PHONY: all
all: build

##@ General

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate CRDs, RBAC and webhook configuration into base/.
	$(CONTROLLER_GEN) crd:maxDescLen=512 paths="./apis/..." output:crd:artifacts:config=base/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths="./controllers/..." paths="./cmd/..." output:rbac:artifacts:config=base/rbac/generated
	$(CONTROLLER_GEN) webhook paths="./apis/..." output:webhook:artifacts:config=base/webhook

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate DeepCopy methods (zz_generated.deepcopy.go).
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./apis/..."

.PHONY: openapi-schemas
openapi-schemas: envtest ## Write envtest's kube-apiserver's built-in OpenAPI schemas for gitops/validate (a test checks them).
	assets="$$(hack/envtest.sh $(SETUP_ENVTEST) $(ENVTEST_K8S_VERSION))" && KUBEBUILDER_ASSETS="$$assets" \
	  go run ./hack/openapi-schemas gitops/validate/schemas/kubernetes-$$(echo $(ENVTEST_K8S_VERSION) | cut -d. -f1,2).json

.PHONY: fmt
fmt: ## gofmt every Go file (hack/argocd included, which go fmt ./... skips); lists the files it changed.
	@gofmt -l -w $(GO_FILES)

.PHONY: vet
vet: ## go vet of both modules, the end-to-end tests (build tags e2e, hubfaults, apiupgrade) included.
	go vet -tags e2e,hubfaults,apiupgrade ./...
	cd $(BENCH_DIR) && go vet ./...

.PHONY: vulncheck
vulncheck: $(GOVULNCHECK) $(VULNDB) ## govulncheck ./... against the pinned Go vulnerability database.
	$(GOVULNCHECK) -db file://$(VULNDB) ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) ## golangci-lint (.golangci.yml); fails on any finding.
	@# hack/argocd/main.go builds inside Argo CD's module, where hack/build-bins.sh vets and lints it; siteops'
	@# module cannot load it, so here only the formatters see it. Both steps run; either failing fails the target.
	@rc=0; \
	echo "[lint] golangci-lint run ./..."; $(GOLANGCI_LINT) run ./... || rc=1; \
	echo "[lint] golangci-lint run ./... in $(BENCH_DIR)"; \
	  (cd $(BENCH_DIR) && $(GOLANGCI_LINT) run -c $(CURDIR)/.golangci.yml ./...) || rc=1; \
	echo "[lint] golangci-lint fmt --diff hack/argocd/main.go"; $(GOLANGCI_LINT) fmt --diff hack/argocd/main.go || rc=1; \
	exit $$rc

.PHONY: verify
verify: ## Fail on drift: generated files, go mod tidy, gofmt, licence headers. Runs every check, then fails.
	@$(MAKE) --no-print-directory -k verify-generated verify-mod verify-gofmt verify-boilerplate

.PHONY: verify-generated
verify-generated: ## Regenerate deepcopy, CRDs, RBAC, webhooks; fail when the committed files differ.
	@echo "[verify] generated files (make generate manifests)"
	@hack/same-times.sh apis base -- $(MAKE) --no-print-directory generate manifests
	@git diff --exit-code -- apis base || { echo "generated files drift from the types: run 'make generate manifests' and commit" >&2; exit 1; }
	@test -z "$$(git ls-files --others --exclude-standard -- apis base)" || { echo "untracked generated files:" >&2; git ls-files --others --exclude-standard -- apis base >&2; exit 1; }

.PHONY: verify-mod
verify-mod: ## Fail when go mod tidy would change go.mod or go.sum, of either module (changes nothing itself).
	@echo "[verify] go mod tidy"
	@go mod tidy -diff || { echo "go.mod/go.sum are not tidy (diff above): run 'go mod tidy' and commit" >&2; exit 1; }
	@cd $(BENCH_DIR) && go mod tidy -diff || \
	  { echo "$(BENCH_DIR)/go.mod/go.sum are not tidy (diff above): run 'go mod tidy' there and commit" >&2; exit 1; }

.PHONY: verify-gofmt
verify-gofmt: ## Fail when gofmt would change a Go file.
	@echo "[verify] gofmt"
	@files=$$(gofmt -l $(GO_FILES)); test -z "$$files" || { echo "not gofmt-ed (run 'make fmt'):" >&2; echo "$$files" >&2; exit 1; }

.PHONY: verify-boilerplate
verify-boilerplate: ## Fail when a Go file lacks the licence header of hack/boilerplate.go.txt.
	@echo "[verify] licence headers (hack/boilerplate.sh --check)"
	@hack/boilerplate.sh --check

##@ Test

.PHONY: test
test: ## Unit + envtest (real kube-apiserver) + end-to-end on the local cluster. What CI runs.
	@$(MAKE) --no-print-directory unit-bins bin/testsummary
	@rm -f $(TEST_FAILURES)
	@# While the unit tests run, the end-to-end fleet's binaries build (niced) and the fleet starts, fresh. The
	@# end-to-end tests run after the unit tests, on both cores: their waits for Argo CD, managers and apiservers
	@# have deadlines that a machine also compiling and running every package's tests made them miss. They run
	@# even when a unit test failed, so one run shows every failure; they stop the fleet.
	@rc=0; $(MAKE) --no-print-directory -j2 -k test-unit e2e-fleet || rc=1; \
	  $(MAKE) --no-print-directory test-e2e SITEOPS_E2E_FLEET=started || rc=1; \
	  if [ $$rc != 0 ]; then $(MAKE) --no-print-directory e2e-fleet-down; cat $(TEST_FAILURES) 2>/dev/null; fi; \
	  exit $$rc

# bin/testsummary, which the test targets print go test -json through; built once, before they run side by side.
bin/testsummary: $(wildcard hack/testsummary/*.go)
	go build -o $@ ./hack/testsummary

.PHONY: test-deps
test-deps: ## Install the Debian packages the tests run (git, gnupg, chromium) when missing.
	hack/test-deps.sh
	hack/chromium.sh

.PHONY: test-dashboard
test-dashboard: envtest ## The dashboard's tests in headless Chromium (installed when missing); SITEOPS_DASHBOARD_SCREENSHOTS=1 rewrites docs/dashboard-*.png.
	hack/chromium.sh
	assets="$$(hack/envtest.sh $(SETUP_ENVTEST) $(ENVTEST_K8S_VERSION))"; export KUBEBUILDER_ASSETS="$$assets"; \
	  go test $(GO_TEST_FLAGS) -count=1 -timeout 10m ./internal/dashboard/...

.PHONY: unit-bins
unit-bins: envtest test-deps ## etcd + kube-apiserver in setup-envtest's store, the pinned kustomize and Helm CLIs, and test-deps.
	hack/envtest.sh $(SETUP_ENVTEST) $(ENVTEST_K8S_VERSION) >/dev/null
	hack/build-bins.sh kustomize helm

.PHONY: bins
bins: unit-bins e2e-bins ## Every binary make test runs (.ci/run builds them in the background during the gates).

.PHONY: e2e-bins
e2e-bins: ## The rest of the end-to-end cluster's binaries: kwok, Argo Rollouts, Argo CD (nice 10).
	nice -n 10 hack/build-bins.sh kwok rollouts argocd

.PHONY: test-unit
test-unit: envtest bin/testsummary ## Unit and envtest tests (real etcd + kube-apiserver); ./... leaves out test/e2e (tag e2e).
	assets="$$(hack/envtest.sh $(SETUP_ENVTEST) $(ENVTEST_K8S_VERSION))"; export KUBEBUILDER_ASSETS="$$assets"; \
	  go test -json $(GO_TEST_FLAGS) -timeout 30m ./... | $(TESTSUMMARY) && \
	  cd $(BENCH_DIR) && go test -json $(GO_TEST_FLAGS) -timeout 30m ./... | $(TESTSUMMARY)

.PHONY: test-e2e
test-e2e: bin/testsummary ## End-to-end tests on the local fleet (hack/local-cluster.sh), its binaries built on first use.
	hack/build-bins.sh etcd kube kwok rollouts argocd
	SITEOPS_E2E_FLEET=$(SITEOPS_E2E_FLEET) \
	  go test -json -tags e2e $(GO_TEST_FLAGS) -count=1 -timeout 40m -parallel $(E2E_PARALLEL) -v ./test/e2e/... | \
	  $(TESTSUMMARY) -v

.PHONY: test-make-run
test-make-run: ## make run's own tests (test/makerun), not in make test: the tour as make run prints it, and Ctrl-C.
	hack/build-bins.sh etcd kube kwok rollouts argocd
	go test -tags e2e $(GO_TEST_FLAGS) -count=1 -timeout 40m -v ./test/makerun/...

.PHONY: e2e-fleet
e2e-fleet: e2e-bins ## Start the end-to-end fleet, fresh, and leave it running (test-e2e SITEOPS_E2E_FLEET=started).
	hack/build-bins.sh etcd kube
	SITEOPS_E2E_FLEET=up go test -tags e2e -count=1 -run '^$$' -v ./test/e2e/...

.PHONY: e2e-fleet-down
e2e-fleet-down: ## Stop the fleet make e2e-fleet started.
	SITEOPS_E2E_FLEET=down go test -tags e2e -count=1 -run '^$$' ./test/e2e/...

.PHONY: test-load
test-load: ## Load, not in make test: 4,000 CronJobs */1 for 10 minutes with one manager on the local cluster (SITEOPS_LOAD_CRONJOBS, SITEOPS_LOAD_MINUTES).
	hack/build-bins.sh etcd kube kwok
	SITEOPS_E2E_SITES= SITEOPS_CLUSTER_COMPONENTS=kwok SITEOPS_LOAD_CRONJOBS=$${SITEOPS_LOAD_CRONJOBS:-4000} SITEOPS_LOAD_MINUTES=$${SITEOPS_LOAD_MINUTES:-10} \
	  go test -tags e2e -count=1 -timeout 45m -v -run '^TestCronJobLoad$$' ./test/e2e/...

.PHONY: test-shard-load
test-shard-load: ## Sharding on the local cluster, not in make test: 1,000 CronJobs over two shards vs one unsharded manager (RSS, CPU), then one shard's manager killed.
	hack/build-bins.sh etcd kube kwok
	SITEOPS_E2E_SITES= SITEOPS_CLUSTER_COMPONENTS=kwok SITEOPS_SHARD_LOAD_CRONJOBS=$${SITEOPS_SHARD_LOAD_CRONJOBS:-1000} SITEOPS_LOAD_MINUTES=$${SITEOPS_LOAD_MINUTES:-3} \
	  go test -tags e2e -count=1 -timeout 40m -v -run '^TestShardedCronJobLoad$$' ./test/e2e/...

.PHONY: test-hub-faults
test-hub-faults: ## The hub's own faults mid-rollout, not in make test: managers SIGKILLed, Argo CD's application controller down, the hub's kube-apiserver restarted.
	hack/build-bins.sh etcd kube kwok rollouts argocd
	SITEOPS_E2E_SITES= go test -tags e2e,hubfaults -count=1 -timeout 45m -v -run '^TestHubFaults' ./test/e2e/...

.PHONY: test-api-upgrade
test-api-upgrade: ## An upgrade that changes the API, not in make test: the next manager build adds a SiteSync field and condition; standby, promote and undo keep it.
	hack/build-bins.sh etcd kube kwok rollouts argocd
	SITEOPS_E2E_SITES= go test -tags e2e,apiupgrade -count=1 -timeout 30m -v -run '^TestAPIUpgrade' ./test/e2e/...

.PHONY: bench
bench: ## Benchmarks side by side with the anchors; writes test/bench/RESULTS.md.
	hack/build-bins.sh etcd kube kwok rollouts kustomize helm argocd
	hack/chromium.sh
	@$(MAKE) --no-print-directory envtest
	assets="$$(hack/envtest.sh $(SETUP_ENVTEST) $(ENVTEST_K8S_VERSION))" && cd $(BENCH_DIR) && \
	  KUBEBUILDER_ASSETS="$$assets" SITEOPS_BENCH_WRITE=1 \
	  go test -count=1 -run '^$$' -bench . -skip '^(BenchmarkGrowthCurve|BenchmarkMTTPBesideFlux|BenchmarkHelmCharts)$$' -benchtime 1x -timeout 60m ./...

.PHONY: bench-helm
bench-helm: ## Helm charts: 100 sites × 3 charts beside kustomize --enable-helm, one site's values, RSS; writes its block of RESULTS.md.
	hack/build-bins.sh kustomize helm
	cd $(BENCH_DIR) && SITEOPS_BENCH_WRITE=1 \
	  go test -count=1 -run '^$$' -bench '^BenchmarkHelmCharts$$' -benchtime 1x -timeout 30m .

.PHONY: bench-scale
bench-scale: ## How rendering and syncing grow at 100, 1,000 and 10,000 sites; writes its block of RESULTS.md and growth.png.
	hack/build-bins.sh kustomize
	cd $(BENCH_DIR) && SITEOPS_BENCH_WRITE=1 SITEOPS_BENCH_GROWTH_SITES=$${SITEOPS_BENCH_GROWTH_SITES:-100,1000,10000} \
	  go test -count=1 -run '^$$' -bench '^BenchmarkGrowthCurve$$' -benchtime 1x -timeout 90m .

.PHONY: bench-flux
bench-flux: ## Mean time to production beside Flux at 100, 500 and 1,000 apps; writes its block of RESULTS.md.
	hack/build-bins.sh etcd kube kwok argocd
	nice -n 10 hack/build-bins.sh flux
	cd $(BENCH_DIR) && SITEOPS_BENCH_WRITE=1 SITEOPS_BENCH_FLUX_APPS=$${SITEOPS_BENCH_FLUX_APPS:-100,500,1000} \
	  go test -count=1 -run '^$$' -bench '^BenchmarkMTTPBesideFlux$$' -benchtime 1x -timeout 180m .

##@ Build

.PHONY: build
build: ## Build bin/manager and bin/siteops with version ldflags.
	@echo "[build] bin/manager (go build; minutes when Go's build cache is cold)"
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/manager ./cmd/manager
	@echo "[build] bin/siteops"
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/siteops ./cmd/siteops

.PHONY: ldflags
ldflags: ## Print the -ldflags of `make build` (the end-to-end tests link their binaries with them).
	@echo '$(LDFLAGS)'

.PHONY: run
run: build ## Run the manager against the current kubeconfig or, with none reachable, a local fleet to push to (README).
	hack/run.sh

.PHONY: render
render: ## Print what Argo CD would sync for SITE (default dev).
	go run ./cmd/siteops render --site $(SITE)

.PHONY: install
install: manifests ## Install the CRDs into the current cluster.
	kubectl apply --server-side -k base/crd

.PHONY: uninstall
uninstall: ## Remove the CRDs from the current cluster.
	kubectl delete --ignore-not-found -k base/crd

.PHONY: deploy
deploy: ## Apply overlays/$(SITE) to the current cluster.
	go run ./cmd/siteops render --site $(SITE) | kubectl apply --server-side -f -

.PHONY: build-installer
build-installer: manifests ## Write dist/install.yaml (CRDs, RBAC, webhook, manager) with IMG set.
	mkdir -p dist
	go run ./cmd/siteops render --dir base/install --image ghcr.io/siteops/manager=$(IMG) > dist/install.yaml

.PHONY: image
image: ## Build the manager's OCI image without Docker into dist/manager-image (OCI layout) and print its digest.
	mkdir -p dist
	GOOS=linux GOARCH=$(ARCH) CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o dist/manager-linux-$(ARCH) ./cmd/manager
	go run ./hack/image --binary dist/manager-linux-$(ARCH) --arch $(ARCH) --version $(VERSION) --revision $(REVISION) \
	  --tag $(IMG) --out dist/manager-image --tarball dist/manager-image.tar --digest-file dist/manager-image.digest

.PHONY: build-installer-digest
build-installer-digest: image ## build-installer with the manager image pinned to the digest `make image` just built.
	@$(MAKE) --no-print-directory build-installer IMG=$(IMAGE_REPO)@$$(cat dist/manager-image.digest)
	@grep -m1 'image: $(IMAGE_REPO)@sha256:' dist/install.yaml

.PHONY: docker-build
docker-build: ## Build the manager image (needs a Docker engine).
	docker build --build-arg VERSION=$(VERSION) -t $(IMG) .

##@ Tools

.PHONY: envtest
envtest: $(SETUP_ENVTEST)

$(LOCALBIN):
	mkdir -p $(LOCALBIN)

$(CONTROLLER_GEN): | $(LOCALBIN)
	$(call go-install-tool,$@,sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

$(SETUP_ENVTEST): | $(LOCALBIN)
	$(call go-install-tool,$@,sigs.k8s.io/controller-runtime/tools/setup-envtest,$(SETUP_ENVTEST_VERSION))

$(GOLANGCI_LINT): | $(LOCALBIN)
	$(call go-install-tool,$@,github.com/golangci/golangci-lint/v2/cmd/golangci-lint,$(GOLANGCI_LINT_VERSION))

$(GOVULNCHECK): | $(LOCALBIN)
	$(call go-install-tool,$@,golang.org/x/vuln/cmd/govulncheck,$(GOVULNCHECK_VERSION))

$(VULNDB): | $(LOCALBIN)
	@set -e; echo "building the vulnerability database from golang.org/x/vulndb@$(VULNDB_VERSION)"; \
	dir=$$(GOFLAGS=-mod=mod go mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
	tmp=$$(mktemp -d); GOBIN=$$tmp go install golang.org/x/vulndb/cmd/indexdb@$(VULNDB_VERSION); \
	$$tmp/indexdb -vulns "$$dir/data/osv" -out $@.tmp; rm -rf $$tmp; mv $@.tmp $@

# go-install-tool installs $(2)@$(3) as $(1).
define go-install-tool
@set -e; echo "installing $(2)@$(3)"; tmp=$$(mktemp -d); \
GOBIN=$$tmp go install $(2)@$(3); mv $$tmp/$$(basename $(2)) $(1); rm -rf $$tmp
endef
