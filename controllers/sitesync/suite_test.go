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

package sitesync

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/sitesync/receiver"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
	"github.com/siteops/siteops/test/testenv"
)

// Known credentials of the package's Git server; the leak test searches for them everywhere.
const (
	gitUser     = "siteops-bot"
	gitPassword = "Pw-7f3c9e1a-never-print-me"
)

// suite is the control plane, manager, Git server and receiver shared by the envtest tests of this package.
// It starts on first use (useSuite), so the pure tests and the fuzz target run without a control plane.
var suite struct {
	once       sync.Once
	err        error
	stop       func()
	env        *testenv.Env
	k8s        client.Client // uncached, for the tests themselves
	git        *gitserver.Server
	receiver   string // http://127.0.0.1:<port> of the running push receiver
	logs       *syncBuffer
	namespaces atomic.Int64
	repos      atomic.Int64
	renders    atomic.Int64 // the kustomize builds the reconciler's syncer ran
	// clock is the reconciler's clock: real time plus an offset the wave tests move forward (soaks, freezes).
	clock offsetClock
}

// offsetClock is the real clock plus an offset that only grows, so time seen by every test stays monotonic.
type offsetClock struct{ offset atomic.Int64 }

func (c *offsetClock) Now() time.Time                  { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *offsetClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// advance moves the clock forward by d.
func (c *offsetClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// syncBuffer is a goroutine-safe log sink target.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) write(prefix, args string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(prefix + " " + args + "\n")
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if suite.stop != nil {
		suite.stop()
	}
	os.Exit(code)
}

// useSuite starts the shared control plane, Git server and manager once, or fails the test.
func useSuite(t *testing.T) {
	t.Helper()
	suite.once.Do(func() { suite.err = startSuite() })
	if suite.err != nil {
		t.Fatalf("starting the envtest suite: %v", suite.err)
	}
}

func startSuite() error {
	suite.logs = &syncBuffer{}
	// Verbosity 10 captures the debug lines too: nothing at any level may carry a credential.
	logger := funcr.New(suite.logs.write, funcr.Options{Verbosity: 10})
	logf.SetLogger(logger)

	// Argo CD's Application kind is served (a minimal CRD), so the controller observes delivery; Argo
	// Rollouts' analysis kinds are served too, so waves are verified by AnalysisRuns (no analysis controller
	// runs here: the tests set a run's phase themselves).
	analysis, err := testenv.ArgoRolloutsAnalysisCRDs()
	if err != nil {
		return err
	}
	env, err := testenv.Start(testenv.Options{CRDPaths: append([]string{applicationCRD(), applicationSetCRD()},
		analysis...)})
	if err != nil {
		return err
	}
	suite.env = env
	suite.git = gitserver.Start(nil, gitserver.Options{Username: gitUser, Password: gitPassword})
	ctx, cancel := context.WithCancel(context.Background())
	var stopped <-chan struct{}
	suite.stop = func() {
		cancel()
		if stopped != nil {
			<-stopped
		}
		suite.git.Close()
		_ = env.Stop()
	}
	if suite.k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
		return fmt.Errorf("creating client: %w", err)
	}
	stopped, err = startManager(ctx, logger)
	return err
}

