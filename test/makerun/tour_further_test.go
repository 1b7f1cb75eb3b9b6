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
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/siteops/siteops/test/testenv"
)

// furtherHeading is the heading of docs/development.md whose first sh block is the rest of the tour.
const furtherHeading = "### The tour, further"

// step is one command of a tour as written, and the comment after it: what a person sees.
type step struct{ cmd, note string }

// tourFurther reads the rest of the tour from docs/development.md: the commands of the first sh block after
// furtherHeading, a line ending in a backslash joined with the next, a here-document kept with its command.
func (s *shell) tourFurther() []step {
	s.t.Helper()
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "development.md"))
	if err != nil {
		s.t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), furtherHeading)
	if !ok {
		s.t.Fatalf("docs/development.md has no %q", furtherHeading)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		s.t.Fatalf("docs/development.md has no sh block after %q", furtherHeading)
	}
	return parseSteps(block)
}

// parseSteps splits a sh block into its commands.
func parseSteps(block string) []step {
	var steps []step
	lines := strings.Split(strings.TrimSpace(block), "\n")
	for i := 0; i < len(lines); i++ {
		line, note := lines[i], ""
		if j := strings.Index(line, "  # "); j > 0 {
			line, note = line[:j], strings.TrimSpace(line[j+4:])
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + strings.TrimSpace(lines[i])
		}
		if _, doc, ok := strings.Cut(line, "<<'"); ok {
			end, _, _ := strings.Cut(doc, "'")
			for i+1 < len(lines) {
				i++
				line += "\n" + lines[i]
				if lines[i] == end {
					break
				}
			}
		}
		steps = append(steps, step{cmd: strings.TrimSpace(line), note: note})
	}
	return steps
}

// runFurther runs the rest of the tour as written and checks, at each `siteops status`, what its comment says
// a person sees there: the canary wave soaking while the other sites wait, the rollout complete, the broken
// canary halted and reverted, the preview standing by, and the promoted manager; and at `kubectl argo rollouts
// get rollout`, the preview with its pre-promotion analysis Successful.
func (s *shell) runFurther(steps []step) {
	s.t.Helper()
	var pushed string // the source revision of the last push
	for _, st := range steps {
		switch {
		case st.cmd == "siteops status":
			s.see(st.note, pushed)
			continue
		case strings.HasPrefix(st.cmd, "kubectl argo rollouts get rollout"):
			s.waitAnalysis("prod")
			out := s.run(st.cmd)
			s.t.Logf("$ %s\n%s", st.cmd, out)
			if !strings.Contains(out, "manager:v0.2.0") || !strings.Contains(out, "preview") ||
				!hasLine(out, "AnalysisRun", "Successful") {
				s.t.Fatalf("prod's manager Rollout shows no v0.2.0 preview with its analysis Successful:\n%s", out)
			}
			continue
		}
		out := s.run(st.cmd)
		s.t.Logf("$ %s\n%s", st.cmd, out)
		if strings.Contains(st.cmd, "git push") {
			pushed = s.run("git rev-parse HEAD")
		}
		if strings.HasPrefix(st.cmd, "siteops rollout history") {
			if !hasLine(out, pushed[:12], "Reverted") {
				s.t.Fatalf("the history shows no outcome Reverted for %s:\n%s", pushed[:12], out)
			}
		}
	}
}

// see waits until the SiteSync shows what note says a person sees at revision rev.
func (s *shell) see(note, rev string) {
	s.t.Helper()
	prodRollout := "{.status.sites[?(@.name==\"prod\")].managerRollout}"
	switch {
	case strings.Contains(note, "soaking"):
		s.waitSiteSync(5*time.Minute, note, "{.status.rollout.revision} {.status.rollout.wave} "+
			rolloutState("dev")+" "+rolloutState("paris")+" "+rolloutState("prod"),
			rev+" canary Published Pending Pending")
	case strings.Contains(note, "Complete"):
		s.waitSiteSync(5*time.Minute, note, "{.status.rollout.revision} {.status.rollout.phase}", rev+" Complete")
		s.waitDelivered(5*time.Minute, "dev", "paris", "prod")
	case strings.Contains(note, "Halted"):
		s.waitSiteSync(5*time.Minute, note, "{.status.rollout.revision} {.status.rollout.phase} "+
			"{.status.rollout.wave} "+rolloutState("dev")+" "+rolloutState("prod"),
			rev+" Halted canary Reverted Unchanged")
	case strings.Contains(note, "Suspended"):
		s.waitSiteSync(5*time.Minute, note, prodRollout, "Suspended")
	case strings.Contains(note, "MANAGER Healthy"):
		s.waitSiteSync(3*time.Minute, note, prodRollout, "Healthy")
		s.waitDelivered(3*time.Minute, "prod")
		image := s.run("kubectl --kubeconfig $SITEOPS_CLUSTER_DIR/sites/prod/admin.kubeconfig -n siteops-system " +
			"get rollout siteops-manager -o jsonpath='{.status.stableRS} {.status.currentPodHash} " +
			"{.spec.template.spec.containers[0].image}'")
		if f := strings.Fields(image); len(f) != 3 || f[0] != f[1] || f[2] != "ghcr.io/siteops/manager:v0.2.0" {
			s.t.Fatalf("prod's manager Rollout after promote (stable, current, image): %q", image)
		}
	default:
		s.t.Fatalf("the tour's `siteops status` says %q: this test does not know what that looks like", note)
	}
	s.t.Logf("$ siteops status  # %s\n%s", note, s.status())
}

// waitAnalysis waits until the pre-promotion analysis of site's manager Rollout (base/'s standby-report, which
// asks the preview Service by its name) is Successful; an analysis that ends otherwise fails the test.
func (s *shell) waitAnalysis(site string) {
	s.t.Helper()
	kc := "kubectl --kubeconfig $SITEOPS_CLUSTER_DIR/sites/" + site + "/admin.kubeconfig -n siteops-system "
	s.waitFor(3*time.Minute, site+"'s pre-promotion analysis Successful", func() (bool, string) {
		rollout, _ := s.try(kc + "get rollout siteops-manager -o jsonpath='" +
			"{.status.blueGreen.prePromotionAnalysisRunStatus.name} {.status.phase} {.status.message}'")
		name, _, _ := strings.Cut(rollout, " ")
		if name == "" {
			return false, "no pre-promotion AnalysisRun; the Rollout:" + rollout
		}
		run, _ := s.try(kc + "get analysisrun " + name +
			" -o jsonpath='{.status.phase} {.status.metricResults[*].message}'")
		switch phase, _, _ := strings.Cut(run, " "); phase {
		case "Successful":
			return true, run
		case "Failed", "Error", "Inconclusive":
			s.t.Fatalf("%s's pre-promotion AnalysisRun %s ended: %s", site, name, run)
		}
		return false, "AnalysisRun " + name + ": " + run
	})
}

// rolloutState is the jsonpath of site's state in the SiteSync's rollout.
func rolloutState(site string) string {
	return "{.status.rollout.sites[?(@.name==\"" + site + "\")].state}"
}

// waitSiteSync waits until the SiteSync sites' jsonpath reads want.
func (s *shell) waitSiteSync(timeout time.Duration, what, jsonpath, want string) {
	s.t.Helper()
	s.waitFor(timeout, what, func() (bool, string) {
		got, _ := s.try("kubectl get sitesync sites -o jsonpath='" + jsonpath + "'")
		return got == want, "want " + want + ", got " + got + "; siteops status:\n" + s.status()
	})
}

// hasLine reports whether a line of out holds every one of words.
func hasLine(out string, words ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			return true
		}
	}
	return false
}
