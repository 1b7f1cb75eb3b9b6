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
	"slices"
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// budgetSites are the ten sites of TestWavesFailureBudgetsOnTenSites: namespaces of one cluster.
var budgetSites = []string{"budget-01", "budget-02", "budget-03", "budget-04", "budget-05", "budget-06",
	"budget-07", "budget-08", "budget-09", "budget-10"}

// noNodePatch is an overlay patch that puts web on a node that does not exist: the Deployment exceeds its
// progress deadline and Argo CD says Degraded.
const noNodePatch = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      nodeSelector: {siteops.dev/no-such-node: "true"}
`

// TestWavesFailureBudgetsOnTenSites runs issue 31's failure budgets on a fleet of ten sites. The sites are namespaces
// of the site cluster the waves tests share (siteHost): base/argocd's ApplicationSet, its destination changed to that
// cluster and namespace <site>, gives each site its Application, as for a cluster per site; siteops reads the
// Applications by their labels, whatever their destination. The waves are canary `10%` (budget-01, soak 5s), half `50%`
// (budget-02 to 06, maxFailures 1) and rest `100%` (budget-07 to 10, maxFailures 1, maxConcurrent 1); onFailure Revert,
// and no progressDeadline: a broken site fails by turning Degraded (its Deployment's progress deadline is 15s). Each
// wave has its own budget, so the change that breaks budget-04 (wave half) and budget-08 and budget-10 (wave rest,
// published one at a time in that order) by their overlays, which put web on a node that does not exist:
//  1. passes the canary;
//  2. goes on past budget-04 in wave half (FailureTolerated, 1/1, budget-04 reverted alone), which finishes
//     with its other four sites;
//  3. goes on past budget-08 in wave rest (1/1, reverted alone) to budget-09, and halts at budget-10, the
//     second failure of wave rest: RolloutHalted naming it, `(2 failures in wave rest, maxFailures 1)`,
//     budget-10 reverted, and `siteops status` shows the halt.
//
// The seven healthy sites end Synced and Healthy at the change, the three broken ones at their last healthy
// output. It runs beside other tests.
func TestWavesFailureBudgetsOnTenSites(t *testing.T) {
	t.Parallel()
	host := siteHost(t)
	f := newFleetOn(t, "budgets", host, fleetSource(budgetSites), `waves:
- name: canary
  sites: ["10%"]
  soak: 5s
- name: half
  sites: ["50%"]
  maxFailures: 1
- name: rest
  sites: ["100%"]
  maxFailures: 1
  maxConcurrent: 1
