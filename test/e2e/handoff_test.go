package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// writeSpan is the first and last API write (not dry run) a manager process logged.
type writeSpan struct {
	first, last time.Time
	count       int
}

// writeSpanOf reads the manager's JSON log lines "api write" (controllers/shadow, V(1)).
func writeSpanOf(log string) writeSpan {
	var s writeSpan
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			TS     string `json:"ts"` // --zap-time-encoding=rfc3339nano
			Msg    string `json:"msg"`
			DryRun bool   `json:"dryRun"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "api write" || line.DryRun {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, line.TS)
		if err != nil {
			continue
		}
		if s.count == 0 || t.Before(s.first) {
			s.first = t
		}
		if t.After(s.last) {
			s.last = t
		}
		s.count++
	}
	return s
}

// shadowMode reads GET /shadow of a manager: "shadow" or "leader".
func shadowMode(port int) string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/shadow", port))
	if err != nil {
		return ""
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	var s struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(b, &s)
	return s.Mode
}

// ready reports whether the manager's /readyz answers 200.
func (m *manager) ready() bool {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", m.probePort))
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// churn keeps changing a Guestbook's spec every 100ms so the leading manager always has a write to make; it
// returns a stop function.
func churn(t *testing.T, ns, name string) func() {
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
			_, _ = tryKubectl("-n", ns, "patch", "guestbook", name, "--type=merge", "-p",
				fmt.Sprintf(`{"spec":{"size":%d}}`, 1+i%2))
		}
	}()
	return func() { close(done); wg.Wait() }
}

// handoff starts blue (leading) and green (standby), checks green is Ready and in shadow mode while blue
// leads, SIGTERMs blue and waits for green to write. It returns both managers' write spans.
func handoff(t *testing.T, ns, gb string, round int) (blue, green writeSpan) {
	t.Helper()
	b := startManager(t, fmt.Sprintf("blue-%d", round), "--zap-log-level=1", "--zap-time-encoding=rfc3339nano")
	shadowPortBlue := b.shadowPort
	waitFor(t, 60*time.Second, "blue leads", func() (bool, string) { return shadowMode(shadowPortBlue) == "leader", shadowMode(shadowPortBlue) })
	g := startManager(t, fmt.Sprintf("green-%d", round), "--zap-log-level=1", "--zap-time-encoding=rfc3339nano")
	shadowPortGreen := g.shadowPort
	waitFor(t, 60*time.Second, "green Ready while blue leads", func() (bool, string) {
		return g.ready() && shadowMode(shadowPortGreen) == "shadow", shadowMode(shadowPortGreen)
	})
	stop := churn(t, ns, gb)
	time.Sleep(2 * time.Second) // let blue write under churn before the hand-off
	b.stop(syscall.SIGTERM)
	waitFor(t, 30*time.Second, "green leads and writes", func() (bool, string) {
		return shadowMode(shadowPortGreen) == "leader" && writeSpanOf(g.logs()).count > 0, shadowMode(shadowPortGreen)
	})
	time.Sleep(time.Second)
	stop()
	g.stop(syscall.SIGTERM)
	return writeSpanOf(b.logs()), writeSpanOf(g.logs())
}

// TestLeadershipHandoffHasOneWriterAtATime runs two real manager processes against the same apiserver: the
// standby (green) is Ready and only shadows while blue leads; blue gets SIGTERM and green takes over. Across
// three hand-offs under constant churn, blue's last write always comes before green's first.
func TestLeadershipHandoffHasOneWriterAtATime(t *testing.T) {
	ns := "e2e-handoff"
	kubectl(t, "create", "namespace", ns)
	apply(t, ns, `
apiVersion: v1
kind: ConfigMap
metadata: {name: gbconfig}
data: {title: handoff}
---
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata: {name: gb}
spec: {size: 1, configMapName: gbconfig, alias: Name}
`)
	for round := 0; round < 3; round++ {
		blue, green := handoff(t, ns, "gb", round)
		if blue.count == 0 || green.count == 0 {
			t.Fatalf("round %d: blue wrote %d times, green %d times; both must write", round, blue.count, green.count)
		}
		if !blue.last.Before(green.first) {
			t.Fatalf("round %d: two writers at once: blue's last write %s is not before green's first %s",
				round, blue.last.Format(time.RFC3339Nano), green.first.Format(time.RFC3339Nano))
		}
		t.Logf("round %d: hand-off gap %s (blue %d writes, green %d)", round, green.first.Sub(blue.last), blue.count, green.count)
	}
}
