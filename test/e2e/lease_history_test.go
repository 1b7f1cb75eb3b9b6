//go:build e2e

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

package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// leaseHistory is every holderIdentity ("<pod>_<uuid>", "<pod>" when handed over, "" when released) of the
// managers' Lease in siteops-system, in order, as a watch of the Lease reports each change.
type leaseHistory struct {
	mu      sync.Mutex
	holders []string
}

// watchLeaseHolders records the Lease's holders from now until the test ends.
func watchLeaseHolders(t *testing.T, cs kubernetes.Interface) *leaseHistory {
	t.Helper()
	h := &leaseHistory{}
	lw := cache.NewFilteredListWatchFromClient(cs.CoordinationV1().RESTClient(), "leases", "siteops-system",
		func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", "siteops.siteops.dev").String()
		})
	inf := cache.NewSharedIndexInformer(lw, &coordinationv1.Lease{}, 0, cache.Indexers{})
	see := func(obj any) {
		if l, ok := obj.(*coordinationv1.Lease); ok {
			h.see(ptr.Deref(l.Spec.HolderIdentity, ""))
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    see,
		UpdateFunc: func(_, o any) { see(o) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the Lease watch did not sync")
	}
	return h
}

// see appends holder when it differs from the last one.
func (h *leaseHistory) see(holder string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.holders); n == 0 || h.holders[n-1] != holder {
		h.holders = append(h.holders, holder)
	}
}

// mark is a position in the history, for since.
func (h *leaseHistory) mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.holders)
}

// since is the holders recorded from position i on.
func (h *leaseHistory) since(i int) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.holders[min(i, len(h.holders)):]...)
}

// holds reports whether Lease holder h is pod's manager: "<pod>_<uuid>", or "<pod>" as the previous leader
// hands the Lease over.
func holds(h, pod string) bool {
	return h == pod || strings.HasPrefix(h, pod+"_")
}

// heldBy returns the holders of hs that belong to pod (holds); with pod "", every holder (not a release).
func heldBy(hs []string, pod string) []string {
	var got []string
	for _, h := range hs {
		if h != "" && (pod == "" || holds(h, pod)) {
			got = append(got, h)
		}
	}
	return got
}
