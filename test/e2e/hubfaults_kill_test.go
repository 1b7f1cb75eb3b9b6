//go:build e2e && hubfaults

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
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// TestHubFaultsManagerKilledWhileAWaveSoaks SIGKILLs the manager while wave canary (<ns>-1, soak 45s) soaks a
// base change, and starts a new one at once, on the same shard: the soak's end is then only in the SiteSync's
// status (status.rollout.sites[].soakUntil), not in the killed manager's requeue. The new manager must neither
// publish wave rest early (a skipped wave: the soak forgotten) nor wait for ever (the wake-up forgotten) nor
// soak again from its own start. Counted on the rendered branch: every site published once, wave rest's commit
// after canary's and at or after the soak's end as read before the kill; the rollout completes by itself and a
// WaveFinished event says the canary soaked.
func TestHubFaultsManagerKilledWhileAWaveSoaks(t *testing.T) {
	t.Parallel()
	f := newFaultFleet(t, "hf-soak", `waves:
- {name: canary, sites: ["%[1]s"], soak: 45s}
- {name: rest, sites: ["%[2]s", "%[3]s"]}
`)
	first := f.sourceHead()
	f.waitComplete(8*time.Minute, first)

	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	rev := f.push("base: release 2")
	canary, rest := f.sites[0], f.sites[1:]
	var soakUntil string
	waitFor(t, 4*time.Minute, "wave canary soaking "+short(rev), func() (bool, string) {
		got := f.rollout("revision", "phase", inRollout(canary, "soakUntil"))
		v := strings.Split(got, "|")
		soakUntil = v[len(v)-1]
		return strings.HasPrefix(got, rev+"|Soaking|") && soakUntil != "", got + " " + f.rollout("message")
	})
	end, err := time.Parse(time.RFC3339, soakUntil)
	if err != nil {
		t.Fatal(err)
	}
	if !time.Now().Before(end) {
		t.Logf("the soak ended (%s) before the kill: the new manager finds it over", soakUntil)
	}
	code := f.restartManager("hf-soak-after-kill")
	t.Logf("manager SIGKILLed while %s soaked until %s (exit code %d); a new one started", canary, soakUntil, code)

	f.waitComplete(6*time.Minute, rev)
	commits := f.checkPublishedOnce(rev, f.sites...)
	for _, s := range rest {
		f.checkWaveOrder(commits, canary, s, end)
	}
	f.waitEventLine(gitopsv1alpha1.EventWaveFinished, "wave canary: "+canary, short(rev))
	t.Logf("%s published at %s, %s at %s; the soak ended %s", canary, f.rolloutSite(canary, "publishedAt"),
		rest[0], f.rolloutSite(rest[0], "publishedAt"), soakUntil)
	f.transcript("rollout complete after the kill")
}

// TestHubFaultsManagerKilledWhileARevertIsCommitted breaks wave canary's site with a change (its web on a node
// that does not exist, so Argo CD says Degraded) under onFailure Revert, and SIGKILLs the manager in the middle
// of committing the revert: the revert commit is on the rendered branch, and the manager that pushed it waits
// inside its push (pushHold) when it is killed, so the SiteSync's status still says the site is Halted at the
// broken commit, not Reverted. That is the hard moment: a manager that trusted its status would commit the
// revert a second time. Counted: exactly one Siteops-Revert-Of commit for the failed commit, the broken change
// published once to the canary and never to wave rest, the site Delivered at the revert, the rollout Halted
// and the site Reverted in the status, with RolloutHalted and SiteReverted events, without anyone acting.
func TestHubFaultsManagerKilledWhileARevertIsCommitted(t *testing.T) {
	t.Parallel()
	f := newFaultFleet(t, "hf-revert", `waves:
- {name: canary, sites: ["%[1]s"]}
- {name: rest, sites: ["%[2]s", "%[3]s"]}
onFailure: Revert
`)
	first := f.sourceHead()
	f.waitComplete(8*time.Minute, first)
	canary := f.sites[0]
	healthy := f.renderedFolder(canary)

	writeFile(t, f.work, "overlays/"+canary+"/no-node.yaml", noNodePatch)
	editFile(t, f.work, "overlays/"+canary+"/kustomization.yaml", "- path: site-values.yaml\n",
		"- path: site-values.yaml\n- path: no-node.yaml\n")
	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	git(t, f.work, "add", ".")
	hold := f.holdPush("^" + gitops.TrailerRevertOf + ": ")
	rev := f.push("release 2; the canary's web on a node that does not exist")
	broken := f.renderedHead()

	revert := hold.wait(5*time.Minute, "the revert")
	code := f.restartManager("hf-revert-after-kill")
	hold.release()
	t.Logf("manager SIGKILLed inside the push of revert %s (exit code %d); status then: %s %s", short(revert), code,
		f.rollout("phase"), f.rolloutSite(canary, "state"))

	waitFor(t, 4*time.Minute, "rollout of "+short(rev)+" Halted, "+canary+" Reverted", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave", inRollout(canary, "state"))
		return got == rev+"|Halted|canary|Reverted", got + " " + f.rollout("message")
	})
	f.waitDelivered(4*time.Minute, map[string]string{canary: revert})
	log := f.renderedLog()
	n := revertsOf(log, broken)
	t.Logf("Siteops-Revert-Of %s: %d rendered commit(s); rendered head %s", short(broken), n, short(f.renderedHead()))
	if n != 1 || log[0].sha != revert {
		t.Fatalf("%d revert commits of %s (want 1), head %s (want the revert %s)", n, short(broken), short(log[0].sha),
			short(revert))
	}
	f.checkPublishedOnce(rev, canary)
	if got := f.renderedFolder(canary); got != healthy {
		t.Fatalf("%s's folder after the revert is not its last healthy output:\n%s\nwant:\n%s", canary, got, healthy)
	}
	f.waitEventLine(gitopsv1alpha1.EventRolloutHalted, "halted at wave canary: "+canary)
	f.waitEventLine(gitopsv1alpha1.EventSiteReverted, "site "+canary)
	t.Logf("events: %q", f.events(gitopsv1alpha1.EventSiteReverted))
	f.transcript("halted and reverted after the kill")
}