onFailure: Revert
`)
	waitFor(t, time.Minute, "manager Ready", func() (bool, string) { return f.mgr.Ready(), "" })
	waitFor(t, 8*time.Minute, "first rollout Complete, every site Delivered", func() (bool, string) {
		var got []string
		delivered := 0
		for _, s := range budgetSites {
			d := f.site(s, "delivery")
			if d == "Delivered" {
				delivered++
			}
			got = append(got, s+"="+d)
		}
		phase := f.rollout("phase")
		return phase == "Complete" && delivered == len(budgetSites),
			phase + " " + strings.Join(got, " ") + " " + f.rollout("message")
	})
	wave := map[string]string{"budget-01": "canary"}
	for _, s := range budgetSites[1:6] {
		wave[s] = "half"
	}
	for _, s := range budgetSites[6:] {
		wave[s] = "rest"
	}
	for _, s := range budgetSites {
		if got := f.rolloutSite(s, "wave"); got != wave[s] {
			t.Fatalf("%s is in wave %q, want %s: 10%%, 50%%, 100%% of ten sites give 1, 5 and 4", s, got, wave[s])
		}
	}
	f.transcript("first rollout complete")

	// One change: release 2 for every site, and web on a node that does not exist for three of them.
	broken := []string{"budget-04", "budget-08", "budget-10"}
	healthy := []string{"budget-01", "budget-02", "budget-03", "budget-05", "budget-06", "budget-07", "budget-09"}
	before := map[string]string{}
	for _, s := range broken {
		before[s] = f.renderedFolder(s)
		writeFile(t, f.work, "overlays/"+s+"/no-node.yaml", noNodePatch)
		editFile(t, f.work, "overlays/"+s+"/kustomization.yaml", "- path: site-values.yaml\n",
			"- path: site-values.yaml\n- path: no-node.yaml\n")
	}
	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	git(t, f.work, "add", ".")
	rev := f.push("release 2; web of budget-04, budget-08 and budget-10 on a node that does not exist")
	short12 := rev[:12]

	// 1. The canary passes.
	waitFor(t, 3*time.Minute, "wave half published", func() (bool, string) {
		got := f.rolloutSite("budget-02", "state")
		return got != "Pending" && got != "", got + " " + f.rollout("message")
	})
	f.waitEventLine(gitopsv1alpha1.EventWaveFinished, "wave canary: budget-01 Synced, Healthy and soaked at "+short12)

	// 2. Wave half goes on past budget-04, reverted alone, and finishes with its other sites.
	waitFor(t, 4*time.Minute, "wave half past budget-04, wave rest published", func() (bool, string) {
		got := f.rolloutSite("budget-04", "state") + " " + f.rolloutSite("budget-07", "state")
		return strings.HasPrefix(got, "Reverted ") && !strings.HasSuffix(got, " Pending"),
			got + " " + f.rollout("message")
	})
	if got := f.rolloutSite("budget-04", "waitingFor"); !strings.Contains(got,
		"failed within maxFailures (1/1 failures of wave half): budget-04 Degraded at "+short12) {
		t.Fatalf("budget-04 in the rollout waits for %q, want its failure within wave half's budget", got)
	}
	f.waitEventLine(gitopsv1alpha1.EventFailureTolerated, "wave half: budget-04 Degraded at "+short12,
		"1/1 failures, the rollout goes on")
	f.waitEventLine(gitopsv1alpha1.EventWaveFinished,
		"wave half: budget-02, budget-03, budget-05, budget-06 Synced, Healthy and soaked at "+short12)
	f.transcript("wave half finished past budget-04")

	// 3. Wave rest goes on past budget-08 and halts at budget-10, its second failure.
	const exceeded = "(2 failures in wave rest, maxFailures 1)"
	waitFor(t, 6*time.Minute, "rollout of "+short(rev)+" Halted at wave rest naming budget-10", func() (bool, string) {
		got := f.rollout("revision", "phase", "wave") + " " + f.rolloutSite("budget-10", "state")
		msg := f.rollout("message")
		return got == rev+"|Halted|rest Reverted" && strings.Contains(msg, "halted at wave rest: budget-10 ") &&
			strings.Contains(msg, exceeded), got + " " + msg
	})
	if got := f.rolloutSite("budget-08", "state", "waitingFor"); !strings.HasPrefix(got, "Reverted|") ||
		!strings.Contains(got, "failed within maxFailures (1/1 failures of wave rest): budget-08 Degraded at "+short12) {
		t.Fatalf("budget-08 in the rollout: %q, want Reverted within wave rest's budget", got)
	}
	if got := f.rolloutSite("budget-09", "state"); got != "Published" {
		t.Fatalf("budget-09, published after budget-08 failed, is %q in the halted rollout", got)
	}
	f.waitEventLine(gitopsv1alpha1.EventFailureTolerated, "wave rest: budget-08 Degraded at "+short12,
		"1/1 failures, the rollout goes on")
	f.waitEventLine(gitopsv1alpha1.EventRolloutHalted, "halted at wave rest: budget-10 Degraded at "+short12, exceeded)
	if got := jsonpath("-n", f.namespace, "get", "sitesync", "sites", "-o",
		`jsonpath={.status.conditions[?(@.type=="Ready")].reason}`); got != gitopsv1alpha1.ReasonRolloutHalted {
		t.Fatalf("Ready reason %q while halted, want %s", got, gitopsv1alpha1.ReasonRolloutHalted)
	}
	status := siteopsStatus(t, f.namespace)
	for _, want := range []string{"Halted at " + short12 + " (wave rest)", exceeded} {
		if !strings.Contains(status, want) {
			t.Fatalf("siteops status does not show %q:\n%s", want, status)
		}
	}
	f.transcript("halted at budget-10, the second failure of wave rest")

	// The healthy sites run the change; the broken ones their last healthy output, each reverted in a commit
	// of its own.
	for _, s := range healthy {
		f.waitDelivered(3*time.Minute, map[string]string{s: f.siteField(s, "renderedCommit")})
		if got := f.atSite(s, "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "2" {
			t.Fatalf("namespace %s of cluster %s: release %q, want 2", s, host, got)
		}
	}
	for _, s := range broken {
		commit := f.siteField(s, "renderedCommit")
		if msg := f.commitMessage(commit); !strings.Contains(msg, gitops.TrailerRevertOf+": ") ||
			!slices.Contains(strings.Split(msg, "\n"), gitops.TrailerSites+": "+s) {
			t.Fatalf("%s's rendered commit %s is not its own revert:\n%s", s, short(commit), msg)
		}
		if got := f.renderedFolder(s); got != before[s] {
			t.Fatalf("%s's folder after the revert differs from its last healthy output:\n%s\nwant:\n%s", s, got, before[s])
		}
		f.waitDelivered(3*time.Minute, map[string]string{s: commit})
		waitFor(t, 2*time.Minute, "namespace "+s+" of cluster "+host+" back on release 1", func() (bool, string) {
			got := f.atSite(s, "get", "deploy", "web", "-o",
				"jsonpath={.spec.template.spec.nodeSelector}|{.status.availableReplicas}") + "|" +
				f.atSite(s, "get", "cm", "site-info", "-o", "jsonpath={.data.release}")
			return got == "|2|1", got
		})
	}
	f.transcript("healthy sites at " + short12 + ", broken ones reverted")
}

// waitEventLine waits for an event of the SiteSync with reason whose message contains every one of parts.
func (f *fleet) waitEventLine(reason string, parts ...string) {
	f.t.Helper()
	waitFor(f.t, time.Minute, reason+" event with "+strings.Join(parts, " and "), func() (bool, string) {
		ev := f.eventLines("reason=" + reason)
		for _, line := range strings.Split(ev, "\n") {
			if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
				return true, ev
			}
		}
		return false, ev
	})
}
