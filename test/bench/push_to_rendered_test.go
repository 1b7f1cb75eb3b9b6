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
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/sitesync"
	"github.com/siteops/siteops/controllers/sitesync/receiver"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
	"github.com/siteops/siteops/test/testenv"
)

// hookToken is the receiver Secret's token the benchmark signs its webhooks with.
const hookToken = "bench-hook-token"

// pollAnchors are the default poll intervals of the tools users would otherwise run (quoted, not run).
const (
	fluxPoll   = time.Minute
	argoCDPoll = 3 * time.Minute
)

// pushFixture is row P4's setup: a real kube-apiserver (envtest), a manager running the SiteSync controller,
// the push receiver on 127.0.0.1, a generated repository on a real Git server, a SiteSync rendering it to the
// "rendered" branch, and a clone that plays the user who pushes.
type pushFixture struct {
	srv      *gitserver.Server
	wt       *gitserver.Worktree
	k8s      client.Client
	key      types.NamespacedName
	hookURL  string
	rev      int
	delivery int
}

func newPushFixture(tb testing.TB, shape repoShape) *pushFixture {
	tb.Helper()
	ctrl.SetLogger(logr.Discard())
	env, err := testenv.Start(testenv.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = env.Stop() })
	f := &pushFixture{srv: gitserver.Start(tb, gitserver.Options{})}
	url := f.srv.NewRepo(tb, sourceRepo, shape.files())
	f.wt = f.srv.Clone(tb, sourceRepo)
	if f.k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
		tb.Fatal(err)
	}
	receiverURL := startSiteSyncManager(tb, env)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-push-"}}
	mustDo(tb, f.k8s.Create(ctx, ns))
	mustDo(tb, f.k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "hook"},
		StringData: map[string]string{"token": hookToken}}))
	ss := &gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{
			Source: gitopsv1alpha1.GitSource{URL: url, Ref: gitserver.DefaultBranch},
			// An hour: within the benchmark only the receiver's trigger starts a sync.
			Interval: &metav1.Duration{Duration: time.Hour},
			Timeout:  &metav1.Duration{Duration: 10 * time.Minute},
			Receiver: &gitopsv1alpha1.Receiver{SecretRef: gitopsv1alpha1.LocalSecretReference{Name: "hook"}},
		},
	}
	mustDo(tb, f.k8s.Create(ctx, ss))
	f.key = client.ObjectKeyFromObject(ss)
	f.hookURL = receiverURL + receiver.PathPrefix + f.key.Namespace + "/" + f.key.Name
	initial := f.srv.Head(tb, sourceRepo, gitserver.DefaultBranch)
	f.waitRendered(tb, "", initial)
	f.waitStatus(tb, initial)
	return f
}

// startSiteSyncManager runs a manager with the SiteSync controller, and the push receiver on an httptest
// server, until tb ends; it returns the receiver's base URL.
func startSiteSyncManager(tb testing.TB, env *testenv.Env) string {
	tb.Helper()
	workDir := tb.TempDir()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                server.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		tb.Fatal(err)
	}
	r := &sitesync.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("siteops-sitesync"),
		Clock:     clock.RealClock{},
		WorkDir:   workDir,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(receiver.NewHandler(mgr.GetClient(), mgr.GetAPIReader(), clock.RealClock{}, logr.Discard()))
	tb.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = mgr.Start(ctx)
	}()
	tb.Cleanup(func() { cancel(); <-stopped })
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		tb.Fatal("the manager's cache did not sync")
	}
	return srv.URL
}

// pushAndWait pushes a one-site change of site i, sends the receiver the signed GitHub push event as the Git
// host would, and returns the time from the start of `git push` until the rendered branch's head names the
// pushed commit. It then waits (untimed) for the SiteSync's status to record that sync, so every push starts
// from a settled controller, and checks that the rendered commit names only site i.
func (f *pushFixture) pushAndWait(tb testing.TB, i int) time.Duration {
	tb.Helper()
	f.rev++
	f.wt.Write("overlays/"+siteName(i)+"/site-values.yaml", siteValues(i, f.rev))
	sha := f.wt.Commit(fmt.Sprintf("%s: revision %d", siteName(i), f.rev))
	before := f.renderedHead(tb)
	start := time.Now()
	f.wt.Push()
	f.sendPushEvent(tb, sha)
	commit := f.waitRendered(tb, before, sha)
	elapsed := time.Since(start)
	f.waitStatus(tb, sha)
	if got := commit.Trailer(gitops.TrailerSites); got != siteName(i) {
		tb.Fatalf("rendered commit %s names sites %q, want %s", commit.SHA, got, siteName(i))
	}
	return elapsed
}

// sendPushEvent posts a GitHub push event for sha on main, signed with the hook token; it wants 202.
func (f *pushFixture) sendPushEvent(tb testing.TB, sha string) {
	tb.Helper()
	f.delivery++
	sendSignedPush(tb, f.hookURL, f.srv.URL(sourceRepo), sha, f.delivery)
}

