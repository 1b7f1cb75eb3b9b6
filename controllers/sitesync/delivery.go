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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/internal/kit"
)

// maxDeliveryMessageLen bounds Argo CD's message in a site's status.
const maxDeliveryMessageLen = 512

// observeDelivery reads the Argo CD Application of every site and records, per site, its synced revision,
// sync status, health, Argo CD's message and the delivery state, and in status.delivered how many sites are
// synced and healthy at their rendered commit. Without Argo CD's Application kind every site says
// NotObserved.
func (r *Reconciler) observeDelivery(ctx context.Context, run *scope) error {
	st := &run.obj.Status
	if !r.deliveryObserved {
		st.Delivered = ""
		for i := range st.Sites {
			r.setDelivery(run, &st.Sites[i], gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryNotObserved})
		}
		return nil
	}
	apps, err := listApplications(ctx, r.applications, run.obj)
	if err != nil {
		return err
	}
	run.apps = apps
	if len(apps) == 0 {
		// No Application names this SiteSync at all: Argo CD is there but does not deliver its sites the
		// labelled way (hand-written Applications, or none yet). Delivery is not observed, not failing.
		st.Delivered = ""
	}
	for i := range st.Sites {
		s := &st.Sites[i]
		app, found := apps[s.Name]
		d := judge(s.RenderedCommit, st.RenderedRevision, app, found)
		r.explainSilence(run, s.Name, app, &d)
		if !found {
			d.DeliveryMessage = fmt.Sprintf("no Argo CD Application in namespace %s is labelled %s=%s and %s=%s",
				run.obj.DeliveryNamespace(), gitopsv1alpha1.LabelSiteSync, run.obj.Name, gitopsv1alpha1.LabelSite, s.Name)
		}
		d.DeliveryMessage = kit.Truncate(run.redact.String(oneLine(d.DeliveryMessage)), maxDeliveryMessageLen)
		r.setDelivery(run, s, d)
	}
	if len(apps) > 0 {
		st.Delivered = deliveredCount(*st)
	}
	return nil
}

// deliveredCount is status.delivered, "2/3": how many sites are delivered at the revision the SiteSync is
// about. A site counts when it rendered, Argo CD reports it Synced and Healthy at its rendered commit
// (Delivered) and, with a rollout, the rollout has it at its revision: Unchanged by it, or Published. A site
// whose overlay failed to render runs an older output, and one the rollout holds Pending, Halted, Failed or
// Reverted does not run the revision: neither counts, whatever Argo CD says of what it runs.
func deliveredCount(st gitopsv1alpha1.SiteSyncStatus) string {
	state := map[string]gitopsv1alpha1.SiteRolloutState{}
	if st.Rollout != nil {
		for _, s := range st.Rollout.Sites {
			state[s.Name] = s.State
		}
	}
	delivered := 0
	for _, s := range st.Sites {
		if !s.Ready || s.Delivery != gitopsv1alpha1.DeliveryDelivered {
			continue
		}
		if st.Rollout != nil && state[s.Name] != gitopsv1alpha1.SiteUnchanged &&
			state[s.Name] != gitopsv1alpha1.SitePublished {
			continue
		}
		delivered++
	}
	return fmt.Sprintf("%d/%d", delivered, len(st.Sites))
}

// deliveryVerdict is Ready once every site rendered (rendered says so): True when every site is synced and
// healthy at its rendered commit, or when delivery is not observed (the message says why); False with
// ReasonSitesNotDelivered and the sites still on their way otherwise.
func deliveryVerdict(obj *gitopsv1alpha1.SiteSync, rendered string) *kit.Verdict {
	st := obj.Status
	if st.Delivered == "" {
		switch {
		case len(st.Sites) > 0 && st.Sites[0].Delivery == gitopsv1alpha1.DeliveryNotObserved:
			rendered += "; delivery is not observed: Argo CD's Application kind is not installed on this cluster"
		case len(st.Sites) > 0 && st.Sites[0].Delivery == gitopsv1alpha1.DeliveryNoApplication:
			rendered += fmt.Sprintf("; delivery is not observed: no Argo CD Application in namespace %s is labelled %s=%s",
				obj.DeliveryNamespace(), gitopsv1alpha1.LabelSiteSync, obj.Name)
		}
		return kit.True(gitopsv1alpha1.ReasonSucceeded, rendered)
	}
	var waiting []string
	for _, s := range st.Sites {
		if s.Delivery == gitopsv1alpha1.DeliveryDelivered {
			continue
		}
		w := fmt.Sprintf("%s %s", s.Name, s.Delivery)
		if s.Delivery != gitopsv1alpha1.DeliveryNoApplication && s.DeliveryMessage != "" {
			w += " (" + s.DeliveryMessage + ")"
		}
		waiting = append(waiting, w)
	}
	msg := fmt.Sprintf("%d of %d sites synced and healthy at their rendered revision", len(st.Sites)-len(waiting),
		len(st.Sites))
	if len(waiting) > 0 {
		return kit.False(gitopsv1alpha1.ReasonSitesNotDelivered, msg+"; not yet: "+strings.Join(waiting, "; "))
	}
	return kit.True(gitopsv1alpha1.ReasonSucceeded, msg+"; "+rendered)
}

// judge says where a site's rendered commit is, from its Application. Argo CD reports as synced revision the
// head of the rendered branch when it last looked, so both the site's rendered commit and the branch head
// (which holds the same folder) count as "at the rendered revision".
func judge(renderedCommit, head string, app appView, found bool) gitopsv1alpha1.SiteDelivery {
	if !found {
		return gitopsv1alpha1.SiteDelivery{RenderedCommit: renderedCommit, Delivery: gitopsv1alpha1.DeliveryNoApplication}
	}
	d := gitopsv1alpha1.SiteDelivery{
		RenderedCommit: renderedCommit, Application: app.Key, SyncedRevision: app.Revision,
		SyncStatus: app.SyncStatus, Health: app.Health, DeliveryMessage: app.Message, ManagerRollout: app.ManagerRollout,
	}
	atRendered := app.Revision != "" && (app.Revision == renderedCommit || app.Revision == head)
	switch {
	case app.Unreachable:
		d.Delivery = gitopsv1alpha1.DeliveryUnreachable
	case app.Health == "Degraded" || (app.Health == "Missing" && !app.Operating && !app.Settling):
		d.Delivery = gitopsv1alpha1.DeliveryDegraded
	case app.SyncStatus == "OutOfSync" && !app.Operating && !app.Settling:
		d.Delivery = gitopsv1alpha1.DeliveryOutOfSync
	case app.SyncStatus == "Synced" && app.Health == "Healthy" && atRendered && !app.Operating:
		d.Delivery = gitopsv1alpha1.DeliveryDelivered
	default:
		d.Delivery = gitopsv1alpha1.DeliveryPending
	}
	return d
}

// setDelivery writes d into s, keeping s's rendered commit, and since from the status as read while the
// delivery state, sync status and health are the same.
func (r *Reconciler) setDelivery(run *scope, s *gitopsv1alpha1.SiteStatus, d gitopsv1alpha1.SiteDelivery) {
	d.RenderedCommit = s.RenderedCommit
	now := metav1.NewTime(r.Clock.Now())
	d.Since = &now
	if prev, ok := run.previous(s.Name); ok && prev.Since != nil && prev.Delivery == d.Delivery &&
		prev.SyncStatus == d.SyncStatus && prev.Health == d.Health {
		d.Since = prev.Since
	}
	s.SiteDelivery = d
}

// oneLine keeps a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
