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

package dashboard

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// webDeployment is the base's Deployment with replicas replicas.
func webDeployment(replicas int) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: %d\n"+
		"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n"+
		"    spec:\n      containers:\n      - name: app\n        image: nginx:1.27\n", replicas)
}

// replicasPatch is an overlay's patch of the web Deployment's replicas.
func replicasPatch(replicas int) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: %d\n",
		replicas)
}

// renderedFleet is a source repository with sites paris and berlin on a Git server on 127.0.0.1, and the
// rendered branch siteops' Syncer published from it, change by change:
//
//	r1  source a: paris and berlin rendered, 1 replica each.
//	r2  source b: paris scaled to 3 replicas.
//	r3  source c: berlin scaled to 2 replicas (not paris).
//	r4  source c: paris reverted to r1's output, with Siteops-Revert-Of r2.
type renderedFleet struct {
	url            string
	a, b, c        string // source commits
	r1, r2, r3, r4 string // rendered commits
	syncer         *gitops.Syncer
	opts           gitops.SyncOptions
	last           gitops.SyncResult
}

func newRenderedFleet(t *testing.T) *renderedFleet {
	t.Helper()
	srv := gitserver.Start(t, gitserver.Options{})
	f := &renderedFleet{syncer: gitops.NewSyncer(gitops.SyncerOptions{})}
	f.url = srv.NewRepo(t, "config", map[string]string{
		"base/kustomization.yaml":            "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":               webDeployment(1),
		"overlays/paris/kustomization.yaml":  "resources:\n- ../../base\n",
		"overlays/berlin/kustomization.yaml": "resources:\n- ../../base\n",
	})
	f.opts = gitops.SyncOptions{Source: gitops.SourceSpec{URL: f.url, Ref: gitserver.DefaultBranch},
		WorkDir: t.TempDir()}
	f.a, f.r1 = f.sync(t, nil)
	wt := srv.Clone(t, "config")
	wt.Write("overlays/paris/kustomization.yaml", "resources:\n- ../../base\npatches:\n- path: replicas.yaml\n")
	wt.Write("overlays/paris/replicas.yaml", replicasPatch(3))
	wt.Commit("paris: 3 replicas")
	wt.Push()
	f.b, f.r2 = f.sync(t, nil)
	wt.Write("overlays/berlin/kustomization.yaml", "resources:\n- ../../base\npatches:\n- path: replicas.yaml\n")
	wt.Write("overlays/berlin/replicas.yaml", replicasPatch(2))
	wt.Commit("berlin: 2 replicas")
	wt.Push()
	f.c, f.r3 = f.sync(t, nil)
	_, f.r4 = f.sync(t, func(gitops.GateInput) gitops.GateDecision {
		return gitops.GateDecision{Restore: []gitops.Restore{{Site: "paris", Commit: f.r1, Revision: f.a}},
			Trailers: []gitops.Trailer{{Key: gitops.TrailerRevertOf, Value: f.r2}}}
	})
	if f.r4 == f.r3 {
		t.Fatal("the revert of paris made no rendered commit")
	}
	return f
}

// sync publishes the source's head through gate (nil: every site) and returns the source and rendered
// commits.
func (f *renderedFleet) sync(t *testing.T, gate gitops.PublishGate) (source, rendered string) {
	t.Helper()
	o := f.opts
	o.Gate = gate
	if f.last.RenderedRevision != "" {
		o.Previous, o.PreviousHead = map[string]gitops.SiteState{}, f.last.RenderedRevision
		for _, s := range f.last.Sites {
			o.Previous[s.Name] = s
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := f.syncer.Sync(ctx, o)
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	f.last = res
	return res.SourceRevision, res.RenderedRevision
}
