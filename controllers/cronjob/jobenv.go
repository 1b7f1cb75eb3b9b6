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
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// tellsScheduledTime reports whether the CronJob's Jobs get the scheduled time in their environment: with
// spec.spread or spec.catchUp a Job starts later than the time it is for, and its containers should know it.
// Without them the Job is exactly the template, as in the tutorial.
func tellsScheduledTime(cj *batchv1.CronJob) bool {
	return cj.Spec.Spread != nil || cj.Spec.CatchUp != nil
}

// setScheduledTimeEnv sets batchv1.ScheduledTimeEnv to at (RFC 3339) in every container and init container
// of the Job's pod template, unless the template already sets that variable.
func setScheduledTimeEnv(job *kbatchv1.Job, at string) {
	pod := &job.Spec.Template.Spec
	for _, containers := range [][]corev1.Container{pod.InitContainers, pod.Containers} {
		for i := range containers {
			c := &containers[i]
			if !hasEnv(c, batchv1.ScheduledTimeEnv) {
				c.Env = append(c.Env, corev1.EnvVar{Name: batchv1.ScheduledTimeEnv, Value: at})
			}
		}
	}
}

func hasEnv(c *corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return true
		}
	}
	return false
}
