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
	"net/http/httptest"
	"testing"
)

// fakeCaches and fakeElector are one step's stand-ins: the check's logic is all that is tested here.
type fakeCaches struct {
	synced bool
	calls  int
}

func (c *fakeCaches) WaitForCacheSync(context.Context) bool { c.calls++; return c.synced }

type fakeElector struct{ decided bool }

func (e *fakeElector) Decided() bool { return e.decided }

// TestReadyOnlyOnceTheElectorDecidedAndTheCachesSynced: a manager is not Ready before its elector's first
// decision, nor before its caches have synced; once synced, it does not ask the caches again.
func TestReadyOnlyOnceTheElectorDecidedAndTheCachesSynced(t *testing.T) {
	caches, elector := &fakeCaches{}, &fakeElector{}
	r := &Readiness{Caches: caches, Elector: elector}
	req := httptest.NewRequest("GET", "/readyz", nil)
	if err := r.Check(req); err == nil {
		t.Fatal("Ready before the elector's first decision")
	}
	elector.decided = true
	if err := r.Check(req); err == nil {
		t.Fatal("Ready before the caches synced")
	}
	caches.synced = true
	if err := r.Check(req); err != nil {
		t.Fatalf("not Ready with the elector decided and the caches synced: %v", err)
	}
	caches.synced, caches.calls = false, 0
	if err := r.Check(req); err != nil || caches.calls != 0 {
		t.Fatalf("once synced: err %v, cache calls %d; want Ready without asking the caches", err, caches.calls)
	}
	if err := (&Readiness{Caches: &fakeCaches{synced: true}}).Check(req); err != nil {
		t.Fatalf("without siteops' elector, synced caches are enough: %v", err)
	}
}
