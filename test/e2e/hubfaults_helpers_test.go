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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/publish"
)

// The hub fault tests (issue 34 item 5) run only with the build tags e2e and hubfaults: `make test-hub-faults`.
// Each runs a waves SiteSync over three sites that are namespaces of one site cluster of its own, injects one
// fault of the hub mid-rollout and counts, on the rendered branch, what the fault lost or made twice.

// faultFleet is a fleet of three sites, <ns>-1, <ns>-2 and <ns>-3, namespaces of the site cluster host.
type faultFleet struct {
	*fleet
	sites []string
}

// newFaultFleet starts a site cluster of the test's own and a fleet on it (newFleetOn) whose SiteSync has
// spec (YAML at the level of spec's fields; %[1]s, %[2]s and %[3]s in it are the three sites' names).
func newFaultFleet(t *testing.T, ns, spec string) *faultFleet {
	t.Helper()
	host := ownSites(t, ns)[0]
	sites := []string{ns + "-1", ns + "-2", ns + "-3"}
	spec = fmt.Sprintf(spec, sites[0], sites[1], sites[2])
	f := &faultFleet{fleet: newFleetOn(t, ns, host, fleetSource(sites), spec), sites: sites}
	waitFor(t, time.Minute, "manager Ready", func() (bool, string) { return f.mgr.Ready(), "" })
	return f
}

// waitComplete waits until the rollout of rev is Complete and every site Delivered.
func (f *faultFleet) waitComplete(timeout time.Duration, rev string) {
	f.t.Helper()
	waitFor(f.t, timeout, "rollout of "+short(rev)+" Complete, every site Delivered", func() (bool, string) {
		got := []string{f.rollout("revision", "phase")}
		delivered := 0
		for _, s := range f.sites {
			d := f.site(s, "delivery")
			if d == "Delivered" {
				delivered++
			}
			got = append(got, s+"="+d)
		}
		return got[0] == rev+"|Complete" && delivered == len(f.sites), strings.Join(got, " ") + " " + f.rollout("message")
	})
}

// sourceHead is the clone's HEAD: the source revision last committed.
func (f *faultFleet) sourceHead() string {
	f.t.Helper()
	return git(f.t, f.work, "rev-parse", "HEAD")
}

// restartManager SIGKILLs the fleet's manager, when it still runs, and starts a new one on the same shard, as
// the manager's pod is restarted; it returns the killed manager's exit code.
func (f *faultFleet) restartManager(name string) int {
	f.t.Helper()
	f.mgr.Stop(syscall.SIGKILL)
	code := f.mgr.ExitCode()
	f.mgr = startManager(f.t, name, shardFlag(f.namespace))
	return code
}

// renderedCommit is a commit of the rendered branch, read from its trailers.
type renderedCommit struct {
	sha, source, revertOf string
	sites                 []string
}

// renderedLog lists the commits of the rendered branch, newest first.
func (f *faultFleet) renderedLog() []renderedCommit {
	f.t.Helper()
	var out []renderedCommit
	for _, c := range strings.Split(git(f.t, f.bare, "log", "--format=%H%n%B%x00", "rendered"), "\x00") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		sha, body, _ := strings.Cut(c, "\n")
		rc := renderedCommit{sha: sha}
		for _, tr := range publish.ParseTrailers(body) {
			switch tr.Key {
			case gitops.TrailerSourceRevision:
				rc.source = tr.Value
			case gitops.TrailerRevertOf:
				rc.revertOf = tr.Value
			case gitops.TrailerSites:
				rc.sites = strings.Split(tr.Value, ",")
			}
		}
		out = append(out, rc)
	}
	return out
}

// publishes counts, per site, the rendered commits of source revision rev that give it that revision's output
// (reverts left out), and returns the commits in branch order, oldest first.
func publishes(log []renderedCommit, rev string) (map[string]int, []renderedCommit) {
	n := map[string]int{}
	var in []renderedCommit
	for _, c := range slices.Backward(log) {
		if c.source != rev || c.revertOf != "" {
			continue
		}
		in = append(in, c)
		for _, s := range c.sites {
			n[s]++
		}
	}
	return n, in
}

// revertsOf counts the rendered commits whose trailer Siteops-Revert-Of names commit.
func revertsOf(log []renderedCommit, commit string) int {
	n := 0
	for _, c := range log {
		if c.revertOf == commit {
			n++
		}
	}
	return n
}

