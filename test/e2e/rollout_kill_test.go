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
	"syscall"
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

// killActiveWhilePaused SIGKILLs the manager process of the active pod while the Rollout is paused on the
// preview pod, as the OOM killer or a crash would: no release, the Lease stays in the dead process' name. The
// harness plays the kubelet: the pod turns NotReady with its container terminated (137) and, after
// restartDelay (longer than the lease duration, so the Lease expires while the active colour runs no process),
// a new process starts in the same pod. Over the whole outage the preview never holds the Lease (the Lease's
// holder history by identity) and makes no API write (its own "api write" log lines: only dry runs); the
// restarted process, a new identity of the same pod, leads again. The Rollout stays paused on the preview.
func (u *upgradeRun) killActiveWhilePaused(active, activeHash, preview, previewHash string) {
	t := u.t
	t.Helper()
	dead, pre := u.pb.Process(active), u.pb.Process(preview)
	if dead == nil || pre == nil {
		t.Fatalf("no process for the active pod %s or the preview pod %s", active, preview)
	}
	before := u.leads(active, time.Minute)
	mark := u.leases.mark()
	t.Logf("$ kill -KILL %d  # the manager of active pod %s, Lease holder %s", dead.Pid(), active, before)
	if err := syscall.Kill(dead.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	podStatus := func(path string) string {
		return jsonpath("-n", upgradeSystem, "get", "pod", active, "-o", "jsonpath="+path)
	}
	waitFor(t, 30*time.Second, "the active pod NotReady, its container terminated by SIGKILL", func() (bool, string) {
		st := podStatus(`{.status.conditions[?(@.type=="Ready")].status}/` +
			`{.status.containerStatuses[0].state.terminated.exitCode}`)
		return st == "False/137", st
	})
	if u.pb.Process(active) != dead {
		t.Fatalf("pod %s's process restarted before the back-off", active)
	}
	waitFor(t, restartDelay+2*time.Minute, "a new process of pod "+active+" holds the Lease", func() (bool, string) {
		h := leaseHolder()
		return h != before && strings.HasPrefix(h, active+"_"), h
	})
	after, restarted := leaseHolder(), u.pb.Process(active)
	switch {
	case restarted == dead || restarted.Restarts != dead.Restarts+1:
		t.Fatalf("pod %s: the Lease holder %s is not a restarted process", active, after)
	case dead.Terminated():
		t.Fatalf("the harness counts the killed process as stopped by it (SIGTERM)")
	}
	// The pod's restarts count from its first process: one that exited on its own before the kill counts too.
	want := fmt.Sprintf("%d/137", dead.Restarts+1)
	if got := podStatus("{.status.containerStatuses[0].restartCount}/" +
		"{.status.containerStatuses[0].lastState.terminated.exitCode}"); got != want {
		t.Fatalf("pod %s restartCount/lastState exit code %q, want %s", active, got, want)
	}
	holders := u.leases.since(mark)
	t.Logf("Lease holders from the kill until the restarted process led: %q", holders)
	if got := heldBy(holders, preview); len(got) > 0 {
		t.Fatalf("the preview pod %s held the Lease during the outage: %v (holders %q)", preview, got, holders)
	}
	if last := holders[len(holders)-1]; last != after || len(heldBy(holders, active)) != len(heldBy(holders, "")) {
		t.Fatalf("the Lease went to someone other than pod %s's processes: %q", active, holders)
	}
	if w := managerproc.WriteSpanOf(pre.Logs()); w.Count != 0 {
		t.Fatalf("the preview pod %s's manager made %d API writes (not dry runs), the first at %s",
			preview, w.Count, w.First.Format(time.RFC3339Nano))
	}
	if strings.Contains(pre.Logs(), "started leading") {
		t.Fatalf("the preview pod %s's manager logged that it started leading", preview)
	}
	st := u.rollout("{.status.phase}/{.status.blueGreen.previewSelector}/{.status.blueGreen.activeSelector}")
	if want := fmt.Sprintf("Paused/%s/%s", previewHash, activeHash); st != want || u.active() != activeHash {
		t.Fatalf("after the restart the Rollout is %s (active Service on %q), want %s", st, u.active(), want)
	}
	t.Logf("pod %s's manager restarted (pid %d → %d) and leads again as %s; "+
		"the preview pod %s's manager: %d dry-run writes, none persisted",
		active, dead.Pid(), restarted.Pid(), after, preview, strings.Count(pre.Logs(), `"api write"`))
	u.specsUnchanged("after the active colour was killed and restarted")
}
