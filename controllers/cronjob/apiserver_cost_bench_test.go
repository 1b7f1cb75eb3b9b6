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

package cronjob

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/test/procstat"
)

// BenchmarkAPIServerCPUPerRunRequest measures the CPU time the test kube-apiserver spends on each kind of
// request a CronJob run costs the cluster: the Job create, the CronJob status patch (the status diff as a
// JSON merge patch, as PatchStatus sends it, with status.active growing to ten Jobs), the SuccessfulCreate
// event, and the Job controller's status update of the new Job. It reports apiserver-ms/op from
// /proc/<pid>/stat of the kube-apiserver process. Run it alone on an idle machine:
//
//	go test -run '^$' -bench '^BenchmarkAPIServerCPUPerRunRequest$' -benchtime 2000x ./controllers/cronjob/
func BenchmarkAPIServerCPUPerRunRequest(b *testing.B) {
	ctx := context.Background()
	pid := apiserverPid(b)
	ns := fmt.Sprintf("apiserver-cost-%d", time.Now().UnixNano())
	if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = direct.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	const cronJobs = 100
	cjs := make([]*batchv1.CronJob, cronJobs)
	for i := range cjs {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cost-%d", i)},
			Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", StartingDeadlineSeconds: ptr.To[int64](60),
				JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Suspend: ptr.To(true),
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyOnFailure,
						Containers: []corev1.Container{{Name: "c", Image: "busybox", Args: []string{"/bin/true"}}}}}}}}}
		if err := direct.Create(ctx, cj); err != nil {
			b.Fatal(err)
		}
		cjs[i] = cj
	}
	var jobs []*kbatchv1.Job
	seq := 0
	// newJob creates one more Job of cj, named uniquely within the namespace.
	newJob := func(b *testing.B, cj *batchv1.CronJob) {
		seq++
		job := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", cj.Name, seq),
			Annotations: map[string]string{batchv1.ScheduledTimestampAnnotation: time.Unix(int64(seq)*60,
				0).UTC().Format(time.RFC3339)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.GroupVersion.WithKind("CronJob"))}},
			Spec: *cj.Spec.JobTemplate.Spec.DeepCopy()}
		if err := direct.Create(ctx, job); err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, job)
	}
	for _, cj := range cjs {
		newJob(b, cj)
	}
	// measure runs op once per iteration and reports the apiserver's CPU per op.
	measure := func(b *testing.B, op func(i int)) {
		b.Helper()
		before := processCPU(b, pid)
		for i := 0; b.Loop(); i++ {
			op(i)
		}
		b.StopTimer()
		b.ReportMetric(float64((processCPU(b, pid)-before).Microseconds())/1000/float64(b.N), "apiserver-ms/op")
	}
	b.Run("Job create", func(b *testing.B) {
		measure(b, func(i int) { newJob(b, cjs[i%cronJobs]) })
	})
	b.Run("CronJob status patch", func(b *testing.B) {
		measure(b, func(i int) {
			cj := cjs[i%cronJobs]
			job := jobs[i%len(jobs)]
			active := append(cj.Status.Active, corev1.ObjectReference{Kind: "Job", APIVersion: "batch/v1",
				Namespace: ns, Name: job.Name, UID: job.UID, ResourceVersion: job.ResourceVersion})
			cj.Status.Active = active[max(0, len(active)-10):]
			patch, err := json.Marshal(map[string]any{"status": map[string]any{"active": cj.Status.Active,
				"lastScheduleTime": time.Unix(int64(i)*60, 0).UTC().Format(time.RFC3339)}})
			if err != nil {
				b.Fatal(err)
			}
			meta := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cj.Name}}
			meta.SetGroupVersionKind(batchv1.GroupVersion.WithKind("CronJob"))
			if err := direct.Status().Patch(ctx, meta, client.RawPatch(types.MergePatchType, patch)); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("event create", func(b *testing.B) {
		measure(b, func(i int) {
			cj := cjs[i%cronJobs]
			ev := &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns,
				Name: fmt.Sprintf("%s.%d", cj.Name, time.Now().UnixNano())},
				EventTime: metav1.NowMicro(), ReportingController: "siteops-cronjob", ReportingInstance: "siteops-cronjob-1",
				Action: "CreateJob", Reason: batchv1.ReasonSuccessfulCreate, Type: corev1.EventTypeNormal,
				Note: "Created job " + jobs[i%len(jobs)].Name,
				Regarding: corev1.ObjectReference{Kind: "CronJob", APIVersion: batchv1.GroupVersion.String(), Namespace: ns,
					Name: cj.Name, UID: cj.UID}}
			if err := direct.Create(ctx, ev); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("Job status update", func(b *testing.B) {
		measure(b, func(i int) {
			job := jobs[i%len(jobs)]
			now := metav1.Now()
			job.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobSuspended, Status: corev1.ConditionTrue,
				Reason: "JobSuspended", Message: "Job suspended", LastProbeTime: now, LastTransitionTime: now}}
			if err := direct.Status().Update(ctx, job); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// apiserverPid finds the test kube-apiserver's process by the port it serves on.
func apiserverPid(b *testing.B) int {
	b.Helper()
	u, err := url.Parse(env.Config.Host)
	if err != nil {
		b.Fatal(err)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmd), "\x00")
		if filepath.Base(args[0]) == "kube-apiserver" && strings.Contains(string(cmd), "--secure-port="+u.Port()) {
			return pid
		}
	}
	b.Fatalf("no kube-apiserver process serving port %s", u.Port())
	return 0
}

// processCPU is the user and system CPU time of process pid so far.
func processCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	u, err := procstat.Read(pid)
	if err != nil {
		b.Fatal(err)
	}
	return u.CPU
}
