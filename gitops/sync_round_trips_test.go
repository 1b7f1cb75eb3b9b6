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
	"testing"

	. "github.com/onsi/gomega"
)

// Requests of the Git smart HTTP protocol to repository config (git http-backend's paths).
const (
	listConfig  = "GET /config.git/info/refs?service=git-upload-pack"
	fetchConfig = "POST /config.git/git-upload-pack"
	pushConfig  = "POST /config.git/git-receive-pack"
)

// syncRequests runs an incremental Sync after previous and returns it with the requests the Git server saw.
func (e *syncEnv) syncRequests(t *testing.T, previous *SyncResult) (SyncResult, []string) {
	t.Helper()
	before := len(e.srv.RequestLog())
	res := e.sync(t, previous)
	return res, e.srv.RequestLog()[before:]
}

// TestIncrementalSyncRoundTrips: once a Sync has run, a Sync after a one-site change makes the three requests
// the protocol needs when the target branch is in the source repository: one listing of the refs (source
// and target head together), one fetch of the new source commit, and the push, which names the head it
// replaces instead of reading the push advertisement again. Nothing changed: the listing alone. The target
// branch moved by someone else: one more fetch, for it.
func TestIncrementalSyncRoundTrips(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)

	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	pushed := wt.Commit("dev: two")
	wt.Push()
	res, reqs := e.syncRequests(t, &first)
	g.Expect(res.SourceRevision).To(Equal(pushed))
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("replicas: 2"))
	g.Expect(reqs).To(Equal([]string{listConfig, fetchConfig, pushConfig}))

	res, reqs = e.syncRequests(t, &res)
	g.Expect(res.Pushed).To(BeFalse())
	g.Expect(reqs).To(Equal([]string{listConfig}), "nothing changed: one listing, no fetch, no push")

	writer := e.srv.Clone(t, e.repo)
	writer.Checkout(DefaultTargetBranch)
	writer.Write("extra/notes.yaml", "kind: ConfigMap\n")
	foreign := writer.Commit("manual change on the rendered branch")
	writer.Push()
	wt.Write("overlays/dev/site-values.yaml", siteValues(3, "nginx:1.27"))
	wt.Commit("dev: three")
	wt.Push()
	res, reqs = e.syncRequests(t, &res)
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(res.ForeignCommits).To(ConsistOf(foreign))
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("replicas: 3"))
	g.Expect(e.srv.Log(t, e.repo, DefaultTargetBranch)[1].SHA).To(Equal(foreign), "pushed on top of the foreign commit")
	g.Expect(reqs).To(Equal([]string{listConfig, fetchConfig, fetchConfig, pushConfig}),
		"one listing, a fetch each for the source and the moved target, the push")
}

// TestIncrementalSyncRoundTripsToAnotherRepository: with the rendered branch in another repository, that
// repository is listed too; nothing else is added.
func TestIncrementalSyncRoundTripsToAnotherRepository(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	e.opts.Target.URL = e.srv.NewRepo(t, "deploy", map[string]string{"README.md": "# rendered\n"})
	first := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)

	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two")
	wt.Push()
	res, reqs := e.syncRequests(t, &first)
	g.Expect(res.Pushed).To(BeTrue())
	dev, ok := e.srv.ReadFile(t, "deploy", DefaultTargetBranch, "dev/"+ManifestFile)
	g.Expect(ok).To(BeTrue(), "dev rendered to the other repository")
	g.Expect(dev).To(ContainSubstring("replicas: 2"))
	g.Expect(reqs).To(Equal([]string{listConfig, fetchConfig,
		"GET /deploy.git/info/refs?service=git-upload-pack", "POST /deploy.git/git-receive-pack"}))
}

// TestIncrementalSyncOverHTTPSReusesConnections: with a CA bundle, the requests of an incremental Sync go
// over the connection an earlier Sync opened (no new TLS handshake per request).
func TestIncrementalSyncOverHTTPSReusesConnections(t *testing.T) {
	g := NewWithT(t)
	e, ca := tlsEnv(t)
	e.opts.Source.Auth = &Auth{Username: "bot", Password: "tls-pass-123", CABundle: ca.CertPEM}
	first := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two")
	wt.Push()

	conns := e.srv.Connections()
	res, reqs := e.syncRequests(t, &first)
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(reqs).To(HaveLen(3))
	g.Expect(e.srv.Connections()-conns).To(BeNumerically("<=", 1), "three requests, at most one new connection")
}
