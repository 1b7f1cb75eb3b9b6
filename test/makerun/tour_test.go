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

package makerun

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTourRunsAsWritten runs the tour `make run` prints, its commands as printed, in a shell with its
// exports: both sites of the fleet (dev and prod, the product's own base/ and overlays) become Delivered; a
// push to overlays/dev is delivered to site dev's cluster (the Guestbook at its new size there); a site added
// as the tour says (a copied overlay, `hack/local-cluster.sh add-site`, a push) is Delivered too, with its
// manager Rollout healthy (add-site kept the fleet's site components). Then it runs the rest of the tour as
// docs/development.md writes it: a base/ change goes out in two waves (dev soaks while paris and prod wait, then
// the rollout completes), a broken dev halts the rollout at the canary and is reverted (the history says
// Reverted), and a manager upgrade on prod stands by as the preview, its pre-promotion analysis Successful,
// until `kubectl argo rollouts promote` makes it Healthy on v0.2.0.
func TestTourRunsAsWritten(t *testing.T) {
	r := startMakeRun(t)
	exports := r.waitReady(20 * time.Minute)
	tour := tourCommands(r.output())
	if len(tour) < 4 {
		t.Fatalf("make run printed no tour:\n%s", r.output())
	}
	// The second shell is the same person's: make run's environment (its HOME, SITEOPS_CACHE…) and the exports.
	sh := &shell{t: t, env: append(append([]string(nil), r.cmd.Env...), exports...)}
	for _, line := range strings.Split(r.output(), "\n") {
		if strings.HasPrefix(line, "The fleet is ready") {
			t.Log(line)
		}
	}
	t.Logf("the tour:\n%s", strings.Join(tour, "\n"))
	for _, c := range tour {
		switch {
		case strings.HasPrefix(c, "cd "):
			sh.dir = strings.TrimSpace(strings.TrimPrefix(c, "cd "))
			continue
		case c == "siteops status":
			// Before the edit, both sites reach the seeded revision; after the push, dev reaches the new one.
			sh.waitDelivered(10*time.Minute, "dev", "prod")
		case strings.Contains(c, "get guestbooks"):
			sh.waitFor(3*time.Minute, "site dev's Guestbook at size 3", func() (bool, string) {
				out := sh.run(c + " guestbook-sample -o jsonpath={.spec.size}")
				return out == "3", out
			})
		case strings.Contains(c, "get configmap greeter"):
			// The sample chart, rendered with dev's new value, reaches dev's cluster.
			sh.waitFor(3*time.Minute, "site dev's greeter saying hi", func() (bool, string) {
				out := sh.run(c + " -o jsonpath={.data.message}")
				return out == "hi from dev", out
			})
		}
		t.Logf("$ %s\n%s", c, sh.run(c))
	}

	rss, n := r.memory()
	t.Logf("the fleet: %d processes, %d MiB resident (sum of RSS)", n, rss>>20)

	// Add a site, as the tour says.
	sh.run("cp -r overlays/dev overlays/paris")
	sh.run("local-cluster.sh add-site paris")
	sh.run(`git add overlays/paris && git commit -qm "paris: a new site" && git push -q`)
	sh.waitDelivered(10*time.Minute, "paris")
	t.Logf("$ siteops status\n%s", sh.run("siteops status"))
	manager := `kubectl get sitesync sites -o jsonpath='{.status.sites[?(@.name=="paris")].managerRollout}'`
	if got := sh.run(manager); got != "Healthy" {
		t.Fatalf("paris's manager Rollout is %q, want Healthy (add-site must keep Argo Rollouts on the site)", got)
	}

	further := sh.tourFurther()
	if len(further) < 10 {
		t.Fatalf("docs/development.md's rest of the tour has %d commands", len(further))
	}
	sh.runFurther(further)
}

// tourCommands are the commands of the tour make run printed: the indented lines after "In another shell:",
// without their comments, up to the first blank line.
func tourCommands(out string) []string {
	var cmds []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "In another shell:") {
			in, cmds = true, nil
			continue
		}
		if !in {
			continue
		}
		if strings.TrimSpace(line) == "" {
			if len(cmds) > 0 {
				in = false
			}
			continue
		}
		if i := strings.Index(line, "  # "); i > 0 {
			line = line[:i]
		}
		if c := strings.TrimSpace(line); !strings.HasPrefix(c, "export ") {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// shell runs commands as a person does in the second shell of the tour: make run's exports, the folder of the
// last cd.
type shell struct {
	t   *testing.T
	env []string
	dir string
}

// run runs cmd with bash and returns its output, failing the test on a non-zero exit.
func (s *shell) run(cmd string) string {
	s.t.Helper()
	out, err := s.try(cmd)
	if err != nil {
		s.t.Fatalf("$ %s: %v\n%s", cmd, err, out)
	}
	return out
}

func (s *shell) try(cmd string) (string, error) {
	c := exec.Command("bash", "-c", cmd)
	c.Dir, c.Env = s.dir, s.env
	out, err := c.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// waitDelivered waits until the SiteSync reports each site Delivered at the head of its source.
func (s *shell) waitDelivered(timeout time.Duration, sites ...string) {
	s.t.Helper()
	for _, site := range sites {
		s.waitFor(timeout, site+" Delivered", func() (bool, string) {
			out, _ := s.try(`kubectl get sitesync sites -o jsonpath='{.status.sourceRevision} ` +
				`{.status.sites[?(@.name=="` + site + `")].delivery}'`)
			head, _ := s.try("git rev-parse origin/main")
			return out == head+" Delivered", out + "; siteops status:\n" + s.status()
		})
	}
}

// status is `siteops status`'s output, for failure messages.
func (s *shell) status() string {
	out, _ := s.try("siteops status")
	return out
}

// waitFor polls cond every second until it holds or timeout passes; then it fails the test with cond's last
// description. It waits for state, it asserts no duration.
func (s *shell) waitFor(timeout time.Duration, what string, cond func() (bool, string)) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, desc := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, desc)
		}
		time.Sleep(time.Second)
	}
}
