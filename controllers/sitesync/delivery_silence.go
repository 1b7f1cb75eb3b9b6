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
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// argoCDSilence is how long an Application may keep the refresh siteops asked for before the site's status
// says Argo CD has not acted on it. Argo CD's application controller takes a refresh from its watch within
// seconds; a minute without one means it is down or far behind.
const argoCDSilence = time.Minute

// explainSilence says, in d's message, that Argo CD has not acted on the refresh siteops asked of a pending
// site's Application for argoCDSilence or longer, and when it last reconciled it. Before that, it asks for the
// reconcile that would say so. A site that is not pending, or whose Application carries no refresh this
// process asked for at the rendered branch's head, is left as judged.
func (r *Reconciler) explainSilence(run *scope, site string, app appView, d *gitopsv1alpha1.SiteDelivery) {
	if d.Delivery != gitopsv1alpha1.DeliveryPending || !app.RefreshAsked {
		return
	}
	asked, ok := r.refreshed.askedAt(client.ObjectKeyFromObject(run.obj), site, run.obj.Status.RenderedRevision)
	if !ok {
		return
	}
	waited := r.Clock.Now().Sub(asked)
	if waited < argoCDSilence {
		run.RequeueAfter(argoCDSilence - waited)
		return
	}
	last := "never"
	if app.ReconciledAt != "" {
		last = app.ReconciledAt
	}
	d.DeliveryMessage = fmt.Sprintf("Argo CD has not acted on the refresh asked at %s (it last reconciled the "+
		"Application at %s): its application controller is down or behind", asked.UTC().Format(time.RFC3339), last)
}
