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

package dashboard

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
)

// The revision the scripted rollouts deliver, and the one the sites ran before.
const (
	newRevision = "4f9c2d1e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d"
	oldRevision = "c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4"
	oldRendered = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
	newRendered = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a291807"
)

// newTwoWaveSiteSync creates SiteSync shop in ns with waves canary (paris) and rest (berlin, tokyo).
func newTwoWaveSiteSync(tb testing.TB, ns string) *gitopsv1alpha1.SiteSync {
	tb.Helper()
	ss := sitesynctest.Valid(ns)
	ss.Name = "shop"
	ss.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "canary", Sites: []string{"paris"}},
		{Name: "rest", Sites: []string{"berlin", "tokyo"}}}
	if err := k8s.Create(context.Background(), ss); err != nil {
		tb.Fatal(err)
	}
	return ss
}

// rolloutStep is the status the SiteSync controller writes at one point of the rollout of newRevision: each
// site's place in the rollout, what it waits for, and its delivery as Argo CD reports it.
type rolloutStep struct {
	phase   gitopsv1alpha1.RolloutPhase
	wave    string
	message string
	sites   []stepSite
}

// stepSite is one site at a rolloutStep.
type stepSite struct {
	name, wave string
	state      gitopsv1alpha1.SiteRolloutState
	waitingFor string
	delivery   gitopsv1alpha1.DeliveryState
	health     string
	argoCD     string
}

// setStatus writes the step as the SiteSync's status, as the controller would.
func setStatus(tb testing.TB, ss *gitopsv1alpha1.SiteSync, step rolloutStep) {
	tb.Helper()
	ctx := context.Background()
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(ss), ss); err != nil {
		tb.Fatal(err)
	}
	now := metav1.NewTime(time.Now().Add(-90 * time.Second).Truncate(time.Second))
	ro := &gitopsv1alpha1.RolloutStatus{Phase: step.phase, Revision: newRevision, Wave: step.wave,
		Message: step.message}
	var sites []gitopsv1alpha1.SiteStatus
	delivered := 0
	for _, s := range step.sites {
		rs := gitopsv1alpha1.RolloutSite{Name: s.name, Wave: s.wave, State: s.state, WaitingFor: s.waitingFor}
		rendered, source := oldRendered, oldRevision
		if s.state != gitopsv1alpha1.SitePending {
			rs.PublishedAt, rendered, source = &now, newRendered, newRevision
		}
		ro.Sites = append(ro.Sites, rs)
		if s.delivery == gitopsv1alpha1.DeliveryDelivered {
			delivered++
		}
		sites = append(sites, gitopsv1alpha1.SiteStatus{Name: s.name, Ready: true, LastRenderedRevision: source,
			SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: rendered, Delivery: s.delivery,
				Application: "argocd/shop-" + s.name, SyncedRevision: rendered, SyncStatus: "Synced",
				Health: s.health, DeliveryMessage: s.argoCD, Since: &now}})
	}
	ss.Status = gitopsv1alpha1.SiteSyncStatus{SourceRevision: newRevision, RenderedRevision: newRendered,
		Sites: sites, Rollout: ro, LastSyncTime: &now, Conditions: []metav1.Condition{{
			Type: gitopsv1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: gitopsv1alpha1.ReasonSucceeded,
			Message: "every site rendered and published", LastTransitionTime: now,
			ObservedGeneration: ss.Generation}},
		Delivered: fmt.Sprintf("%d/%d", delivered, len(sites))}
	if err := k8s.Status().Update(ctx, ss); err != nil {
		tb.Fatal(err)
	}
}