// checkPublishedOnce fails the test unless every site of want is published exactly once by a rendered commit
// of rev and no other site is, and logs the counts; it returns the commits in branch order.
func (f *faultFleet) checkPublishedOnce(rev string, want ...string) []renderedCommit {
	f.t.Helper()
	log := f.renderedLog()
	n, commits := publishes(log, rev)
	var counts []string
	for _, s := range f.sites {
		counts = append(counts, fmt.Sprintf("%s %d", s, n[s]))
		wantN := 0
		if slices.Contains(want, s) {
			wantN = 1
		}
		if n[s] != wantN {
			f.t.Errorf("%s is published by %d rendered commits of %s, want %d", s, n[s], short(rev), wantN)
		}
	}
	f.t.Logf("rendered branch: %d commits in all, %d of %s; publishes per site: %s", len(log), len(commits), short(rev),
		strings.Join(counts, ", "))
	if f.t.Failed() {
		f.t.FailNow()
	}
	return commits
}

// checkWaveOrder fails the test unless the commit publishing later comes after the one publishing earlier on
// the rendered branch, and later's site was published (status.rollout.sites[].publishedAt) no earlier than
// notBefore: no wave was skipped.
func (f *faultFleet) checkWaveOrder(commits []renderedCommit, earlier, later string, notBefore time.Time) {
	f.t.Helper()
	at := func(site string) int {
		return slices.IndexFunc(commits, func(c renderedCommit) bool { return slices.Contains(c.sites, site) })
	}
	if i, j := at(earlier), at(later); i < 0 || j <= i {
		f.t.Fatalf("%s's rendered commit (%d) does not come after %s's (%d)", later, j, earlier, i)
	}
	published, err := time.Parse(time.RFC3339, f.rolloutSite(later, "publishedAt"))
	if err != nil || published.Before(notBefore.Truncate(time.Second)) {
		f.t.Fatalf("%s published at %q, want at or after %s (%v)", later, f.rolloutSite(later, "publishedAt"),
			notBefore.UTC().Format(time.RFC3339), err)
	}
}

// rolloutTime is a time of the site's entry in status.rollout.sites (e.g. deliveredAt), failing the test when
// it has none.
func (f *faultFleet) rolloutTime(site, field string) time.Time {
	f.t.Helper()
	at, err := time.Parse(time.RFC3339, f.rolloutSite(site, field))
	if err != nil {
		f.t.Fatalf("%s's %s in the rollout: %v", site, field, err)
	}
	return at
}

// pushHold holds open, with a post-receive hook of the fleet's bare repository, the push of the first commit
// to the rendered branch whose message matches a pattern: the commit is on the branch, and the manager that
// pushed it waits inside its push (go-git runs git-receive-pack and waits for it) until release, or two
// minutes. It is how a test stops the manager between a commit and its status patch.
type pushHold struct {
	t   *testing.T
	dir string
}

// holdPush installs the hook for pattern (grep -E, matched against each line of the commit message).
func (f *faultFleet) holdPush(pattern string) *pushHold {
	f.t.Helper()
	h := &pushHold{t: f.t, dir: f.t.TempDir()}
	hook := fmt.Sprintf(`#!/bin/sh
# Written by the siteops hub fault tests: holds open the push of the first rendered commit matching a pattern.
while read -r old new ref; do
  [ "$ref" = refs/heads/rendered ] && [ ! -e %[1]s/held ] || continue
  git log -1 --format=%%B "$new" | grep -Eq '%[2]s' || continue
  echo "$new" >%[1]s/held.tmp && mv %[1]s/held.tmp %[1]s/held
  i=0
  while [ ! -e %[1]s/release ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
done
exit 0
`, h.dir, pattern)
	path := filepath.Join(f.bare, "hooks", "post-receive")
	if err := os.WriteFile(path, []byte(hook), 0o755); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { h.release(); _ = os.Remove(path) })
	return h
}

// wait waits until the hook holds a push and returns the commit it holds.
func (h *pushHold) wait(timeout time.Duration, what string) string {
	h.t.Helper()
	var sha string
	waitFor(h.t, timeout, "the push of "+what+" held", func() (bool, string) {
		b, err := os.ReadFile(filepath.Join(h.dir, "held"))
		sha = strings.TrimSpace(string(b))
		return err == nil && sha != "", ""
	})
	return sha
}

// release lets the held push finish.
func (h *pushHold) release() {
	if err := os.WriteFile(filepath.Join(h.dir, "release"), nil, 0o644); err != nil {
		h.t.Errorf("releasing the held push: %v", err)
	}
}

// sitesLine is the grep -E pattern of a Siteops-Sites trailer that lists site.
func sitesLine(site string) string {
	return "^" + gitops.TrailerSites + ": (.*,)?" + site + "(,.*)?$"
}

// events lists the SiteSync's events with reason as "type message" lines.
func (f *faultFleet) events(reason string) []string {
	return slices.DeleteFunc(strings.Split(f.eventLines("reason="+reason), "\n"), func(s string) bool { return s == "" })
}
