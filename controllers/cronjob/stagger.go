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
	"hash/fnv"
	"time"

	"k8s.io/apimachinery/pkg/types"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// staggerOffset is how long after each scheduled time a CronJob with this UID and spec.spread starts its
// runs: FNV-1a of the UID modulo the spread, in whole milliseconds, so in [0, spread). It depends on nothing
// else (not the controller replica, its start time or the clock), so every run of a CronJob has the same
// offset across restarts and leader changes, and CronJobs with the same schedule spread evenly over the
// window. A spread under a millisecond (or negative, possible with the webhook off) gives 0. Changing this function
// moves every staggered CronJob's runs.
func staggerOffset(uid types.UID, spread time.Duration) time.Duration {
	if spread < time.Millisecond {
		return 0
	}
	ms := uint64(spread / time.Millisecond)
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid)) // a hash.Hash never returns an error
	return time.Duration(h.Sum64()%ms) * time.Millisecond
}

// StartOffset is the CronJob's stagger offset: 0 without spec.spread. Exported so that measurements outside
// the controller (test/bench row P8) time each run from the same start time the controller uses.
func StartOffset(cj *batchv1.CronJob) time.Duration {
	if cj.Spec.Spread == nil {
		return 0
	}
	return staggerOffset(cj.UID, cj.Spec.Spread.Duration)
}
