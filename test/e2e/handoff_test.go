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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

// churn keeps changing a Guestbook's spec every 100ms so the leading manager always has a write to make; it
// returns a stop function.
func churn(k kube, ns, name string) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
			_, _ = k.tryIn("", "-n", ns, "patch", "guestbook", name, "--type=merge", "-p",
				fmt.Sprintf(`{"spec":{"size":%d}}`, 1+i%2))
		}
	}()
	return func() { close(done); wg.Wait() }
}

// handoff starts blue (leading) and green (standby), checks green is Ready and in shadow mode while blue
// leads, SIGTERMs blue and waits for green to write. It returns both managers' write spans.
func handoff(t *testing.T, k kube, ns, gb string, round int) (blue, green managerproc.WriteSpan) {
	t.Helper()
	on := "--kubeconfig=" + k.kubeconfig
	b := startManager(t, fmt.Sprintf("blue-%d", round), on, "--zap-log-level=1", "--zap-time-encoding=rfc3339nano")
	waitFor(t, 60*time.Second, "blue leads", func() (bool, string) { return b.Mode() == "leader", b.Mode() })
	g := startManager(t, fmt.Sprintf("green-%d", round), on, "--zap-log-level=1", "--zap-time-encoding=rfc3339nano")
	waitFor(t, 60*time.Second, "green Ready while blue leads", func() (bool, string) {
		return g.Ready() && g.Mode() == "standby", g.Mode()
	})
	stop := churn(k, ns, gb)
	// Blue writes under churn before the hand-off: a fixed pause was too short for a loaded machine's kubectl.
	waitFor(t, 60*time.Second, "blue writes under churn", func() (bool, string) {
		n := managerproc.WriteSpanOf(b.Logs()).Count
		return n > 0, fmt.Sprintf("%d writes", n)
	})
	b.Stop(syscall.SIGTERM)
	waitFor(t, 30*time.Second, "green leads and writes", func() (bool, string) {
		return g.Mode() == "leader" && managerproc.WriteSpanOf(g.Logs()).Count > 0, g.Mode()
	})
	time.Sleep(time.Second)
	stop()
	g.Stop(syscall.SIGTERM)
	return managerproc.WriteSpanOf(b.Logs()), managerproc.WriteSpanOf(g.Logs())
}

// TestLeadershipHandoffHasOneWriterAtATime runs two real manager processes against the same apiserver: the
// standby (green) is Ready and only shadows while blue leads; blue gets SIGTERM and green takes over. Across
// three hand-offs under constant churn, blue's last write always comes before green's first.
//
// It runs beside the other tests on a cluster of its own: its managers lead the main shard's Lease and
// reconcile every object in the cluster.
func TestLeadershipHandoffHasOneWriterAtATime(t *testing.T) {
	t.Parallel()
	ns := "e2e-handoff"
	k := ownCluster(t, "handoff")
	k.kubectl(t, "create", "namespace", "siteops-system")
	k.kubectl(t, "create", "namespace", ns)
	if out, err := k.tryIn(`
apiVersion: v1
kind: ConfigMap
metadata: {name: gbconfig}
data: {title: handoff}
---
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata: {name: gb}
spec: {size: 1, configMapName: gbconfig, alias: Name}
`, "-n", ns, "apply", "-f", "-"); err != nil {
		t.Fatalf("creating the Guestbook: %v\n%s", err, out)
	}
	for round := 0; round < 3; round++ {
		blue, green := handoff(t, k, ns, "gb", round)
		if blue.Count == 0 || green.Count == 0 {
			t.Fatalf("round %d: blue wrote %d times, green %d times; both must write", round, blue.Count, green.Count)
		}
		if !blue.Last.Before(green.First) {
			t.Fatalf("round %d: two writers at once: blue's last write %s is not before green's first %s",
				round, blue.Last.Format(time.RFC3339Nano), green.First.Format(time.RFC3339Nano))
		}
		t.Logf("round %d: hand-off gap %s (blue %d writes, green %d)",
			round, green.First.Sub(blue.Last), blue.Count, green.Count)
	}
}
