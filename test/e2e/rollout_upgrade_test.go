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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// TestUpgradeDrivenByArgoRollouts is the manager's blue/green upgrade with every manager a pod of the Rollout:
// test/podproc runs a real bin/manager for each pod kwok binds, with the pod's name and pod-template hash,
// writes its /readyz into the pod's Ready condition, restarts a process that dies in a pod that stays (the
// kubelet's part), SIGTERMs it when the pod goes, and plays kube-proxy for the active Service's webhook port
// and the preview Service's shadow port. The test itself starts and stops no manager:
//  1. Argo CD syncs the local site (rendered by the siteops CLI); the Rollout's first pod leads;
//  2. an image bump pauses the Rollout with a preview pod whose manager stands by; the pre-promotion analysis
//     reads the preview's shadow report through the preview Service (HTTPS, shadow-reader token);
//  3. the active pod's process is SIGKILLed while paused: the preview neither leads nor writes, and the active
//     colour leads again once its process is restarted in the same pod (killActiveWhilePaused);
//  4. `kubectl argo rollouts abort`: the active colour keeps leading, the preview pod goes; the bump is reverted
//     in Git (abortPaused);
//  5. the bump again, then `kubectl argo rollouts promote`: the new pod's manager takes the Lease while the old
//     pod's process still runs; Argo Rollouts scales the old pod down after scaleDownDelaySeconds and the
//     harness SIGTERMs its process (promote);
//  6. `kubectl argo rollouts undo`, with Argo CD's auto-sync off: a preview of the previous template, then
//     promote moves leadership back the same way (undo).
//
// No step changes a Guestbook or CronJob spec.
//
// It runs beside other tests, holding the hub's manager Rollout, webhooks and main-shard Lease (hubManager):
// the Lease's holders must be this Rollout's pods only.
func TestUpgradeDrivenByArgoRollouts(t *testing.T) {
	t.Parallel()
	hold(t, &hubManager)
	// 1. Argo CD syncs; the first pod's manager leads.
	u, blue, blueHash := deployUpgradeRun(t, "siteops-pods", nil, 20)
	pb := u.pb

	// 2. An image bump: the Rollout pauses with a preview pod; its analysis reads the preview's report.
	u.setTag("v0.1.0", "v0.2.0")
	greenHash, green := u.pausedOnPreview(blueHash)
	if got := admit(t, pb); got != blue {
		t.Fatalf("admission reached pod %q during the paused upgrade, want the active pod %q", got, blue)
	}
	u.specsUnchanged("paused on the preview")

	// 3. The active colour killed while paused; 4. abort, and the bump reverted in Git.
	u.killActiveWhilePaused(blue, blueHash, green, greenHash)
	u.abortPaused(blue, blueHash, green, greenHash)

	// 5. The bump again; promote: the new pod's manager leads while the old one still runs.
	u.setTag("v0.1.0", "v0.2.0")
	hash, green := u.pausedOnPreview(blueHash)
	if hash != greenHash {
		t.Fatalf("the bump again made a preview of template %s, want %s as the first time", hash, greenHash)
	}
	u.promote(blue, blueHash, green, greenHash)
	u.specsUnchanged("after promote")

	// 6. Undo: leadership moves back to the previous template's colour at promote.
	u.undo(green, greenHash, blueHash)
}

// admit sends a CronJob create through admission (a server-side dry run) and returns the pod whose process the
// active Service's proxy sent the last webhook connection to. The apiserver keeps webhook connections alive,
// and like kube-proxy the proxy leaves an established connection to its pod: after a promote the old colour
// answers on it until it closes.
func admit(t *testing.T, pb *podBacked) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "samples", "batch_v1_cronjob.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	probe := strings.Replace(string(b), "name: cronjob-sample", "name: e2e-admission-probe", 1)
	if out, err := tryKubectlIn(probe, "-n", "siteops-samples", "create", "--dry-run=server", "-f", "-"); err != nil {
		t.Fatalf("a CronJob through admission: %v\n%s", err, out)
	}
	return pb.webhook.LastPod()
}

// exited reports whether ch is closed.
func exited(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
