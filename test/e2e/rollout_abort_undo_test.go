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
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

// abortPaused runs `kubectl argo rollouts abort` with the Rollout paused on the preview pod: the active
// colour's manager keeps the Lease under the same identity (the preview never holds it, nor writes), Argo
// Rollouts reports the Rollout Degraded and aborted and, after abortScaleDownDelaySeconds, scales the preview
// down: its pod goes and the harness SIGTERMs its process. Argo CD does not drive the update again on its own:
// abort writes the Rollout's status, not its spec, so the Application stays Synced and selfHeal has nothing
// to put back. As a user does after an abort, the bump is then reverted in Git; the Rollout's template is the
// stable one again and it turns Healthy on the active colour without a new ReplicaSet.
func (u *upgradeRun) abortPaused(active, activeHash, preview, previewHash string) {
	t := u.t
	t.Helper()
	pre := u.pb.Process(preview)
	if pre == nil {
		t.Fatalf("no process for the preview pod %s", preview)
	}
	holder := u.leads(active, time.Minute)
	mark := u.leases.mark()
	t.Logf("$ kubectl argo rollouts abort siteops-manager\n%s",
		kubectl(t, "argo", "rollouts", "-n", upgradeSystem, "abort", "siteops-manager"))
	waitFor(t, time.Minute, "Rollout Degraded and aborted", func() (bool, string) {
		st := u.rollout("{.status.phase}/{.status.abort}")
		return st == "Degraded/true", st
	})
	u.show("after abort")
	waitFor(t, 2*time.Minute, "the preview pod scaled down "+
		"and its process SIGTERMed by the harness", func() (bool, string) {
		return pre.Terminated() && exited(pre.Exited()) && podOf(previewHash) == "",
			fmt.Sprintf("terminated=%t pod=%q", pre.Terminated(), podOf(previewHash))
	})
	holders := u.leases.since(mark)
	if h := leaseHolder(); h != holder || u.active() != activeHash {
		t.Fatalf("after abort the Lease is held by %q and the active Service selects %q, want %s and %s",
			h, u.active(), holder, activeHash)
	}
	for _, h := range heldBy(holders, "") {
		if h != holder {
			t.Fatalf("the Lease changed hands during the abort: holders %q, want only %s", holders, holder)
		}
	}
	if w := managerproc.WriteSpanOf(pre.Logs()); w.Count != 0 || strings.Contains(pre.Logs(), "started leading") {
		t.Fatalf("the aborted preview pod %s's manager led or wrote: %d API writes (not dry runs)", preview, w.Count)
	}
	u.specsUnchanged("after abort")

	u.setTag("v0.2.0", "v0.1.0")
	// Argo CD runs one operation at a time: the revert waits for a sync still running (on a loaded machine the
	// bump's took two minutes), hence the Application's operation in what the wait last saw.
	waitFor(t, 4*time.Minute, "Rollout Healthy on the active colour "+
		"after the bump is reverted in Git", func() (bool, string) {
		st := u.rollout("{.status.phase}/{.status.stableRS}/{.status.abort}")
		return st == "Healthy/"+activeHash+"/" && u.active() == activeHash, st + " active=" + u.active() +
			" application " + jsonpath("-n", "argocd", "get", "application", u.app, "-o",
			"jsonpath={.status.sync.status}/{.status.sync.revision}/{.status.operationState.phase}: "+
				"{.status.operationState.message}")
	})
	if h := leaseHolder(); h != holder {
		t.Fatalf("after the revert the Lease is held by %q, want %s", h, holder)
	}
	u.show("after the revert in Git")
	u.specsUnchanged("after the revert in Git")
}

// undo runs `kubectl argo rollouts undo` after a completed promote, pod active (hash activeHash) leading:
// Argo Rollouts puts the previous revision's template (hash back) into the Rollout, scales its ReplicaSet up
// as the preview, runs the pre-promotion analysis and pauses; promote then moves leadership back to that
// colour the same way as any promote. Argo CD would undo the undo: Git still says v0.2.0, and selfHeal syncs
// Git's template back as soon as the live one differs. So, as an Argo CD user does for a manual rollback, the
// Application's auto-sync is turned off first (it then shows OutOfSync until Git says v0.1.0 too).
func (u *upgradeRun) undo(active, activeHash, back string) {
	t := u.t
	t.Helper()
	kubectl(t, "-n", "argocd", "patch", "application", u.app, "--type=json",
		"-p", `[{"op":"remove","path":"/spec/syncPolicy/automated"}]`)
	t.Logf("$ kubectl argo rollouts undo siteops-manager\n%s",
		kubectl(t, "argo", "rollouts", "-n", upgradeSystem, "undo", "siteops-manager"))
	hash, pod := u.pausedOnPreview(activeHash)
	if hash != back {
		t.Fatalf("undo made a preview of template %s, want the previous revision's %s", hash, back)
	}
	u.promote(active, activeHash, pod, hash)
	if img := u.rollout("{.spec.template.spec.containers[0].image}"); !strings.HasSuffix(img, ":v0.1.0") {
		t.Fatalf("after undo the Rollout runs image %q, want the previous revision's v0.1.0", img)
	}
	u.specsUnchanged("after undo")
}
