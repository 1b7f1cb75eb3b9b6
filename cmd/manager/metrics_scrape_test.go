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

package main

import (
	"context"
	"encoding/json"
	"flag"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	kbatchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/test/gitserver"
	"github.com/siteops/siteops/test/testenv"
)

const (
	systemNS = "siteops-system"
	testNS   = "metrics-test"
	leaseID  = "siteops.siteops.dev"
)

// TestMetricsEndpointAfterRealReconciles runs the manager's own wiring (parseFlags and run, as main does)
// against a real kube-apiserver: first as a standby (another colour holds the lease, so CronJobs are only
// dry-run), then as the leader once the lease is released. It makes each controller do real work — a
// CronJob that is due creates a Job, a Guestbook fails over, a SiteSync renders sites from a real Git server
// with one broken site — then scrapes the secure metrics endpoint as Prometheus would, with the token of a
// ServiceAccount bound to the shipped metrics-reader ClusterRole, and checks the series and their values.
// A token without that role gets 403, none gets 401, HTTP/2 is refused, and every log line is JSON with the
// reconciled object's key on each line of a reconcile.
func TestMetricsEndpointAfterRealReconciles(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := testenv.Start(testenv.Options{Webhooks: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	cs, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	for _, ns := range []string{systemNS, testNS} {
		g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	// The active colour of a blue/green pair holds the lease: this manager starts as the standby.
	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: systemNS, Name: leaseID},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("the-other-colour"), LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime: &now, RenewTime: &now}}
	g.Expect(k8s.Create(ctx, lease)).To(Succeed())

	metricsPort := freePort(t)
	logs := startManager(t, env, []string{
		"--metrics-bind-address=" + addrOf(metricsPort),
		"--health-probe-bind-address=0", "--receiver-bind-address=0", "--standby-bind-address=0",
		"--webhook-port=" + strconv.Itoa(env.WebhookInstallOptions.LocalServingPort),
		"--webhook-cert-dir=" + env.WebhookInstallOptions.LocalServingCertDir,
		"--leader-election-namespace=" + systemNS, "--work-dir=" + t.TempDir(), "--zap-devel=false", "--zap-log-level=debug",
	})

	// The webhook server listens a moment after the manager starts; the CronJob below goes through admission.
	webhook := net.JoinHostPort(env.WebhookInstallOptions.LocalServingHost,
		strconv.Itoa(env.WebhookInstallOptions.LocalServingPort))
	g.Eventually(func() error {
		c, err := net.Dial("tcp", webhook)
		if err == nil {
			_ = c.Close()
		}
		return err
	}, eventually, 100*time.Millisecond).Should(Succeed(), "the webhook server listens")
	testenv.ApplyShippedClusterRole(t, k8s, "metrics_reader_role.yaml")
	reader := testenv.ServiceAccountToken(t, cs, k8s, testNS, "prometheus", "metrics-reader")
	stranger := testenv.ServiceAccountToken(t, cs, k8s, testNS, "stranger", "")
	s := newScraper(addrOf(metricsPort))
	scrape := func(g Gomega) map[string]*dto.MetricFamily {
		fams, err := s.families(reader)
		g.Expect(err).NotTo(HaveOccurred())
		return fams
	}

	// Standby: a due CronJob is dry-run (a dry-run Job), nothing is created.
	cj := cronjobtest.Valid(testNS, "every-minute")
	// Missed times count only within startingDeadlineSeconds: 5 minutes holds both times due at once.
	cj.Spec.StartingDeadlineSeconds = ptr.To[int64](300)
	g.Expect(k8s.Create(ctx, cj)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(value(scrape(g), "siteops_standby_writes", map[string]string{"kind": "Job"})).To(BeNumerically(">=", 1))
	}, eventually, time.Second).Should(Succeed())
	g.Expect(jobsOf(g, k8s, cj)).To(BeEmpty(), "a standby writes nothing")

	// The other colour releases the lease: this manager leads and creates the Job.
	g.Expect(k8s.Delete(ctx, lease)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(jobsOf(g, k8s, cj)).NotTo(BeEmpty())
		g.Expect(value(scrape(g), "leader_election_master_status", map[string]string{"name": leaseID})).To(Equal(1.0))
	}, eventually, time.Second).Should(Succeed())

	failoverGuestbook(t, k8s)
	syncSites(t, k8s)

	g.Eventually(func(g Gomega) {
		jobs := len(jobsOf(g, k8s, cj))
		fams := scrape(g)
		g.Expect(len(jobsOf(g, k8s, cj))).To(Equal(jobs), "no Job was created during the scrape")
		expectSeries(g, fams, jobs)
	}, eventually, time.Second).Should(Succeed())

	// Authorization: the filter asks the apiserver (TokenReview, SubjectAccessReview) for every scrape.
	resp, _, err := s.get(stranger)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusForbidden), "a ServiceAccount without metrics-reader")
	resp, _, err = s.get("")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized), "no token")
	resp, _, err = s.get(reader)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.TLS.NegotiatedProtocol).NotTo(Equal("h2"), "HTTP/2 is off by default")
	g.Expect(resp.Proto).To(Equal("HTTP/1.1"))

	expectStructuredLogs(t, logs.String(), reader)
}

