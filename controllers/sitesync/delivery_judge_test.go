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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestJudgeSaysWhereARenderedCommitIs: a site is Delivered only when Synced and Healthy at its rendered
// commit or the branch head, with no sync in flight; Unreachable, Degraded and OutOfSync (when Argo CD is
// not syncing and will not by itself) need a look; anything else is on its way.
func TestJudgeSaysWhereARenderedCommitIs(t *testing.T) {
	const rendered, head, older = "c1", "c2", "c0"
	cases := []struct {
		name string
		app  appView
		want gitopsv1alpha1.DeliveryState
	}{
		{"synced healthy at rendered", appView{SyncStatus: "Synced", Health: "Healthy", Revision: rendered},
			gitopsv1alpha1.DeliveryDelivered},
		{"synced healthy at head", appView{SyncStatus: "Synced", Health: "Healthy", Revision: head},
			gitopsv1alpha1.DeliveryDelivered},
		{"synced healthy at an older commit", appView{SyncStatus: "Synced", Health: "Healthy", Revision: older},
			gitopsv1alpha1.DeliveryPending},
		{"healthy but a sync runs", appView{SyncStatus: "Synced", Health: "Healthy", Revision: rendered, Operating: true},
			gitopsv1alpha1.DeliveryPending},
		{"progressing", appView{SyncStatus: "Synced", Health: "Progressing", Revision: rendered},
			gitopsv1alpha1.DeliveryPending},
		{"suspended preview", appView{SyncStatus: "Synced", Health: "Suspended", Revision: rendered},
			gitopsv1alpha1.DeliveryPending},
		{"degraded", appView{SyncStatus: "Synced", Health: "Degraded", Revision: rendered}, gitopsv1alpha1.DeliveryDegraded},
		{"missing, not syncing", appView{SyncStatus: "OutOfSync", Health: "Missing", Revision: rendered},
			gitopsv1alpha1.DeliveryDegraded},
		{"missing while syncing", appView{SyncStatus: "OutOfSync", Health: "Missing", Revision: rendered, Operating: true},
			gitopsv1alpha1.DeliveryPending},
		{"out of sync, not syncing", appView{SyncStatus: "OutOfSync", Health: "Healthy", Revision: rendered},
			gitopsv1alpha1.DeliveryOutOfSync},
		{"out of sync before automated sync starts",
			appView{SyncStatus: "OutOfSync", Health: "Healthy", Revision: rendered, Settling: true},
			gitopsv1alpha1.DeliveryPending},
		{"missing before automated sync starts",
			appView{SyncStatus: "OutOfSync", Health: "Missing", Revision: rendered, Settling: true},
			gitopsv1alpha1.DeliveryPending},
		{"degraded under automated sync", appView{SyncStatus: "Synced", Health: "Degraded", Revision: rendered,
			Settling: true}, gitopsv1alpha1.DeliveryDegraded},
		{"out of sync while syncing", appView{SyncStatus: "OutOfSync", Health: "Healthy", Revision: rendered,
			Operating: true}, gitopsv1alpha1.DeliveryPending},
		{"never looked", appView{}, gitopsv1alpha1.DeliveryPending},
		{"cluster unreachable", appView{SyncStatus: "Unknown", Health: "Healthy", Revision: rendered, Unreachable: true},
			gitopsv1alpha1.DeliveryUnreachable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			d := judge(rendered, head, tc.app, true)
			g.Expect(d.Delivery).To(Equal(tc.want))
			g.Expect(d.RenderedCommit).To(Equal(rendered))
		})
	}
	NewWithT(t).Expect(judge(rendered, head, appView{}, false).Delivery).To(Equal(gitopsv1alpha1.DeliveryNoApplication))
}

