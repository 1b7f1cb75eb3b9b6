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
)

// argoCDOutage is how long TestHubFaultsArgoCDControllerDownDuringAWave keeps Argo CD's application
// controller down: the two minutes.
const argoCDOutage = 2 * time.Minute

// TestHubFaultsArgoCDControllerDownDuringAWave stops Argo CD's application controller
// (`local-cluster.sh stop argocd-application-controller`) for two minutes right after wave canary's rendered
// commit is pushed (the push is held until the controller is down, so Argo CD cannot have synced it), and
// starts it again. While it is down, nobody tells siteops whether the canary runs the change: the canary's
// Application keeps saying Synced and Healthy at the previous commit. Every two seconds of the outage the
// rendered branch must not publish wave rest, and the status must say what the canary waits for (Argo CD at
// the new commit); once a minute has passed, the canary's message must say that Argo CD has not acted on the
// refresh siteops asked of it. After it: the rollout completes by itself, every site published once, wave
// rest's commit after the canary's, and the canary's deliveredAt is after the controller came back.
//
// It stops a component of the whole fleet, so it does not run beside other tests.
func TestHubFaultsArgoCDControllerDownDuringAWave(t *testing.T) {
	f := newFaultFleet(t, "hf-argocd", `waves:
- {name: canary, sites: ["%[1]s"], soak: 5s}
- {name: rest, sites: ["%[2]s", "%[3]s"]}
`)
	first := f.sourceHead()
	f.waitComplete(8*time.Minute, first)
	canary, rest := f.sites[0], f.sites[1:]

	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	hold := f.holdPush(sitesLine(canary))
	rev := f.announce("base: release 2")
	held := hold.wait(2*time.Minute, "wave canary's commit")
	localCluster(t, "stop", "argocd-application-controller")
	stopped := time.Now()
	t.Cleanup(func() { _ = tryLocalCluster("start", "argocd-application-controller") }) // when the test fails
	hold.release()
	t.Logf("Argo CD's application controller stopped with wave canary's commit %s pushed", short(held))
	waitFor(t, time.Minute, "the rollout of "+short(rev)+" recorded", func() (bool, string) {
		got := f.rollout("revision", "phase")
		return got == rev+"|Progressing", got
	})

	looks, said, silent := 0, map[string]int{}, ""
	for time.Since(stopped) < argoCDOutage {
		if n, _ := publishes(f.renderedLog(), rev); n[rest[0]]+n[rest[1]] > 0 {
			t.Fatalf("wave rest published while Argo CD's application controller was down: %v", n)
		}
		got := f.rollout("revision", "phase", inRollout(canary, "state"), inRollout(canary, "waitingFor")) + " " +
			f.site(canary, "delivery")
		said[got]++
		looks++
		if msg := f.site(canary, "deliveryMessage"); strings.HasPrefix(msg, "Argo CD has not acted on the refresh") {
			silent = msg
		}
		time.Sleep(2 * time.Second)
	}
	localCluster(t, "start", "argocd-application-controller")
	back := time.Now()
	t.Logf("Argo CD's application controller down %s; %d looks at the status during it said %v",
		back.Sub(stopped).Round(time.Second), looks, said)
	for s := range said {
		if !strings.HasPrefix(s, rev+"|Progressing|Published|Argo CD") {
			t.Fatalf("during the outage the status said %q, want wave canary Progressing, %s waiting for Argo CD", s, canary)
		}
	}
	if silent == "" {
		t.Fatalf("during the outage %s's status never said that Argo CD had not acted on the refresh asked of it",
			canary)
	}
	t.Logf("during the outage %s's status said: %s", canary, silent)

	f.waitComplete(6*time.Minute, rev)
	commits := f.checkPublishedOnce(rev, f.sites...)
	for _, s := range rest {
		f.checkWaveOrder(commits, canary, s, back)
	}
	delivered, err := time.Parse(time.RFC3339, f.rolloutSite(canary, "deliveredAt"))
	if err != nil || delivered.Before(back.Truncate(time.Second)) {
		t.Fatalf("%s delivered at %q, want after the controller came back at %s (%v)", canary,
			f.rolloutSite(canary, "deliveredAt"), back.UTC().Format(time.RFC3339), err)
	}
	f.waitEventLine(gitopsv1alpha1.EventWaveFinished, "wave canary: "+canary, short(rev))
	t.Logf("%s delivered at %s, after the controller came back at %s; %s published at %s", canary,
		delivered.Format(time.RFC3339), back.UTC().Format(time.RFC3339), rest[0], f.rolloutSite(rest[0], "publishedAt"))
	f.transcript("rollout complete after Argo CD's outage")
}

