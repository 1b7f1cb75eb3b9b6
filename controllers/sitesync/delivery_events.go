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

	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// emitDeliveryEvents records one Warning per site that turned Degraded, OutOfSync or Unreachable after a
// rendered commit, with Argo CD's message: once per site, state and rendered commit. It also observes
// siteops_site_convergence_seconds for each site newly delivered at a revision this controller pushed.
func (r *Reconciler) emitDeliveryEvents(_ context.Context, run *scope) error {
	key := client.ObjectKeyFromObject(run.obj)
	for _, s := range run.obj.Status.Sites {
		if s.Delivery == gitopsv1alpha1.DeliveryDelivered {
			if d, ok := r.lag.converged(key, s.Name, s.LastRenderedRevision, r.Clock.Now()); ok {
				r.Metrics.converged(s.Name, d)
			}
			continue
		}
		reason := warningOf(s.Delivery)
		if reason == "" || s.RenderedCommit == "" {
			continue
		}
		if prev, ok := run.previous(s.Name); ok && prev.Delivery == s.Delivery && prev.RenderedCommit == s.RenderedCommit {
			continue
		}
		r.events().Warning(run.obj, reason, "site %s is %s on its cluster (Application %s, rendered commit %s): %s",
			s.Name, s.Delivery, s.Application, short(s.RenderedCommit), orNone(s.DeliveryMessage))
	}
	return nil
}

// warningOf is the event reason of a delivery state that needs a look, or "".
func warningOf(d gitopsv1alpha1.DeliveryState) string {
	switch d {
	case gitopsv1alpha1.DeliveryDegraded:
		return gitopsv1alpha1.EventSiteDegraded
	case gitopsv1alpha1.DeliveryOutOfSync:
		return gitopsv1alpha1.EventSiteOutOfSync
	case gitopsv1alpha1.DeliveryUnreachable:
		return gitopsv1alpha1.EventSiteUnreachable
	default:
		return ""
	}
}

func orNone(s string) string {
	if s == "" {
		return "Argo CD gave no message"
	}
	return s
}
