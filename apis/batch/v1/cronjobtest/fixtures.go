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

// Package cronjobtest holds CronJob fixtures shared by the API, controller and reliability tests: a valid
// CronJob like the kubebuilder book's sample, and the admission matrix of invalid ones with the field path
// each must be rejected with.
package cronjobtest

import (
	"strings"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// Valid returns the kubebuilder book's sample CronJob (every minute, busybox printing the date) under the
// given name and namespace.
func Valid(namespace, name string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: batchv1.CronJobSpec{
			Schedule:                "*/1 * * * *",
			StartingDeadlineSeconds: ptr.To[int64](60),
			ConcurrencyPolicy:       batchv1.AllowConcurrent,
			JobTemplate: kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyOnFailure,
					Containers: []corev1.Container{{
						Name: "hello", Image: "busybox",
						Args: []string{"/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"},
					}},
				},
			}}},
		},
	}
}

// Invalid is one row of the admission matrix.
type Invalid struct {
	// Name describes what is wrong.
	Name string
	// Mutate breaks a Valid CronJob.
	Mutate func(*batchv1.CronJob)
	// Field is the field path the rejection must name.
	Field string
	// CEL is true when the CRD's schema and CEL rules reject it on their own (webhook down).
	CEL bool
}

// InvalidCronJobs is the CronJob part of the admission matrix: every row must be rejected by the validating
// webhook with Field in the message, and the CEL rows also with the webhook off.
func InvalidCronJobs() []Invalid {
	sched := func(s string) func(*batchv1.CronJob) { return func(cj *batchv1.CronJob) { cj.Spec.Schedule = s } }
	zone := func(z string) func(*batchv1.CronJob) { return func(cj *batchv1.CronJob) { cj.Spec.TimeZone = &z } }
	pod := func(f func(*corev1.PodSpec)) func(*batchv1.CronJob) {
		return func(cj *batchv1.CronJob) { f(&cj.Spec.JobTemplate.Spec.Template.Spec) }
	}
	const (
		schedule = "spec.schedule"
		tz       = "spec.timeZone"
		podSpec  = "spec.jobTemplate.spec.template.spec"
	)
	return []Invalid{
		{"empty schedule", sched(""), schedule, true},
		{"blank schedule", sched("   "), schedule, true},
		{"four fields", sched("* * * *"), schedule, true},
		{"six fields (seconds)", sched("0 * * * * *"), schedule, true},
		{"schedule longer than 256", sched(strings.Repeat("1,", 130) + "1 * * * *"), schedule, true},
		{"CRON_TZ in schedule", sched("CRON_TZ=UTC 0 * * * *"), schedule, true},
		{"TZ in schedule", sched("TZ=Europe/Berlin 0 * * * *"), schedule, true},
		{"minute 61", sched("61 * * * *"), schedule, false},
		{"month 13", sched("0 0 1 13 *"), schedule, false},
		{"unknown descriptor @reboot", sched("@reboot"), schedule, false},
		{"@every below a minute", sched("@every 30s"), schedule, false},
		{"@every not whole minutes", sched("@every 90s"), schedule, false},
		{"never fires (Feb 30)", sched("0 0 30 2 *"), schedule, false},
		{"unknown time zone", zone("Mars/Olympus"), tz, false},
		{"time zone path traversal", zone("../../etc/passwd"), tz, false},
		{"empty time zone", zone(""), tz, true},
		{"Local time zone", zone("Local"), tz, true},
		{"negative startingDeadlineSeconds", func(cj *batchv1.CronJob) {
			cj.Spec.StartingDeadlineSeconds = ptr.To[int64](-1)
		}, "spec.startingDeadlineSeconds", true},
		{"negative successfulJobsHistoryLimit", func(cj *batchv1.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](-1)
		}, "spec.successfulJobsHistoryLimit", true},
		{"negative failedJobsHistoryLimit", func(cj *batchv1.CronJob) {
			cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](-3)
		}, "spec.failedJobsHistoryLimit", true},
		{"unknown concurrencyPolicy", func(cj *batchv1.CronJob) {
			cj.Spec.ConcurrencyPolicy = "Sometimes"
		}, "spec.concurrencyPolicy", true},
		{"53-character name", func(cj *batchv1.CronJob) {
			cj.Name = strings.Repeat("n", 53)
		}, "metadata.name", true},
		{"restartPolicy Always", pod(func(p *corev1.PodSpec) { p.RestartPolicy = corev1.RestartPolicyAlways }),
			podSpec + ".restartPolicy", true},
		{"restartPolicy unset", pod(func(p *corev1.PodSpec) { p.RestartPolicy = "" }),
			podSpec + ".restartPolicy", true},
		{"no containers", pod(func(p *corev1.PodSpec) { p.Containers = []corev1.Container{} }),
			podSpec + ".containers", true},
		{"container without image", pod(func(p *corev1.PodSpec) { p.Containers[0].Image = "" }),
			podSpec + ".containers[0].image", false},
		{"negative spread", func(cj *batchv1.CronJob) {
			cj.Spec.Spread = &metav1.Duration{Duration: -time.Second}
		}, "spec.spread", true},
		{"spread longer than the schedule's shortest interval", func(cj *batchv1.CronJob) {
			cj.Spec.Spread = &metav1.Duration{Duration: 90 * time.Second}
		}, "spec.spread", false},
		{"catchUp.maxRuns 0", func(cj *batchv1.CronJob) {
			cj.Spec.CatchUp = &batchv1.CatchUpPolicy{MaxRuns: ptr.To[int32](0)}
		}, "spec.catchUp.maxRuns", true},
		{"catchUp.maxRuns above 100", func(cj *batchv1.CronJob) {
			cj.Spec.CatchUp = &batchv1.CatchUpPolicy{MaxRuns: ptr.To[int32](101)}
		}, "spec.catchUp.maxRuns", true},
		{"lagObjectiveSeconds 0", func(cj *batchv1.CronJob) {
			cj.Spec.LagObjectiveSeconds = ptr.To[int64](0)
		}, "spec.lagObjectiveSeconds", true},
	}
}
