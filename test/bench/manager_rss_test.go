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
	"context"
	"fmt"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// P7's knobs: CronJobs per side [5000] and Jobs in all [20000].
const (
	envP7CronJobs = "SITEOPS_BENCH_P7_CRONJOBS"
	envP7Jobs     = "SITEOPS_BENCH_P7_JOBS"
)

// p7Schedule fires once a year (1 January, 00:00), so nothing is scheduled during the run.
const p7Schedule = "0 0 1 1 *"

// BenchmarkManagerRSS is row P7: the resident memory of siteops' bin/manager and of a kube-controller-manager
// running cronjob-controller and job-controller (default flags) on the same cluster at the same time, once
// both have every object in their caches and have settled: N CronJobs per side (tutorial for siteops,
// batch/v1 for the anchor) and M suspended Jobs in all, half owned by each side's CronJobs (two or more per
// CronJob); each process caches every Job. The objects are created already in the state the controllers
// would give them (Jobs' Suspended condition, CronJobs' active lists and siteops' Ready condition), so
// neither side has thousands of writes queued behind its client rate limit when it is measured.
func BenchmarkManagerRSS(b *testing.B) {
	n, m := envInt(b, envP7CronJobs, 5000), envInt(b, envP7Jobs, 20000)
	for b.Loop() {
		managerBinary(b) // built before the cluster starts
		bc := startBenchCluster(b, "kwok", "*,-cronjob-controller,-job-controller")
		createNamespaces(b, bc.c)
		created := time.Now()
		createP7Objects(b, bc.c, n, m)
		b.Logf("P7: created %d CronJobs per side and %d Jobs in %s", n, m, time.Since(created).Round(time.Second))
		mgr := bc.startClusterManager(b)
		kcm := bc.startAnchorKCM(b, "cronjob-controller,job-controller")
		s, a, settled := settledRSS(b, mgr, kcm)
		ratio := float64(s.rss) / float64(max(a.rss, 1))
		b.ReportMetric(float64(s.rss)/(1<<20), "siteops-MiB")
		b.ReportMetric(float64(a.rss)/(1<<20), "anchor-MiB")
		note := "both settled (CPU below 5% for 10 s)"
		if !settled {
			note = "not both settled within 5 minutes: measured at the timeout"
		}
		Record(Row{
			ID:      "P7",
			Siteops: fmt.Sprintf("%s (peak %s); CPU %s", formatMiB(s.rss), formatMiB(s.hwm), FormatDuration(s.cpu)),
			Anchor:  fmt.Sprintf("%s (peak %s); CPU %s", formatMiB(a.rss), formatMiB(a.hwm), FormatDuration(a.cpu)),
			Ratio:   fmt.Sprintf("%.3g", ratio),
			Outcome: Judge(ratio <= 1),
			N:       fmt.Sprintf("%d CronJobs per side, %d suspended Jobs (each process caches all)", n, m),
			Notes: fmt.Sprintf("VmRSS from /proc once %s; anchor: kube-controller-manager v1.37.2 with cronjob-controller "+
				"and job-controller, default flags; both at the same time on one local cluster; "+
				"CPU = user+system from start", note),
		})
	}
}

