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

package leadership

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"
)

// cacheSyncProbe is how long one readiness check waits for the caches to sync.
const cacheSyncProbe = 100 * time.Millisecond

// Readiness is the manager's warm-up check in /readyz: Ready means able to take over at once. A manager turns
// Ready only once its caches are synced and its elector has seen the Lease and the active Service, so that a
// blue/green preview promoted as soon as it is Ready leads on the next watch event, with warm caches, and its
// start-up is over before the promote rather than during it. Holding the lease is never part of it: the
// preview must become Ready while the active colour leads.
type Readiness struct {
	// Caches is the manager's cache.
	Caches interface{ WaitForCacheSync(context.Context) bool }
	// Elector is siteops' elector, nil with another election or none.
	Elector interface{ Decided() bool }
	// synced is set once the caches have synced; informers do not lose it.
	synced atomic.Bool
}

// Check is the readyz check.
func (r *Readiness) Check(req *http.Request) error {
	if r.Elector != nil && !r.Elector.Decided() {
		return errors.New("the leader election has not seen the Lease and the active Service yet")
	}
	if r.synced.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(req.Context(), cacheSyncProbe)
	defer cancel()
	if !r.Caches.WaitForCacheSync(ctx) {
		return errors.New("the caches have not synced yet")
	}
	r.synced.Store(true)
	return nil
}