// startManager parses args with the manager's flags, logs with the flags' zap options into the returned
// buffer and runs the manager until the test ends.
func startManager(t *testing.T, env *testenv.Env, args []string) *lockedBuffer {
	t.Helper()
	g := NewWithT(t)
	o, zo, _, err := parseFlags(flag.NewFlagSet("manager", flag.ContinueOnError), args)
	g.Expect(err).NotTo(HaveOccurred())
	logs := &lockedBuffer{}
	// The manager's own logger, not ctrl.SetLogger: controller-runtime takes the first logger a process sets
	// (or a null one 30 s after its first log line), and other tests of this package run before this one.
	log := zap.New(zap.UseFlagOptions(&zo), zap.WriteTo(logs))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// The schedule clock runs 2 minutes ahead, so the CronJob falls due at once (twice: one time missed).
	go func() { done <- run(ctx, env.Config, o, offsetClock{offset: 2 * time.Minute}, log) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("manager: %v", err)
			}
		case <-time.After(eventually):
			t.Errorf("the manager did not stop")
		}
		if t.Failed() {
			t.Logf("manager logs:\n%s", tail(logs.String(), 60))
		}
	})
	return logs
}

// failoverGuestbook creates a Guestbook with two Ready pods, waits for the first to be active, makes it not
// Ready and waits for the second to take over.
func failoverGuestbook(t *testing.T, k8s client.Client) {
	t.Helper()
	g, ctx := NewWithT(t), context.Background()
	g.Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "gb-config"},
		Data: map[string]string{"k": "v"}})).To(Succeed())
	gb := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "gb"},
		Spec: webappv1.GuestbookSpec{Size: 2, ConfigMapName: "gb-config", Alias: webappv1.AliasAddress}}
	g.Expect(k8s.Create(ctx, gb)).To(Succeed())
	for _, name := range []string{"gb-p0", "gb-p1"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: name,
			Labels: map[string]string{webappv1.LabelGuestbook: gb.Name}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "guestbook", Image: webappv1.DefaultImage}}}}
		g.Expect(k8s.Create(ctx, pod)).To(Succeed())
		setPodReady(g, k8s, name, true)
	}
	g.Eventually(func(g Gomega) { g.Expect(activePods(g, k8s)).To(Equal([]string{"gb-p0"})) },
		eventually).Should(Succeed())
	setPodReady(g, k8s, "gb-p0", false)
	g.Eventually(func(g Gomega) { g.Expect(activePods(g, k8s)).To(Equal([]string{"gb-p1"})) },
		eventually).Should(Succeed())
}

