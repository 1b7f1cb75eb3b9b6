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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// ownWriteTimeout is how long a reconcile waits for the cache to show the controller's own status write
// before it goes ahead with what the cache holds.
const ownWriteTimeout = 10 * time.Second

// ownWrites remembers the resourceVersion of the last status this controller wrote to each CronJob until the
// cache shows it. A reconcile that reads an older CronJob from the cache (typically the one a Job's create
// event brings just after the status write that recorded that Job) would compute the same status again from
// stale inputs and send it a second time; it waits instead for the update event the write itself brings.
// An entry is dropped after ownWriteTimeout, so an event that never comes costs a late reconcile, never a
// stuck CronJob. The zero value is ready to use.
type ownWrites struct {
	mu      sync.Mutex
	written map[types.NamespacedName]ownWrite
}

type ownWrite struct {
	resourceVersion string
	at              time.Time
}

// wrote records that the status of key was written at now and stored at resourceVersion.
func (w *ownWrites) wrote(key types.NamespacedName, resourceVersion string, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.written == nil {
		w.written = map[types.NamespacedName]ownWrite{}
	}
	w.written[key] = ownWrite{resourceVersion: resourceVersion, at: now}
}

// behind reports whether the CronJob read from the cache at cachedVersion is older than the last status
// written to key, and how long to wait at most for the cache to catch up. It forgets the write once the
// cache shows it (or something newer), once ownWriteTimeout has passed, or when a version does not compare.
func (w *ownWrites) behind(key types.NamespacedName, cachedVersion string, now time.Time) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.written[key]
	if !ok {
		return 0, false
	}
	waited := now.Sub(e.at)
	cmp, err := resourceversion.CompareResourceVersion(cachedVersion, e.resourceVersion)
	if err != nil || cmp >= 0 || waited >= ownWriteTimeout || waited < 0 {
		delete(w.written, key)
		return 0, false
	}
	return ownWriteTimeout - waited, true
}

// forget drops what is remembered about key (the CronJob is gone).
func (w *ownWrites) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.written, key)
}