// TestSyncDueOnlyWhenSomethingAsksForIt: a reconcile woken by an Application within the first half of the
// interval after a good sync only observes delivery, and requeues for the rest of the interval.
func TestSyncDueOnlyWhenSomethingAsksForIt(t *testing.T) {
	synced := func(mutate func(*gitopsv1alpha1.SiteSync)) *gitopsv1alpha1.SiteSync {
		ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Generation: 2}}
		ss.Spec.Interval = &metav1.Duration{Duration: 10 * time.Minute}
		at := metav1.NewTime(epoch)
		ss.Status = gitopsv1alpha1.SiteSyncStatus{ObservedGeneration: 2, LastSyncTime: &at, Conditions: []metav1.Condition{
			{Type: gitopsv1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: gitopsv1alpha1.ReasonSucceeded,
				ObservedGeneration: 2},
			{Type: gitopsv1alpha1.ConditionStalled, Status: metav1.ConditionFalse, Reason: gitopsv1alpha1.ReasonIdle},
		}}
		if mutate != nil {
			mutate(ss)
		}
		return ss
	}
	cases := []struct {
		name string
		obj  *gitopsv1alpha1.SiteSync
		at   time.Duration // after the last sync
		due  bool
		wait time.Duration
	}{
		{"woken by an Application soon after a sync", synced(nil), time.Minute, false, 9 * time.Minute},
		{"half the interval passed", synced(nil), 5 * time.Minute, true, 0},
		{"never synced", synced(func(s *gitopsv1alpha1.SiteSync) { s.Status.LastSyncTime = nil }), 0, true, 0},
		{"new spec", synced(func(s *gitopsv1alpha1.SiteSync) { s.Generation = 3 }), time.Minute, true, 0},
		{"new trigger", synced(func(s *gitopsv1alpha1.SiteSync) {
			s.Annotations = map[string]string{gitopsv1alpha1.RequestedAtAnnotation: "t2"}
		}), time.Minute, true, 0},
		{"after a failed sync",
			synced(func(s *gitopsv1alpha1.SiteSync) { s.Status.Conditions[0].Reason = gitopsv1alpha1.ReasonSyncFailed }),
			time.Minute, true, 0},
		{"stalled", synced(func(s *gitopsv1alpha1.SiteSync) { s.Status.Conditions[1].Status = metav1.ConditionTrue }),
			time.Minute, true, 0},
		{"sites not delivered yet", synced(func(s *gitopsv1alpha1.SiteSync) {
			s.Status.Conditions[0].Reason = gitopsv1alpha1.ReasonSitesNotDelivered
		}), time.Minute, false, 9 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			due, wait := syncDue(tc.obj, epoch.Add(tc.at))
			g.Expect(due).To(Equal(tc.due))
			g.Expect(wait).To(Equal(tc.wait))
		})
	}
}

// TestViewOfSeesAnUnreachableCluster: Argo CD's comparison error for a cluster it cannot list (to read live
// objects or the API versions to render for) makes the site unreachable; a manifest error of the same
// condition type does not. The messages are Argo CD 3.2's.
func TestViewOfSeesAnUnreachableCluster(t *testing.T) {
	app := func(msg string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"namespace": "argocd", "name": "siteops-b"},
			"status": map[string]any{
				"sync":       map[string]any{"status": "Unknown"},
				"conditions": []any{map[string]any{"type": "ComparisonError", "message": msg}},
			},
		}}
	}
	g := NewWithT(t)
	for _, msg := range []string{
		`Failed to load live state: error synchronizing cache state : failed to sync cluster https://127.0.0.1:6443: ` +
			`failed to load initial state of resource Deployment.apps: ` +
			`Get "https://127.0.0.1:6443/apis/apps/v1/deployments": connection refused`,
		`Failed to load target state: failed to get cluster version for cluster "https://127.0.0.1:6443": ` +
			`error synchronizing cache state : failed to sync cluster https://127.0.0.1:6443: connection refused`,
	} {
		down, err := viewOf(app(msg))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(down.Unreachable).To(BeTrue(), msg)
		g.Expect(down.Message).To(ContainSubstring("connection refused"))
	}
	bad, err := viewOf(app("Failed to load target state: failed to generate manifest: kustomize build failed"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(bad.Unreachable).To(BeFalse())
}

// TestViewOfSettlesOnlyUnderAutomatedSyncThatDidNotFail: an Application with automated sync whose last sync
// of the compared revision did not fail is settling (Argo CD will sync it); a failed sync of that revision,
// or no automated sync, is not; a failure at an older revision does not count.
func TestViewOfSettlesOnlyUnderAutomatedSyncThatDidNotFail(t *testing.T) {
	app := func(automated bool, phase, opRevision string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"namespace": "argocd", "name": "siteops-a"},
			"spec":     map[string]any{},
			"status": map[string]any{
				"sync":           map[string]any{"status": "OutOfSync", "revision": "c2"},
				"operationState": map[string]any{"phase": phase, "syncResult": map[string]any{"revision": opRevision}},
			},
		}}
		if automated {
			u.Object["spec"] = map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{"prune": true}}}
		}
		return u
	}
	cases := []struct {
		name     string
		u        *unstructured.Unstructured
		settling bool
	}{
		{"automated, last sync succeeded", app(true, "Succeeded", "c1"), true},
		{"automated, sync of this revision failed", app(true, "Failed", "c2"), false},
		{"automated, an older revision's sync failed", app(true, "Failed", "c1"), true},
		{"no automated sync", app(false, "Succeeded", "c1"), false},
	}
	for _, tc := range cases {
		v, err := viewOf(tc.u)
		if err != nil {
			t.Fatal(err)
		}
		if v.Settling != tc.settling {
			t.Errorf("%s: settling %v, want %v", tc.name, v.Settling, tc.settling)
		}
	}
}