// setPodReady sets a pod's Ready condition as the kubelet would (envtest runs none).
func setPodReady(g Gomega, k8s client.Client, name string, ready bool) {
	pod := &corev1.Pod{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: name}, pod)).To(Succeed())
	before := pod.DeepCopy()
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status,
		LastTransitionTime: metav1.Now()}}
	g.Expect(k8s.Status().Patch(context.Background(), pod, client.MergeFrom(before))).To(Succeed())
}

// activePods names the pods labelled active.
func activePods(g Gomega, k8s client.Client) []string {
	var pods corev1.PodList
	g.Expect(k8s.List(context.Background(), &pods, client.InNamespace(testNS),
		client.MatchingLabels{webappv1.LabelRole: webappv1.RoleActive})).To(Succeed())
	var names []string
	for _, p := range pods.Items {
		names = append(names, p.Name)
	}
	return names
}

// syncSites serves a source repository with two good sites and one whose kustomization names a missing
// file, creates a SiteSync for it and waits until it reports the broken site.
func syncSites(t *testing.T, k8s client.Client) {
	t.Helper()
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n" +
		"spec:\n  selector: {matchLabels: {app: web}}\n" +
		"  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: app, image: 'nginx:1.27'}]}\n"
	srv.NewRepo(t, "config", map[string]string{
		"base/kustomization.yaml":            "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":               deployment,
		"overlays/dev/kustomization.yaml":    "resources:\n- ../../base\nnamePrefix: dev-\n",
		"overlays/prod/kustomization.yaml":   "resources:\n- ../../base\nnamePrefix: prod-\n",
		"overlays/broken/kustomization.yaml": "resources:\n- no-such-file.yaml\n",
	})
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{
			Source:   gitopsv1alpha1.GitSource{URL: srv.URL("config"), Ref: gitserver.DefaultBranch},
			Interval: &metav1.Duration{Duration: time.Hour},
		}}
	g.Expect(k8s.Create(context.Background(), ss)).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := &gitopsv1alpha1.SiteSync{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(ss), got)).To(Succeed())
		ready := meta.FindStatusCondition(got.Status.Conditions, gitopsv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Reason).To(Equal(gitopsv1alpha1.ReasonSitesFailed))
	}, eventually, time.Second).Should(Succeed())
}

// jobsOf lists the Jobs the CronJob controls.
func jobsOf(g Gomega, k8s client.Client, cj client.Object) []string {
	var jobs kbatchv1.JobList
	g.Expect(k8s.List(context.Background(), &jobs, client.InNamespace(cj.GetNamespace()))).To(Succeed())
	var names []string
	for _, j := range jobs.Items {
		if ref := metav1.GetControllerOf(&j); ref != nil && ref.Name == cj.GetName() {
			names = append(names, j.Name)
		}
	}
	return names
}