// TestHubFaultsHubAPIServerRestartedMidPublish SIGKILLs the hub's kube-apiserver while the manager publishes
// wave rest (`local-cluster.sh restart-apiserver 20`): wave rest's rendered commit is on the branch and the
// manager waits inside its push (pushHold) when the apiserver dies; the push then finishes while the apiserver
// is down, so the manager cannot record it in the status (nor renew its Lease) until it is back 20 s later. A
// manager process that exits meanwhile is started again, as its pod would be. Counted: every site published
// once (wave rest's commit is the held one, not made again), wave rest after the canary, the rollout complete
// by itself with the held commit in its history and a WaveStarted event for wave rest.
//
// It restarts the whole fleet's kube-apiserver, so it does not run beside other tests.
func TestHubFaultsHubAPIServerRestartedMidPublish(t *testing.T) {
	f := newFaultFleet(t, "hf-apiserver", `waves:
- {name: canary, sites: ["%[1]s"]}
- {name: rest, sites: ["%[2]s", "%[3]s"]}
`)
	first := f.sourceHead()
	f.waitComplete(8*time.Minute, first)
	canary, rest := f.sites[0], f.sites[1:]

	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	hold := f.holdPush(sitesLine(rest[0]))
	rev := f.push("base: release 2")
	held := hold.wait(4*time.Minute, "wave rest's commit")
	restarted := make(chan error, 1)
	go func() { restarted <- tryLocalCluster("restart-apiserver", "20") }()
	waitFor(t, 30*time.Second, "the hub's kube-apiserver down", func() (bool, string) {
		_, err := tryKubectl("get", "--raw", "/readyz")
		return err != nil, ""
	})
	hold.release()
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.mgr.Exited():
		t.Logf("the manager exited (code %d) while the apiserver was down; started again", f.mgr.ExitCode())
		f.restartManager("hf-apiserver-restarted")
	default:
		t.Logf("the manager ran on through the apiserver's restart")
	}
	t.Logf("hub kube-apiserver SIGKILLed inside the push of wave rest's commit %s, down 20 s, back", short(held))

	f.waitComplete(6*time.Minute, rev)
	commits := f.checkPublishedOnce(rev, f.sites...)
	if len(commits) != 2 || commits[1].sha != held {
		t.Fatalf("the rendered commits of %s are %+v, want the canary's and the held %s", short(rev), commits, short(held))
	}
	for _, s := range rest {
		f.checkWaveOrder(commits, canary, s, f.rolloutTime(canary, "deliveredAt"))
	}
	history := jsonpath("-n", f.namespace, "get", "sitesync", "sites", "-o",
		`jsonpath={.status.rollout.history[?(@.revision=="`+rev+`")].renderedCommits}`)
	if !strings.Contains(history, held) {
		t.Fatalf("the rollout history of %s lists rendered commits %s, not the held %s", short(rev), history, short(held))
	}
	f.waitEventLine(gitopsv1alpha1.EventWaveStarted, "wave rest")
	t.Logf("history of %s: rendered commits %s", short(rev), history)
	f.transcript("rollout complete after the apiserver's restart")
}