// TestViewOfMessageNamesTheResourceThatHoldsTheSite: Argo CD 3 leaves the Application's health message empty,
// so the site's message is the first Degraded or Missing resource's, else the first Suspended one's (a manager
// Rollout paused on its preview: the site waits for a promote), else the last sync's.
func TestViewOfMessageNamesTheResourceThatHoldsTheSite(t *testing.T) {
	res := func(kind, name, health, msg string) map[string]any {
		return map[string]any{"group": "argoproj.io", "kind": kind, "name": name,
			"health": map[string]any{"status": health, "message": msg}}
	}
	app := func(health string, resources ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"namespace": "argocd", "name": "siteops-a"},
			"spec":     map[string]any{},
			"status": map[string]any{
				"sync":           map[string]any{"status": "Synced", "revision": "c1"},
				"health":         map[string]any{"status": health},
				"resources":      resources,
				"operationState": map[string]any{"phase": "Succeeded", "message": "successfully synced (all tasks run)"},
			},
		}}
	}
	paused := res("Rollout", managerRolloutName, "Suspended", "BlueGreenPause")
	cases := []struct {
		name         string
		u            *unstructured.Unstructured
		msg, rollout string
		wantDelivery gitopsv1alpha1.DeliveryState
	}{
		{"manager Rollout paused on its preview", app("Suspended", res("Rollout", "web", "Healthy", ""), paused),
			"Rollout siteops-manager: BlueGreenPause", "Suspended", gitopsv1alpha1.DeliveryPending},
		{"a Degraded resource comes first", app("Degraded", paused, res("Rollout", "web", "Degraded",
			"ProgressDeadlineExceeded")),
			"Rollout web: ProgressDeadlineExceeded", "Suspended", gitopsv1alpha1.DeliveryDegraded},
		{"all Healthy: the last sync's", app("Healthy", res("Rollout", managerRolloutName, "Healthy", "")),
			"successfully synced (all tasks run)", "Healthy", gitopsv1alpha1.DeliveryDelivered},
	}
	for _, tc := range cases {
		v, err := viewOf(tc.u)
		if err != nil {
			t.Fatal(err)
		}
		if v.Message != tc.msg || v.ManagerRollout != tc.rollout {
			t.Errorf("%s: message %q, manager Rollout %q; want %q, %q", tc.name, v.Message, v.ManagerRollout, tc.msg, tc.rollout)
		}
		if d := judge("c1", "c1", v, true); d.Delivery != tc.wantDelivery {
			t.Errorf("%s: delivery %s, want %s", tc.name, d.Delivery, tc.wantDelivery)
		}
	}
}