// startManager runs the SiteSync controller and the push receiver (on a free port) until ctx ends.
func startManager(ctx context.Context, logger logr.Logger) (<-chan struct{}, error) {
	workDir, err := os.MkdirTemp("", "sitesync-work-")
	if err != nil {
		return nil, fmt.Errorf("creating work dir: %w", err)
	}
	mgr, err := ctrl.NewManager(suite.env.Config, ctrl.Options{
		Scheme:                 suite.env.Scheme,
		Logger:                 logger,
		Metrics:                server.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	// The series are registered as the manager registers them, on the registry its endpoint serves.
	m, err := NewMetrics(metrics.Registry)
	if err != nil {
		return nil, err
	}
	r := &Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Scheme:    mgr.GetScheme(),
		Recorder:  mgr.GetEventRecorder("siteops-sitesync"),
		Clock:     &suite.clock,
		WorkDir:   workDir,
		Metrics:   m,
		syncer:    gitops.NewSyncer(gitops.SyncerOptions{OnRender: func(string) { suite.renders.Add(1) }}),
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the controller: %w", err)
	}
	bound := make(chan string, 1)
	rs := receiver.NewServer("127.0.0.1:0", mgr.GetClient(), mgr.GetAPIReader(), clock.RealClock{})
	rs.Started = bound
	if err := mgr.Add(rs); err != nil {
		return nil, fmt.Errorf("adding the receiver: %w", err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		defer func() { _ = os.RemoveAll(workDir) }()
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	select {
	case addr := <-bound:
		suite.receiver = "http://" + addr
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("push receiver did not start")
	}
	return stopped, nil
}

// applicationCRD is the path of the minimal Argo CD Application CRD the suite installs.
func applicationCRD() string {
	return filepath.Join(testenv.RepoRoot(), "controllers", "sitesync", "testdata", "argocd-application-crd.yaml")
}

// applicationSetCRD is the path of the minimal Argo CD ApplicationSet CRD the suite installs.
func applicationSetCRD() string {
	return filepath.Join(testenv.RepoRoot(), "controllers", "sitesync", "testdata", "argocd-applicationset-crd.yaml")
}

// newNamespace creates a fresh namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("sitesync-%d", suite.namespaces.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), ns)).To(Succeed())
	return name
}

// newRepoName is a fresh repository name on the Git server for one test (unique under -count too).
func newRepoName(t *testing.T) string {
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	return fmt.Sprintf("%s-%d", name, suite.repos.Add(1))
}

// gitSecret creates a basic-auth Secret with the server's credentials (or the given data).
func gitSecret(t *testing.T, ns, name string, data map[string]string) {
	t.Helper()
	if data == nil {
		data = map[string]string{"username": gitUser, "password": gitPassword}
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), s)).To(Succeed())
}

// newSiteSync creates a SiteSync over repo, with the credentials Secret "git". Its interval is an hour, so
// within a test's bounded wait only a watch event or a trigger can start a sync.
func newSiteSync(t *testing.T, ns, repo string, mutate ...func(*gitopsv1alpha1.SiteSync)) *gitopsv1alpha1.SiteSync {
	t.Helper()
	ss := &gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{
			URL: suite.git.URL(repo), Ref: gitserver.DefaultBranch,
			SecretRef: &gitopsv1alpha1.LocalSecretReference{Name: "git"},
		}, Interval: &metav1.Duration{Duration: time.Hour}},
	}
	for _, m := range mutate {
		m(ss)
	}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), ss)).To(Succeed())
	return ss
}

// getSiteSync reads the SiteSync fresh from the apiserver.
func getSiteSync(ctx context.Context, g Gomega, key client.ObjectKey) *gitopsv1alpha1.SiteSync {
	ss := &gitopsv1alpha1.SiteSync{}
	g.Expect(suite.k8s.Get(ctx, key, ss)).To(Succeed())
	return ss
}

// requestSync sets the requestedAt annotation, as `kubectl annotate` or the receiver would.
func requestSync(t *testing.T, key client.ObjectKey, value string) {
	t.Helper()
	patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, gitopsv1alpha1.RequestedAtAnnotation, value))
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Namespace, ss.Name = key.Namespace, key.Name
	NewWithT(t).Expect(suite.k8s.Patch(t.Context(), ss,
		client.RawPatch("application/merge-patch+json", patch))).To(Succeed())
}

// eventsOf lists the events recorded for the SiteSync in ns.
func eventsOf(ctx context.Context, g Gomega, ns string) []corev1.Event {
	var list corev1.EventList
	g.Expect(suite.k8s.List(ctx, &list, client.InNamespace(ns))).To(Succeed())
	return list.Items
}

// site returns the status entry of name.
func siteStatus(ss *gitopsv1alpha1.SiteSync, name string) (gitopsv1alpha1.SiteStatus, bool) {
	for _, s := range ss.Status.Sites {
		if s.Name == name {
			return s, true
		}
	}
	return gitopsv1alpha1.SiteStatus{}, false
}

// waitTimeout bounds every wait for the controller in this package.
const waitTimeout = 60 * time.Second