// TestHubFaultsManagerKilledRightAfterAnApproval approves wave approved (<ns>-2, requireApproval) with
// `kubectl annotate` and SIGKILLs the manager right after the annotation is acted on: the approved wave's
// rendered commit is on the branch and the manager waits inside its push (pushHold), so nothing in the status
// says the wave was approved or published. Killing it earlier (before it read the annotation) is the easy
// case: the annotation is in the apiserver and siteops never removes it. Here the new manager finds the
// site's folder already at the revision, its status Pending on an approval. Counted: the approved site and
// wave rest's site published once each without a second annotation, wave rest published only once the
// approved site was Delivered (deliveredAt), the approval recorded in the rollout's history (approvedBy), the
// rollout Complete by itself.
func TestHubFaultsManagerKilledRightAfterAnApproval(t *testing.T) {
	t.Parallel()
	f := newFaultFleet(t, "hf-approve", `waves:
- {name: canary, sites: ["%[1]s"]}
- {name: approved, sites: ["%[2]s"], requireApproval: true}
- {name: rest, sites: ["%[3]s"]}
`)
	approve := func(rev string) {
		kubectl(t, "-n", f.namespace, "annotate", "--overwrite", "sitesync", "sites",
			gitopsv1alpha1.ApproveAnnotationPrefix+"approved="+rev)
	}
	first := f.sourceHead()
	approve(first)
	f.waitComplete(8*time.Minute, first)
	canary, approved, rest := f.sites[0], f.sites[1], f.sites[2]

	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	hold := f.holdPush(sitesLine(approved))
	rev := f.push("base: release 2")
	waitFor(t, 4*time.Minute, "rollout of "+short(rev)+" WaitingForApproval at wave approved", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave")
		return got == rev+"|WaitingForApproval|approved", got + " " + f.rollout("message")
	})
	approve(rev)
	held := hold.wait(2*time.Minute, "the approved wave's commit")
	code := f.restartManager("hf-approve-after-kill")
	hold.release()
	t.Logf("manager SIGKILLed inside the push of %s, the approved wave's commit (exit code %d); status then: %s",
		short(held), code, f.rollout("phase", "wave", inRollout(approved, "state")))

	f.waitComplete(6*time.Minute, rev)
	commits := f.checkPublishedOnce(rev, f.sites...)
	if len(commits) < 2 || !strings.Contains(strings.Join(commits[1].sites, ","), approved) || commits[1].sha != held {
		t.Fatalf("the approved wave's commit is not %s, the held one: %+v", short(held), commits)
	}
	f.checkWaveOrder(commits, canary, approved, f.rolloutTime(canary, "deliveredAt"))
	f.checkWaveOrder(commits, approved, rest, f.rolloutTime(approved, "deliveredAt"))
	by := jsonpath("-n", f.namespace, "get", "sitesync", "sites", "-o",
		`jsonpath={.status.rollout.history[?(@.revision=="`+rev+`")].waves[?(@.name=="approved")].approvedBy}`)
	t.Logf("history of %s: wave approved approvedBy %q", short(rev), by)
	if by == "" {
		t.Fatalf("the rollout history of %s does not record wave approved's approval", short(rev))
	}
	f.transcript("rollout complete after the kill")
}
