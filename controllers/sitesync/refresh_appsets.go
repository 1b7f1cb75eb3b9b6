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

package sitesync

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// appSetRefreshAnnotation asks Argo CD's ApplicationSet controller to run its generators now rather than at
// its next poll (3 minutes for a Git generator). Its value is the time of the ask: Argo CD reconciles only when
// the annotations change, and a reconcile whose generator failed (the branch did not exist yet) leaves the
// annotation in place, so an ask that wrote the same value again would not be seen.
const appSetRefreshAnnotation = "argocd.argoproj.io/application-set-refresh"

// appSetGVK is Argo CD's ApplicationSet kind.
func appSetGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "ApplicationSet"}
}

// appSetAskAgain is how long a new site may go without its Application after siteops asked the ApplicationSets
// to run their generators before it asks again, at most appSetAsks times per branch head. Argo CD can miss an
// ask: an ApplicationSet reconcile that began before the annotation arrived clears it unread, and one whose
// repo-server still holds the branch's refs from before the push (3 minutes) generates nothing new.
const (
	appSetAskAgain = 15 * time.Second
	appSetAsks     = 8
)

// refreshApplicationSets asks the ApplicationSets that generate the sites' Applications to look at the
// rendered branch now, when the branch head wrote the folder of a site that has no Application yet (a new
// site): its Application then appears within seconds. While it does not, it asks again (appSetAskAgain). The
// ApplicationSets are those in the delivery namespace labelled gitops.siteops.dev/sitesync=<name>, as
// base/argocd's is. Without Argo CD's ApplicationSet kind it does nothing.
func (r *Reconciler) refreshApplicationSets(ctx context.Context, run *scope) error {
	head := run.obj.Status.RenderedRevision
	if !r.deliveryObserved || head == "" || !newSiteIn(run, head) {
		return nil
	}
	key := client.ObjectKeyFromObject(run.obj)
	now := r.Clock.Now()
	if !r.appSetAsks.due(key, head, now) {
		return nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(appSetGVK().GroupVersion().WithKind(appSetGVK().Kind + "List"))
	err := r.APIReader.List(ctx, list, client.InNamespace(run.obj.DeliveryNamespace()),
		client.MatchingLabels{gitopsv1alpha1.LabelSiteSync: run.obj.Name})
	switch {
	case meta.IsNoMatchError(err):
		return nil
	case err != nil:
		r.appSetAsks.undo(key)
		return fmt.Errorf("listing the ApplicationSets of the sites: %w", err)
	}
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, appSetRefreshAnnotation, appSetAskValue(now))
	for i := range list.Items {
		if err := r.Patch(ctx, &list.Items[i],
			client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
			r.appSetAsks.undo(key)
			return fmt.Errorf("annotating ApplicationSet %s/%s: %w", list.Items[i].GetNamespace(), list.Items[i].GetName(), err)
		}
	}
	if len(list.Items) > 0 {
		run.RequeueAfter(appSetAskAgain)
	}
	return nil
}

// appSetAskValue is the refresh annotation's value for an ask made at now.
func appSetAskValue(now time.Time) string { return now.UTC().Format(time.RFC3339Nano) }

// newSiteIn reports whether a site whose folder the commit head changed has no Application.
func newSiteIn(run *scope, head string) bool {
	for _, s := range run.obj.Status.Sites {
		if _, ok := run.apps[s.Name]; !ok && s.RenderedCommit == head {
			return true
		}
	}
	return false
}

// appSetAskTracker remembers, per SiteSync, the branch head its ApplicationSets were last asked to run their
// generators for, when, and how many times.
type appSetAskTracker struct {
	mu   sync.Mutex
	last map[types.NamespacedName]appSetAsk
}

type appSetAsk struct {
	head string
	at   time.Time
	n    int
}

func newAppSetAskTracker() *appSetAskTracker {
	return &appSetAskTracker{last: map[types.NamespacedName]appSetAsk{}}
}

// due records an ask for head at now and reports whether it is due: the first for head, or appSetAskAgain after
// the last one while fewer than appSetAsks were made.
func (t *appSetAskTracker) due(key types.NamespacedName, head string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	last, ok := t.last[key]
	if ok && last.head == head && (last.n >= appSetAsks || now.Sub(last.at) < appSetAskAgain) {
		return false
	}
	if !ok || last.head != head {
		last = appSetAsk{head: head}
	}
	t.last[key] = appSetAsk{head: head, at: now, n: last.n + 1}
	return true
}

// undo forgets key's last ask, after it failed.
func (t *appSetAskTracker) undo(key types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.last, key)
}

// forget drops key's record.
func (t *appSetAskTracker) forget(key types.NamespacedName) { t.undo(key) }
