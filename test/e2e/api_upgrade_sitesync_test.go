//go:build e2e && apiupgrade

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
)

// apiSiteSync is the SiteSync "sites" of the API upgrade test, in a namespace of its own and without a shard
// label, so that the managers of the hub's Rollout (the main shard) reconcile it, over a source repository of
// one site, api-a, served from the git daemon's folder as file://.
type apiSiteSync struct {
	t              *testing.T
	ns, work, bare string
	// release counts the source commits: each sync pushes one, so that each makes a rendered commit.
	release int
}

// newAPISiteSync pushes the source repository, creates the SiteSync and waits for its first sync; the
// namespace goes when the test ends.
func newAPISiteSync(t *testing.T, ns string) *apiSiteSync {
	t.Helper()
	s := &apiSiteSync{t: t, ns: ns, release: 1}
	s.work, s.bare = newSourceRepo(t, ns, fleetSource([]string{"api-a"}), "one site, api-a")
	_, _ = tryKubectl("delete", "namespace", ns, "--ignore-not-found", "--wait=true")
	kubectl(t, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = tryKubectl("delete", "namespace", ns, "--wait=true", "--timeout=2m") })
	apply(t, ns, fmt.Sprintf(`
apiVersion: gitops.siteops.dev/v1alpha1
kind: SiteSync
metadata: {name: sites}
spec:
  source: {url: "file://%s", ref: main}
  target: {branch: rendered}
  interval: 10m
`, s.bare))
	head := git(t, s.work, "rev-parse", "HEAD")
	waitFor(t, 2*time.Minute, "SiteSync "+ns+"/sites synced", func() (bool, string) {
		st := s.get("{.metadata.generation}/{.status.observedGeneration}/{.status.sourceRevision}")
		f := strings.SplitN(st, "/", 3)
		return len(f) == 3 && f[0] == f[1] && f[2] == head, st
	})
	return s
}

// get reads path of the SiteSync as stored, whatever the manager's types know of it.
func (s *apiSiteSync) get(path string) string {
	return jsonpath("-n", s.ns, "get", "sitesync", "sites", "-o", "jsonpath="+path)
}

// patch merge-patches the SiteSync's spec, as `kubectl patch` does; it returns path of the object the
// apiserver answered with, as the patch stored it, before any controller acted on it.
func (s *apiSiteSync) patch(spec, path string) string {
	s.t.Helper()
	return strings.TrimSpace(kubectl(s.t, "-n", s.ns, "patch", "sitesync", "sites", "--type=merge",
		"-p", `{"spec":`+spec+`}`, "-o", "jsonpath="+path))
}

// sync pushes a source commit and asks for a sync with trigger (the requestedAt annotation, as the push
// receiver sets it); it waits until the leader has synced it, and the current generation, and recorded both in
// status, and returns the source commit.
func (s *apiSiteSync) sync(trigger string) string {
	s.t.Helper()
	s.release++
	writeFile(s.t, s.work, "base/site-info.yaml", fmt.Sprintf(
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site-info\ndata:\n  release: \"%d\"\n", s.release))
	sha := commitAndPush(s.t, s.work, s.bare, fmt.Sprintf("release %d", s.release))
	kubectl(s.t, "-n", s.ns, "annotate", "sitesync", "sites", "--overwrite",
		"gitops.siteops.dev/requestedAt="+trigger)
	waitFor(s.t, 2*time.Minute, "SiteSync synced "+short(sha)+" for trigger "+trigger, func() (bool, string) {
		st := s.get("{.metadata.generation}/{.status.observedGeneration}/{.status.lastHandledTrigger}/" +
			"{.status.sourceRevision}")
		f := strings.SplitN(st, "/", 4)
		return len(f) == 4 && f[0] == f[1] && f[2] == trigger && f[3] == sha, st
	})
	return sha
}

// condition is the SiteSync's condition typ as status/reason/observedGeneration/message, "" when absent.
func (s *apiSiteSync) condition(typ string) string {
	return s.get(fmt.Sprintf(`{range .status.conditions[?(@.type=="%s")]}`+
		`{.status}/{.reason}/{.observedGeneration}/{.message}{end}`, typ))
}

// managerWritesOnlyStatus fails the test when a siteops manager wrote the SiteSync other than through its
// status subresource: managedFields records each writer of the object by field manager ("manager", the
// binary's name) and subresource. Only `kubectl` (this test, as the user) writes the rest.
func (s *apiSiteSync) managerWritesOnlyStatus(step string) {
	s.t.Helper()
	writers := s.get(`{range .metadata.managedFields[*]}{.manager}/{.operation}/{.subresource} {end}`)
	var status bool
	for _, w := range strings.Fields(writers) {
		f := strings.SplitN(w, "/", 3)
		if f[0] != "manager" {
			continue
		}
		if f[2] != "status" {
			s.t.Fatalf("%s: the manager wrote the SiteSync outside its status (%s); writers: %s", step, w, writers)
		}
		status = true
	}
	if !status {
		s.t.Fatalf("%s: no status write of the manager in the SiteSync's managedFields: %s", step, writers)
	}
}

// show logs what the steps assert on: generations, spec.description, each condition's status, reason and
// observedGeneration, the source revision synced and the object's writers.
func (s *apiSiteSync) show(when string) {
	s.t.Helper()
	s.t.Logf("%s: generation %s, observedGeneration %s, spec.description %q, lastHandledTrigger %s, "+
		"sourceRevision %s\n  conditions: %s\n  writers: %s", when,
		s.get("{.metadata.generation}"), s.get("{.status.observedGeneration}"), s.get("{.spec.description}"),
		s.get("{.status.lastHandledTrigger}"), short(s.get("{.status.sourceRevision}")),
		s.get(`{range .status.conditions[*]}{.type}={.status}/{.reason}@{.observedGeneration} {end}`),
		s.get(`{range .metadata.managedFields[*]}{.manager}/{.operation}/{.subresource} {end}`))
}
