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
	"strings"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/internal/kit"
)

// heldVerdict is Ready False while the rollout holds its revision (Halted, Frozen, WaitingForApproval,
// Inconclusive, Paused): the rendered branch and the sites may all be in order, but that revision is not
// published to every site it changes. The message names the revision and what holds it. Otherwise it is
// toleratedVerdict; nil when nothing is held and no site failed.
func heldVerdict(ro *gitopsv1alpha1.RolloutStatus) *kit.Verdict {
	if ro == nil {
		return nil
	}
	var reason string
	switch ro.Phase {
	case gitopsv1alpha1.RolloutHalted:
		reason = gitopsv1alpha1.ReasonRolloutHalted
	case gitopsv1alpha1.RolloutFrozen:
		reason = gitopsv1alpha1.ReasonRolloutFrozen
	case gitopsv1alpha1.RolloutWaitingForApproval:
		reason = gitopsv1alpha1.ReasonWaitingForApproval
	case gitopsv1alpha1.RolloutInconclusive:
		reason = gitopsv1alpha1.ReasonAnalysisInconclusive
	case gitopsv1alpha1.RolloutPaused:
		reason = gitopsv1alpha1.ReasonRolloutPaused
	default:
		return toleratedVerdict(ro)
	}
	return kit.False(reason, fmt.Sprintf("%s is held (rollout %s): %s", short(ro.Revision), ro.Phase, ro.Message))
}

// toleratedVerdict is Ready False while sites failed within their wave's maxFailures (Failed or Reverted): the
// rollout goes on or is complete, but those sites do not run the revision. nil when none failed.
func toleratedVerdict(ro *gitopsv1alpha1.RolloutStatus) *kit.Verdict {
	var failed []string
	for _, s := range ro.Sites {
		if s.State == gitopsv1alpha1.SiteFailed || s.State == gitopsv1alpha1.SiteReverted {
			failed = append(failed, s.Name)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return kit.False(gitopsv1alpha1.ReasonRolloutSitesFailed, fmt.Sprintf("%s does not run on %d sites that failed "+
		"within their wave's maxFailures: %s (rollout %s: %s)", short(ro.Revision), len(failed),
		strings.Join(failed, ", "), ro.Phase, ro.Message))
}

// progressingVerdict is Reconciling True while the rollout is on its way by itself (Progressing, Soaking,
// Analyzing), naming the revision and what it waits for; nil otherwise.
func progressingVerdict(ro *gitopsv1alpha1.RolloutStatus) *kit.Verdict {
	if ro == nil {
		return nil
	}
	switch ro.Phase {
	case gitopsv1alpha1.RolloutProgressing, gitopsv1alpha1.RolloutSoaking, gitopsv1alpha1.RolloutAnalyzing:
		return kit.True(gitopsv1alpha1.ReasonRolloutProgressing,
			fmt.Sprintf("rollout %s at %s: %s", ro.Phase, short(ro.Revision), ro.Message))
	}
	return nil
}