// createP7Objects creates the CronJobs of both sides and the Jobs, with the status the controllers would
// write.
func createP7Objects(b *testing.B, c client.Client, n, m int) {
	b.Helper()
	ctx := context.Background()
	tmpl := jobTemplate()
	createAll(b, c, n, func(i int) client.Object {
		return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: nsSiteops, Name: fmt.Sprintf("cj-%d", i)},
			Spec: batchv1.CronJobSpec{Schedule: p7Schedule, JobTemplate: tmpl}}
	})
	createAll(b, c, n, func(i int) client.Object {
		return &kbatchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: nsKCM, Name: fmt.Sprintf("cj-%d", i)},
			Spec: kbatchv1.CronJobSpec{Schedule: p7Schedule, JobTemplate: tmpl}}
	})
	var ours batchv1.CronJobList
	var theirs kbatchv1.CronJobList
	mustDo(b, c.List(ctx, &ours, client.InNamespace(nsSiteops)))
	mustDo(b, c.List(ctx, &theirs, client.InNamespace(nsKCM)))
	owners := map[string]metav1.OwnerReference{}
	for _, cj := range ours.Items {
		owners[nsSiteops+"/"+cj.Name] = *metav1.NewControllerRef(&cj, batchv1.GroupVersion.WithKind("CronJob"))
	}
	for _, cj := range theirs.Items {
		owners[nsKCM+"/"+cj.Name] = *metav1.NewControllerRef(&cj, kbatchv1.SchemeGroupVersion.WithKind("CronJob"))
	}
	// Job i belongs to side i%2, CronJob (i/2)%n.
	jobOf := func(i int) (ns, cj, name string) {
		ns = []string{nsSiteops, nsKCM}[i%2]
		cj = fmt.Sprintf("cj-%d", (i/2)%n)
		return ns, cj, fmt.Sprintf("%s-%d", cj, i/2/n)
	}
	jobs := make([]*kbatchv1.Job, m)
	createAll(b, c, m, func(i int) client.Object {
		ns, cj, name := jobOf(i)
		j := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			OwnerReferences: []metav1.OwnerReference{owners[ns+"/"+cj]}}, Spec: *tmpl.Spec.DeepCopy()}
		j.Spec.Suspend = ptr.To(true)
		jobs[i] = j
		return j
	})
	// The job controller's view of a suspended Job that never ran.
	parallel(b, m, func(i int) error {
		j := jobs[i]
		j.Status = kbatchv1.JobStatus{Active: 0, Ready: ptr.To[int32](0), Terminating: ptr.To[int32](0),
			UncountedTerminatedPods: &kbatchv1.UncountedTerminatedPods{},
			Conditions: []kbatchv1.JobCondition{{Type: kbatchv1.JobSuspended, Status: corev1.ConditionTrue,
				Reason: "JobSuspended", Message: "Job suspended", LastProbeTime: metav1.Now(),
				LastTransitionTime: metav1.Now()}}}
		return c.Status().Update(ctx, j)
	})
	active := map[string][]corev1.ObjectReference{}
	for i, j := range jobs {
		ns, cj, _ := jobOf(i)
		active[ns+"/"+cj] = append(active[ns+"/"+cj], corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job",
			Namespace: ns, Name: j.Name, UID: j.UID})
	}
	// The CronJob controllers' view: every Job active; siteops' Ready condition as it would set it.
	next := fmt.Sprintf("Next run at %d-01-01T00:00:00Z", time.Now().UTC().Year()+1)
	parallel(b, n, func(i int) error {
		cj := &ours.Items[i]
		cj.Status = batchv1.CronJobStatus{Active: active[nsSiteops+"/"+cj.Name], ObservedGeneration: cj.Generation,
			Conditions: []metav1.Condition{{Type: batchv1.ConditionReady, Status: metav1.ConditionTrue,
				Reason: batchv1.ReasonScheduling, Message: next, ObservedGeneration: cj.Generation,
				LastTransitionTime: metav1.Now()}}}
		return c.Status().Update(ctx, cj)
	})
	parallel(b, n, func(i int) error {
		cj := &theirs.Items[i]
		cj.Status = kbatchv1.CronJobStatus{Active: active[nsKCM+"/"+cj.Name]}
		return c.Status().Update(ctx, cj)
	})
}

// parallel runs f(0…n-1) on 16 workers, failing b on the first error.
func parallel(b *testing.B, n int, f func(i int) error) {
	b.Helper()
	errs := make(chan error, 1)
	next := make(chan int)
	done := make(chan struct{})
	for range 16 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range next {
				if err := f(i); err != nil {
					select {
					case errs <- fmt.Errorf("object %d: %w", i, err):
					default:
					}
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	for range 16 {
		<-done
	}
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// settledRSS waits until both processes use less than 5% of a CPU over 10 s (at most 5 minutes, at least
// 30 s after they start) and returns their samples then, and whether they settled.
func settledRSS(b *testing.B, procs ...*hostProcess) (siteops, anchor procSample, settled bool) {
	b.Helper()
	start := time.Now()
	prev := make([]procSample, len(procs))
	for {
		time.Sleep(10 * time.Second)
		cur := make([]procSample, len(procs))
		quiet := time.Since(start) >= 30*time.Second
		for i, p := range procs {
			if !p.alive() {
				b.Fatalf("%s exited", p.name)
			}
			s, err := sampleProc(p.cmd.Process.Pid)
			mustDo(b, err)
			cur[i] = s
			if s.cpu-prev[i].cpu > 500*time.Millisecond {
				quiet = false
			}
		}
		b.Logf("P7: siteops RSS %s CPU %s; anchor RSS %s CPU %s", formatMiB(cur[0].rss), FormatDuration(cur[0].cpu),
			formatMiB(cur[1].rss), FormatDuration(cur[1].cpu))
		prev = cur
		if quiet || time.Since(start) > 5*time.Minute {
			return cur[0], cur[1], quiet
		}
	}
}
