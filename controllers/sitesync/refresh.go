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
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// refreshApplications asks Argo CD to look at the rendered branch now, not at its next poll (3 minutes by
// default): it annotates with argocd.argoproj.io/refresh=normal the Application of every site whose folder
// this sync's push changed, and of every site whose Application reports a revision that is neither the
// site's rendered commit nor the branch head (Argo CD last looked before a push that did not touch the
// site). Each Application is asked at most once per branch head, so an Application that follows another
// branch cannot loop.
func (r *Reconciler) refreshApplications(ctx context.Context, run *scope) error {
	st := run.obj.Status
	head := st.RenderedRevision
	if !r.deliveryObserved || head == "" {
		return nil
	}
	key := client.ObjectKeyFromObject(run.obj)
	var errs []error
	for _, s := range st.Sites {
		app, ok := run.apps[s.Name]
		if !ok {
			continue
		}
		changed := run.result.Pushed && s.RenderedCommit == head
		stale := app.Revision != "" && app.Revision != head && app.Revision != s.RenderedCommit && !app.Operating
		if (!changed && !stale) || !r.refreshed.first(key, s.Name, head, r.Clock.Now()) {
			continue
		}
		if err := r.refresh(ctx, app.Key); err != nil {
			r.refreshed.undo(key, s.Name)
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("asking Argo CD to refresh: %w", err)
	}
	return nil
}

// refresh sets Argo CD's refresh annotation on the Application namespace/name; a deleted one is skipped.
func (r *Reconciler) refresh(ctx context.Context, nsName string) error {
	ns, name, _ := strings.Cut(nsName, "/")
	app := newApplication()
	app.SetNamespace(ns)
	app.SetName(name)
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, refreshAnnotation, refreshNormal)
	if err := r.Patch(ctx, app, client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("annotating Application %s: %w", nsName, err)
	}
	return nil
}

// refreshTracker remembers, per SiteSync and site, the branch head an Application was last asked to refresh
// for, and when.
type refreshTracker struct {
	mu   sync.Mutex
	asks map[types.NamespacedName]map[string]refreshAsk
}

// refreshAsk is one refresh asked of a site's Application: for which branch head, and when.
type refreshAsk struct {
	head string
	at   time.Time
}

func newRefreshTracker() *refreshTracker {
	return &refreshTracker{asks: map[types.NamespacedName]map[string]refreshAsk{}}
}

// first records a refresh of site's Application for head, asked at now, and reports whether it is the first
// one.
func (t *refreshTracker) first(key types.NamespacedName, site, head string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.asks[key] == nil {
		t.asks[key] = map[string]refreshAsk{}
	}
	if t.asks[key][site].head == head {
		return false
	}
	t.asks[key][site] = refreshAsk{head: head, at: now}
	return true
}

// askedAt is when this process asked site's Application to refresh for head, if it did.
func (t *refreshTracker) askedAt(key types.NamespacedName, site, head string) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ask, ok := t.asks[key][site]
	return ask.at, ok && ask.head == head
}

// undo forgets site's last refresh, after it failed.
func (t *refreshTracker) undo(key types.NamespacedName, site string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.asks[key], site)
}

// forget drops key's record.
func (t *refreshTracker) forget(key types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.asks, key)
}
