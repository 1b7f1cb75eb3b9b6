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

package gitops

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/siteops/siteops/test/gitserver"
)

// deployment is a Deployment manifest for tests.
func deployment(name, image string, replicas int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
spec:
  replicas: %d
  selector:
    matchLabels: {app: %s}
  template:
    metadata:
      labels: {app: %s}
    spec:
      containers:
      - name: app
        image: %s
`, name, replicas, name, name, image)
}

// siteValues is a Decapod-style strategic-merge patch of the web Deployment.
func siteValues(replicas int, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: %d
  template:
    spec:
      containers:
      - name: app
        image: %s
`, replicas, image)
}

// baseRepo is a source repository with a shared base, two sites over it (dev in today's syntax, prod in the
// deprecated Decapod one), and a site over another base.
func baseRepo() map[string]string {
	return map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n- service.yaml\n",
		"base/deployment.yaml":    deployment("web", "nginx:1.25", 1),
		"base/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
`,
		"overlays/dev/kustomization.yaml":  "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n",
		"overlays/dev/site-values.yaml":    siteValues(1, "nginx:1.25"),
		"overlays/prod/kustomization.yaml": "bases:\n- ../../base\npatchesStrategicMerge:\n- site-values.yaml\n",
		"overlays/prod/site-values.yaml":   siteValues(3, "nginx:1.26"),
		"other-base/kustomization.yaml":    "resources:\n- config.yaml\n",
		"other-base/config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: edge-config
data:
  mode: edge
`,
		"overlays/edge/kustomization.yaml": "resources:\n- ../../other-base\nnamePrefix: edge-\n",
		"README.md":                        "# config\n",
	}
}

// syncEnv is a Git server with one source repository and the options to sync it.
type syncEnv struct {
	srv     *gitserver.Server
	repo    string
	opts    SyncOptions
	syncer  *Syncer
	renders *atomic.Int64 // the kustomize builds syncer ran
	charts  *atomic.Int64 // the Helm chart renders syncer ran (not answered from its memo)
}

func newSyncEnv(t *testing.T, files map[string]string) *syncEnv {
	t.Helper()
	srv := gitserver.Start(t, gitserver.Options{})
	return syncEnvOf(t, srv, srv.NewRepo(t, "config", files))
}

// syncEnvOf is the syncEnv of repository "config" of srv, at url.
func syncEnvOf(t *testing.T, srv *gitserver.Server, url string) *syncEnv {
	renders, charts := &atomic.Int64{}, &atomic.Int64{}
	return &syncEnv{srv: srv, repo: "config", opts: SyncOptions{
		Source:  SourceSpec{URL: url, Ref: gitserver.DefaultBranch},
		WorkDir: t.TempDir(),
	}, syncer: NewSyncer(SyncerOptions{OnRender: func(string) { renders.Add(1) },
		OnChartRender: func() { charts.Add(1) }}), renders: renders, charts: charts}
}

// sync runs Sync with the previous result's sites as Previous (as the controller does from status).
func (e *syncEnv) sync(t *testing.T, previous *SyncResult) SyncResult {
	t.Helper()
	o := e.opts
	if previous != nil {
		o.Previous, o.PreviousHead = map[string]SiteState{}, previous.RenderedRevision
		for _, s := range previous.Sites {
			o.Previous[s.Name] = s
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := e.syncer.Sync(ctx, o)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return res
}

// site returns the state of name in res.
func site(t *testing.T, res SyncResult, name string) SiteState {
	t.Helper()
	for _, s := range res.Sites {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("site %q not in result %+v", name, res.Sites)
	return SiteState{}
}

// rendered reads a site's manifest on the rendered branch.
func (e *syncEnv) rendered(t *testing.T, site string) string {
	t.Helper()
	s, ok := e.srv.ReadFile(t, e.repo, DefaultTargetBranch, site+"/"+ManifestFile)
	if !ok {
		t.Fatalf("%s/%s missing on the rendered branch", site, ManifestFile)
	}
	return s
}
