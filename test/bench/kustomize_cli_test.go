/*
Copyright 2026 The siteops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/siteops/siteops/test/testenv"
)

// kustomizeCLI is the anchor of P2: the kustomize CLI run once per site, as a user or a CI job would.
type kustomizeCLI struct {
	argv []string // command before the folder, e.g. [/…/kustomize build]
	// Name says which CLI this is, e.g. "kustomize v5.8.1 (pinned)".
	Name string
	// Pinned is false when kubectl's embedded kustomize stands in for the pinned CLI.
	Pinned bool
}

// findKustomize returns the pinned kustomize CLI (hack/build-bins.sh kustomize), or kubectl kustomize when it
// is not built yet; the test fails when neither exists.
func findKustomize(tb testing.TB) kustomizeCLI {
	tb.Helper()
	if bin, err := testenv.PinnedBinary("kustomize", "kustomize"); err == nil {
		version, _ := exec.Command(bin, "version").Output()
		return kustomizeCLI{argv: []string{bin, "build"}, Pinned: true,
			Name: fmt.Sprintf("kustomize %s (pinned)", strings.TrimSpace(string(version)))}
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		return kustomizeCLI{argv: []string{kubectl, "kustomize"}, Name: "kubectl kustomize (pinned CLI not built)"}
	}
	tb.Fatal("neither the pinned kustomize (hack/build-bins.sh kustomize) nor kubectl is installed")
	return kustomizeCLI{}
}

// build runs the CLI on dir and returns its stdout and the CPU time (user + system) the process used.
func (k kustomizeCLI) build(dir string) ([]byte, time.Duration, error) {
	cmd := exec.Command(k.argv[0], append(k.argv[1:], dir)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("%s %s: %w: %s", strings.Join(k.argv, " "), dir, err, stderr.String())
	}
	return stdout.Bytes(), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// buildSites builds root/overlays/<site> for every site with at most parallel processes at a time (GNU
// parallel / xargs -P style) and returns the measurement and each site's output.
func (k kustomizeCLI) buildSites(tb testing.TB, root string, sites []string, parallel int) (measurement,
	map[string][]byte) {
	tb.Helper()
	out := make(map[string][]byte, len(sites))
	errs := make([]error, len(sites))
	var cpu time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	start := time.Now()
	for i, site := range sites {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			b, used, err := k.build(filepath.Join(root, "overlays", site))
			mu.Lock()
			defer mu.Unlock()
			out[site], errs[i] = b, err
			cpu += used
		}()
	}
	wg.Wait()
	m := measurement{wall: time.Since(start), cpu: cpu}
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
	return m, out
}

// objects parses a YAML stream into its objects, sorted by apiVersion, kind, namespace and name, so two
// renders compare equal when they hold the same objects whatever their order and formatting.
func objects(tb testing.TB, stream []byte) []map[string]any {
	tb.Helper()
	nodes, err := kio.FromBytes(stream)
	if err != nil {
		tb.Fatalf("parsing YAML stream: %v", err)
	}
	type keyed struct {
		id  string
		obj map[string]any
	}
	list := make([]keyed, 0, len(nodes))
	for _, n := range nodes {
		m, err := n.Map()
		if err != nil {
			tb.Fatalf("reading object: %v", err)
		}
		list = append(list, keyed{fmt.Sprintf("%s/%s/%s/%s", n.GetApiVersion(), n.GetKind(), n.GetNamespace(), n.GetName()),
			m})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	objs := make([]map[string]any, len(list))
	for i, k := range list {
		objs[i] = k.obj
	}
	return objs
}

// sameObjects fails tb unless both streams hold the same objects, and at least one.
func sameObjects(tb testing.TB, what string, got, want []byte) {
	tb.Helper()
	g, w := objects(tb, got), objects(tb, want)
	if len(w) == 0 {
		tb.Fatalf("%s: the anchor rendered no objects", what)
	}
	if !reflect.DeepEqual(g, w) {
		tb.Fatalf("%s: siteops and kustomize render different objects\nsiteops:\n%s\nkustomize:\n%s", what, got, want)
	}
}
