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

package kit

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// OwnWriteTimeout is how long a reconcile waits for the cache to show the controller's own status write
// before it goes ahead with what the cache holds.
const OwnWriteTimeout = 10 * time.Second

// OwnWrites remembers the resourceVersion of the last status a controller wrote to each object until the cache
// shows it. A reconcile that reads an older object from the cache (typically one that another object's event
// brings just after the status write) would compute the status again from stale inputs, as if the write had
// not happened, and send that; it waits instead for the update event the write itself brings. An entry is
// dropped after OwnWriteTimeout, so an event that never comes costs a late reconcile, never a stuck object.
// The cache lags in real time: a controller whose tests move a fake clock far ahead passes the process's time
// as now. The zero value is ready to use.
type OwnWrites struct {
	mu      sync.Mutex
	written map[types.NamespacedName]ownWrite
}

type ownWrite struct {
	resourceVersion string
	at              time.Time
}

// Wrote records that the status of key was written at now and stored at resourceVersion.
func (w *OwnWrites) Wrote(key types.NamespacedName, resourceVersion string, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.written == nil {
		w.written = map[types.NamespacedName]ownWrite{}
	}
	w.written[key] = ownWrite{resourceVersion: resourceVersion, at: now}
}

// Behind reports whether the object read from the cache at cachedVersion is older than the last status
// written to key, and how long to wait at most for the cache to catch up. It forgets the write once the
// cache shows it (or something newer), once OwnWriteTimeout has passed, or when a version does not compare.
func (w *OwnWrites) Behind(key types.NamespacedName, cachedVersion string, now time.Time) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.written[key]
	if !ok {
		return 0, false
	}
	waited := now.Sub(e.at)
	cmp, err := resourceversion.CompareResourceVersion(cachedVersion, e.resourceVersion)
	if err != nil || cmp >= 0 || waited >= OwnWriteTimeout || waited < 0 {
		delete(w.written, key)
		return 0, false
	}
	return OwnWriteTimeout - waited, true
}

// Forget drops what is remembered about key (the object is gone).
func (w *OwnWrites) Forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.written, key)
}
