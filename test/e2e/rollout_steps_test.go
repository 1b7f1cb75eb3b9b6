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
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

// upgradeRun is one pod-backed upgrade scenario: the source copy and its rendered branch that Argo CD's
// Application app syncs, the harness, the Lease's holders, and the Guestbook/CronJob generations that
// no step may change.
type upgradeRun struct {
	t                    *testing.T
	pb                   *podBacked
	app                  string
	work, rendered, bare string
	leases               *leaseHistory
	gens                 string
	// analysis is the last pre-promotion AnalysisRun seen Successful.
	analysis string
}

const (
	upgradeSystem  = "siteops-system"
	upgradeSamples = "siteops-samples"
)

// rollout reads path of the manager Rollout.
func (u *upgradeRun) rollout(path string) string {
	return jsonpath("-n", upgradeSystem, "get", "rollout", "siteops-manager", "-o", "jsonpath="+path)
}

// active is the pod-template hash the active Service selects.
func (u *upgradeRun) active() string {
	return jsonpath("-n", upgradeSystem, "get", "svc", "siteops-webhook-service", "-o",
		"jsonpath={.spec.selector.rollouts-pod-template-hash}")
}

// show logs the Rollout as `kubectl argo rollouts get` prints it.
func (u *upgradeRun) show(when string) {
	u.t.Logf("%s:\n%s", when,
		kubectl(u.t, "argo", "rollouts", "-n", upgradeSystem, "get", "rollout", "siteops-manager", "--no-color"))
}

// specsUnchanged fails the test when a Guestbook or CronJob spec changed (its generation moved) since the
// samples were first reconciled.
func (u *upgradeRun) specsUnchanged(step string) {
	u.t.Helper()
	if after := generations(u.t, upgradeSamples); after != u.gens {
		u.t.Fatalf("%s: Guestbook/CronJob specs changed: before %s, after %s", step, u.gens, after)
	}
}

// setTag changes the manager image tag in overlays/local from one tag to another, commits, renders and has
// Argo CD look at once.
func (u *upgradeRun) setTag(from, to string) {
	u.t.Helper()
	editFile(u.t, u.work, "overlays/local/kustomization.yaml", "newTag: "+from, "newTag: "+to)
	git(u.t, u.work, "commit", "-qam", "local: manager "+to)
	renderLocal(u.t, u.work, u.rendered, u.bare)
	refreshApplication(u.t, u.app)
}

// pausedOnPreview waits for the Rollout to pause on a Ready preview pod of a template other than stable,
// whose pre-promotion analysis (a new run) read that pod's shadow report through the preview Service and
// succeeded; it returns the preview's hash and pod.
func (u *upgradeRun) pausedOnPreview(stable string) (hash, pod string) {
	t := u.t
	t.Helper()
	waitFor(t, 3*time.Minute, "Rollout Paused with a Ready preview pod", func() (bool, string) {
		preview := u.rollout("{.status.blueGreen.previewSelector}")
		phase := u.rollout("{.status.phase}")
		return phase == "Paused" && preview != "" && preview != stable && podOf(preview) != "", phase + " preview=" + preview
	})
	hash = u.rollout("{.status.blueGreen.previewSelector}")
	pod = podOf(hash)
	run := func() string {
		return u.rollout("{.status.blueGreen.prePromotionAnalysisRunStatus.name}/" +
			"{.status.blueGreen.prePromotionAnalysisRunStatus.status}")
	}
	waitFor(t, 2*time.Minute, "a new pre-promotion analysis Successful", func() (bool, string) {
		r := run()
		return strings.HasSuffix(r, "/Successful") && r != u.analysis, r
	})
	u.analysis = run()
	if got := u.pb.shadow.LastPod(); got != pod {
		t.Fatalf("the analysis read the shadow report of pod %q, want the preview pod %q", got, pod)
	}
	return hash, pod
}

// leads waits until the Lease is held by a process of pod and returns the holder.
func (u *upgradeRun) leads(pod string, within time.Duration) string {
	u.t.Helper()
	waitFor(u.t, within, "pod "+pod+"'s manager holds the Lease", func() (bool, string) {
		return strings.HasPrefix(leaseHolder(), pod+"_"), leaseHolder()
	})
	return leaseHolder()
}

// promote runs `kubectl argo rollouts promote` with the Rollout paused on preview pod to (hash toHash), the
// active colour being pod from (hash fromHash): to's manager takes the Lease while from's process still runs,
// admission moves to to's process, and after scaleDownDelaySeconds from's pod goes and the harness SIGTERMs
// its process. Between the promote and the hand-over only from and to hold the Lease.
func (u *upgradeRun) promote(from, fromHash, to, toHash string) {
	t := u.t
	t.Helper()
	old := u.pb.Process(from)
	if old == nil {
		t.Fatalf("no process for pod %s", from)
	}
	if h := leaseHolder(); !strings.HasPrefix(h, from+"_") || u.active() != fromHash {
		t.Fatalf("before promote: Lease holder %q, active %q; want pod %s and hash %s", h, u.active(), from, fromHash)
	}
	if got := admit(t, u.pb); got != from {
		t.Fatalf("admission reached pod %q during the paused upgrade, want the active pod %q", got, from)
	}
	if p := u.pb.Process(to); p == nil || managerproc.WriteSpanOf(p.Logs()).Count != 0 {
		t.Fatalf("the preview pod %s has no process, or its manager made API writes (not dry runs) before the promote", to)
	}
	u.show("before promote")
	mark := u.leases.mark()
	t.Logf("$ kubectl argo rollouts promote siteops-manager\n%s",
		kubectl(t, "argo", "rollouts", "-n", upgradeSystem, "promote", "siteops-manager"))
	u.leads(to, time.Minute)
	if old.Terminated() || exited(old.Exited()) {
		t.Fatalf("the old pod %s's process was stopped before the new pod %s's manager led", from, to)
	}
	for _, h := range u.leases.since(mark) {
		if h != "" && !holds(h, from) && !holds(h, to) {
			t.Fatalf("Lease held by %q during the promote from %s to %s (holders %v)", h, from, to, u.leases.since(mark))
		}
	}
	t.Logf("Lease holder after promote: %s (old pod %s's process still running, pid %d)", leaseHolder(), from, old.Pid())
	u.show("after promote")
	waitFor(t, 2*time.Minute, "admission reaches the new pod's process", func() (bool, string) {
		got := admit(t, u.pb)
		return got == to, got
	})
	waitFor(t, 2*time.Minute, "old pod scaled down and its process SIGTERMed by the harness", func() (bool, string) {
		return old.Terminated() && exited(old.Exited()) && podOf(fromHash) == "",
			fmt.Sprintf("terminated=%t pod=%q", old.Terminated(), podOf(fromHash))
	})
	waitFor(t, time.Minute, "Rollout Healthy on the new ReplicaSet", func() (bool, string) {
		return u.rollout("{.status.phase}") == "Healthy" && u.active() == toHash,
			u.rollout("{.status.phase}") + " active=" + u.active()
	})
	if h := leaseHolder(); !strings.HasPrefix(h, to+"_") {
		t.Fatalf("after the old pod went, the Lease is held by %q, want pod %s", h, to)
	}
	u.show("after scale-down")
}