// sendSignedPush posts to the receiver at hookURL a GitHub push event for sha on main from the repository
// cloneURL, signed with hookToken, as delivery number n; it wants 202.
func sendSignedPush(tb testing.TB, hookURL, cloneURL, sha string, n int) {
	tb.Helper()
	body := []byte(fmt.Sprintf(`{"ref":"refs/heads/%s","after":%q,"repository":{"clone_url":%q}}`,
		gitserver.DefaultBranch, sha, cloneURL))
	mac := hmac.New(sha256.New, []byte(hookToken))
	mac.Write(body)
	req, err := http.NewRequest(http.MethodPost, hookURL, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), n))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		tb.Fatalf("push receiver answered %d, want 202", resp.StatusCode)
	}
}

// renderedHead is the head of the rendered branch, read from the bare repository's loose ref file (cheap
// enough to poll every few milliseconds), or from git when the ref is packed; "" before the first render.
func (f *pushFixture) renderedHead(tb testing.TB) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(f.srv.GitDir(sourceRepo), "refs", "heads", gitops.DefaultTargetBranch))
	if err == nil {
		return strings.TrimSpace(string(b))
	}
	if !errors.Is(err, fs.ErrNotExist) {
		tb.Fatal(err)
	}
	return f.srv.Head(tb, sourceRepo, gitops.DefaultTargetBranch)
}

// waitRendered polls the rendered branch until its head moves from before to a commit whose source trailer
// names sha, and returns that commit.
func (f *pushFixture) waitRendered(tb testing.TB, before, sha string) gitserver.Commit {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		if head := f.renderedHead(tb); head != before && head != "" {
			log := f.srv.Log(tb, sourceRepo, gitops.DefaultTargetBranch)
			if len(log) > 0 && log[0].Trailer(gitops.TrailerSourceRevision) == sha {
				return log[0]
			}
			before = head
		}
		time.Sleep(5 * time.Millisecond)
	}
	tb.Fatalf("no rendered commit of source %s within 10 minutes", sha)
	return gitserver.Commit{}
}

// waitStatus polls the SiteSync until its status records source revision sha.
func (f *pushFixture) waitStatus(tb testing.TB, sha string) {
	tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		ss := &gitopsv1alpha1.SiteSync{}
		mustDo(tb, f.k8s.Get(context.Background(), f.key, ss))
		if ss.Status.SourceRevision == sha && ss.Status.ObservedGeneration == ss.Generation {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	tb.Fatalf("SiteSync %s did not record source revision %s within a minute", f.key, sha)
}

// BenchmarkPushToRenderedCommit is row P4: `git push` of a one-site change to a 100-site repository → the
// rendered commit naming the pushed commit is on the target branch, through the real push receiver (signed
// GitHub push event) and the SiteSync controller in a manager against envtest. One benchmark op is
// SITEOPS_BENCH_PUSHES (default 20) pushes to different sites; the row reports p50 and p99. The anchors,
// Flux's and Argo CD's default poll intervals, are quoted, not run.
func BenchmarkPushToRenderedCommit(b *testing.B) {
	shape := benchShapeFromEnv(b)
	pushes := envInt(b, envPushes, 20)
	f := newPushFixture(b, shape)
	var latencies []time.Duration
	for b.Loop() {
		for i := range pushes {
			site := (i*37 + 1) % shape.Sites
			d := f.pushAndWait(b, site)
			latencies = append(latencies, d)
			b.Logf("push %d to %s: %s", i+1, siteName(site), FormatDuration(d))
		}
	}
	p50, p99 := Quantile(latencies, 0.5), Quantile(latencies, 0.99)
	b.ReportMetric(p50.Seconds()*1000, "p50-ms")
	b.ReportMetric(p99.Seconds()*1000, "p99-ms")
	Record(Row{
		ID: "P4",
		Measure: fmt.Sprintf("`git push` → rendered commit on the target branch, via the push receiver, %d sites",
			shape.Sites),
		Siteops: fmt.Sprintf("p50 %s, p99 %s", FormatDuration(p50), FormatDuration(p99)),
		Anchor: fmt.Sprintf("poll every %s (Flux) / %s (Argo CD): quoted, not run",
			FormatDuration(fluxPoll), FormatDuration(argoCDPoll)),
		Ratio:   "p50 vs Flux's poll: " + FormatSpeedup(p50, fluxPoll),
		Outcome: Judge(p50 < time.Second),
		N:       fmt.Sprintf("%d pushes", len(latencies)),
		Notes: "clock starts before `git push` (git http-backend on 127.0.0.1), then a signed GitHub push " +
			"event to the receiver; stops when the rendered branch head's Siteops-Source-Revision names the " +
			"pushed commit (polled every 5 ms); envtest apiserver, SiteSync controller in a manager; " +
			"a poll-based tool waits half its interval on average",
	})
}

// TestPushToRenderedCommitSmoke runs P4's measurement on a small repository: each push, announced to the
// receiver, yields a rendered commit naming the pushed commit and only the changed site.
func TestPushToRenderedCommitSmoke(t *testing.T) {
	f := newPushFixture(t, smokeShape)
	for i := range 2 {
		f.pushAndWait(t, i+1)
	}
	if log := f.srv.Log(t, sourceRepo, gitops.DefaultTargetBranch); len(log) != 3 {
		t.Fatalf("the rendered branch has %d commits, want the first render and one per push", len(log))
	}
}

// mustDo fails tb on err.
func mustDo(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