// expectSeries checks controller-runtime's standard series and every siteops series after the reconciles
// above; jobs is how many Jobs the CronJob controller created.
func expectSeries(g Gomega, fams map[string]*dto.MetricFamily, jobs int) {
	for _, c := range []string{"cronjob", "guestbook", "sitesync"} {
		ctl := map[string]string{"controller": c}
		g.Expect(value(fams, "controller_runtime_reconcile_total", ctl)).To(BeNumerically(">", 0), c)
		count, _ := histogramOf(fams, "controller_runtime_reconcile_time_seconds", ctl)
		g.Expect(count).To(BeNumerically(">", 0), c)
		g.Expect(value(fams, "workqueue_adds_total", map[string]string{"name": c})).To(BeNumerically(">", 0), c)
	}
	g.Expect(value(fams, "rest_client_requests_total", nil)).To(BeNumerically(">", 0))

	// One lag sample per Job created, none for the standby's dry run; the clock ran 2 minutes ahead.
	count, sum := histogramOf(fams, "siteops_cronjob_schedule_lag_seconds", nil)
	g.Expect(count).To(BeEquivalentTo(jobs))
	g.Expect(sum / float64(count)).To(BeNumerically(">=", 0))
	g.Expect(sum / float64(count)).To(BeNumerically("<", 300))
	g.Expect(value(fams, "siteops_cronjob_missed_schedules_total", nil)).To(BeNumerically(">=", 1),
		"two times were due at once")

	g.Expect(value(fams, "siteops_guestbook_failovers_total", nil)).To(Equal(1.0))
	count, sum = histogramOf(fams, "siteops_guestbook_failover_seconds", nil)
	g.Expect(count).To(BeEquivalentTo(1))
	g.Expect(sum).To(And(BeNumerically(">", 0), BeNumerically("<", 600)))

	for _, site := range []string{"dev", "prod"} {
		count, sum := histogramOf(fams, "siteops_render_duration_seconds", map[string]string{"site": site})
		g.Expect(count).To(BeNumerically(">=", 1), "site %s was built", site)
		g.Expect(sum).To(BeNumerically(">", 0), site)
	}
	g.Expect(value(fams, "siteops_render_failures_total",
		map[string]string{"site": "broken", "reason": "GuardRefused"})).To(Equal(1.0))
	g.Expect(series(fams, "siteops_render_failures_total", map[string]string{"site": "dev"})).To(BeEmpty())
	count, sum = histogramOf(fams, "siteops_sync_lag_seconds", nil)
	g.Expect(count).To(BeEquivalentTo(1), "one rendered commit pushed")
	g.Expect(sum).To(And(BeNumerically(">", 0), BeNumerically("<", 600)))
	g.Expect(fams).To(HaveKey("siteops_git_push_retries_total"))
	g.Expect(value(fams, "siteops_git_push_retries_total", nil)).To(BeZero(), "nothing else pushed to the rendered branch")
	count, _ = histogramOf(fams, "siteops_sync_duration_seconds", map[string]string{"namespace": testNS, "name": "sites"})
	g.Expect(count).To(BeNumerically(">=", 1))
	g.Expect(value(fams, "siteops_standby_writes", map[string]string{"kind": "Job"})).To(BeNumerically(">=", 1))

	// The fleet as the SiteSync's status shows it: three sites, one of which failed to render; no Argo CD here.
	sites := map[string]string{"namespace": testNS, "name": "sites"}
	g.Expect(value(fams, "siteops_sitesync_sites", sites)).To(Equal(3.0))
	g.Expect(value(fams, "siteops_sitesync_sites", map[string]string{"namespace": testNS, "name": "sites",
		"delivery": "NotObserved"})).To(Equal(3.0))
	g.Expect(value(fams, "siteops_sitesync_render_failed_sites", sites)).To(Equal(1.0))
}

// expectStructuredLogs checks that every log line is a JSON object (--zap-devel=false), that every line
// logged inside a reconcile names the object (namespace and name beside the reconcileID), that each
// controller logged such lines (at --zap-log-level=debug), and that the scrape token was never logged.
func expectStructuredLogs(t *testing.T, logs, token string) {
	t.Helper()
	g := NewWithT(t)
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	g.Expect(len(lines)).To(BeNumerically(">", 10))
	seen := map[string]int{}
	for _, line := range lines {
		var entry map[string]any
		g.Expect(json.Unmarshal([]byte(line), &entry)).To(Succeed(), "not JSON: %s", line)
		g.Expect(entry).To(HaveKey("msg"), line)
		if _, ok := entry["reconcileID"]; !ok {
			continue
		}
		g.Expect(entry["namespace"]).To(Equal(testNS), "a reconcile's line without the object's namespace: %s", line)
		g.Expect(entry["name"]).NotTo(BeEmpty(), "a reconcile's line without the object's name: %s", line)
		seen[entry["controller"].(string)]++
	}
	t.Logf("reconcile log lines by controller: %v", seen)
	g.Expect(seen).To(HaveKey("cronjob"))
	g.Expect(seen).To(HaveKey("guestbook"))
	g.Expect(seen).To(HaveKey("sitesync"))
	g.Expect(logs).NotTo(ContainSubstring(token))
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
