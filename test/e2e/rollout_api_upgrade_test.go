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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/managerproc"
	"github.com/siteops/siteops/test/testenv"
)

// TestAPIUpgradeKeepsUnknownFieldsThroughStandbyPromoteAndUndo is an upgrade that changes the API, on the
// pod-backed Rollout harness: the new manager version (buildAPINext: api-next.patch, an optional SiteSync
// spec.description and a Described condition that reports it) runs in the pods of image tag v0.2.0, this
// checkout's manager in the others.
//  1. The old version leads and syncs a SiteSync of the main shard.
//  2. One Git commit brings the new CRD and the v0.2.0 image, as a release does. Argo CD applies the CRD (base/crd
//     asks for ServerSideApply=true: managedFields has argocd-controller's Apply, and nothing else in the test
//     writes the CRD) before the Rollout, which pauses on a preview pod running the new build, in standby.
//  3. A person adds spec.description. The old version, still leading, syncs a new source commit for the new
//     generation: its writes are status patches only, the field stays, no Described condition appears (the
//     standby writes nothing).
//  4. Promote: the new version leads and sets Described from the field.
//  5. Undo (Argo CD's auto-sync off, as a person rolls back by hand): the old version leads again, on the new
//     CRD, which an undo does not roll back. It syncs a change of a field it knows; the field it does not
//     know stays, and so does Described: a version owns only the conditions it sets, and the condition's
//     observedGeneration, older than the object's, says it was judged by another.
//
// It holds the hub's manager Rollout (hubManager) and changes the SiteSync CRD, which other tests' objects
// share: the new schema only adds an optional field, and the CRD of this checkout is put back at the end.
func TestAPIUpgradeKeepsUnknownFieldsThroughStandbyPromoteAndUndo(t *testing.T) {
	t.Parallel()
	next := buildAPINext(t)
	hold(t, &hubManager)
	restoreSiteSyncCRD(t)
	u, blue, blueHash := deployUpgradeRun(t, "siteops-api-next", map[string]string{"v0.2.0": next.manager}, 20)
	s := newAPISiteSync(t, "api-upgrade")
	s.show("the old version leading, the old CRD")
	if c := s.condition("Described"); c != "" {
		t.Fatalf("before the upgrade the SiteSync has a Described condition: %s", c)
	}

	// 2. The new CRD and image in one commit; Argo CD applies the CRD, the Rollout pauses on the new build.
	crd, err := os.ReadFile(next.crd)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, u.work, filepath.Join("base", "crd", "bases", sitesyncCRD), string(crd))
	u.setTag("v0.1.0", "v0.2.0")
	waitFor(t, 3*time.Minute, "the SiteSync CRD with spec.description, applied server-side by Argo CD",
		func() (bool, string) {
			typ := jsonpath("get", "crd", "sitesyncs.gitops.siteops.dev", "-o", "jsonpath="+crdDescriptionType)
			mgrs := jsonpath("get", "crd", "sitesyncs.gitops.siteops.dev", "-o",
				"jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}")
			return typ == "string" && strings.Contains(mgrs, "argocd-controller/Apply"), typ + " " + mgrs
		})
	greenHash, green := u.pausedOnPreview(blueHash)
	if logs := u.pb.Process(green).Logs(); !strings.Contains(logs, nextVersion) {
		t.Fatalf("the preview pod %s does not run the next build (%s): its log names no such version", green,
			nextVersion)
	}
	if logs := u.pb.Process(blue).Logs(); strings.Contains(logs, nextVersion) {
		t.Fatalf("the active pod %s runs the next build, want this checkout's", blue)
	}

	// 3. The field, while the new version stands by: the old one syncs the object that carries it.
	const desc = "the sites of the API upgrade test"
	waitFor(t, time.Minute, "spec.description stored (the apiserver serves the new schema)", func() (bool, string) {
		got := s.patch(`{"description":"`+desc+`"}`, "{.spec.description}")
		return got == desc, got
	})
	s.sync("standby-1")
	s.show("the field added, synced by the old version while the new one stands by")
	if got := s.get("{.spec.description}"); got != desc {
		t.Fatalf("after the old version's sync in standby spec.description is %q, want %q", got, desc)
	}
	s.managerWritesOnlyStatus("the old version leading, the new one in standby")
	if c := s.condition("Described"); c != "" {
		t.Fatalf("a Described condition while the new version stands by: %s", c)
	}
	if w := managerproc.WriteSpanOf(u.pb.Process(green).Logs()); w.Count != 0 {
		t.Fatalf("the new version made %d API writes in standby", w.Count)
	}
	u.specsUnchanged("the field added in standby")

	// 4. Promote: the new version uses the field.
	u.promote(blue, blueHash, green, greenHash)
	s.sync("next-1")
	s.show("synced by the new version after promote")
	gen := s.get("{.metadata.generation}")
	if c, want := s.condition("Described"), "True/DescriptionSet/"+gen+"/"+desc; c != want {
		t.Fatalf("after promote the Described condition is %q, want %q", c, want)
	}
	s.managerWritesOnlyStatus("the new version leading")

	// 5. Undo: the old version again, on the new CRD and an object that carries the field.
	u.undo(green, greenHash, blueHash)
	back := podOf(blueHash)
	if p := u.pb.Process(back); p == nil || strings.Contains(p.Logs(), nextVersion) {
		t.Fatalf("after undo the leading pod %s has no process or runs the next build", back)
	}
	if g := s.patch(`{"interval":"11m"}`, "{.metadata.generation}"); g == gen {
		t.Fatalf("changing spec.interval left the generation at %s", g)
	}
	s.sync("undone-1")
	s.show("spec.interval changed, synced by the old version after undo")
	if got := s.get("{.spec.description}/{.spec.interval}"); got != desc+"/11m" {
		t.Fatalf("after undo and the old version's sync the spec is %q, want %q", got, desc+"/11m")
	}
	if c, want := s.condition("Described"), "True/DescriptionSet/"+gen+"/"+desc; c != want {
		t.Fatalf("after undo the Described condition is %q, want it as the new version left it, %q", c, want)
	}
	if c := s.condition("Ready"); !strings.Contains(c, "/"+s.get("{.metadata.generation}")+"/") {
		t.Fatalf("after undo Ready is %q, not of the current generation", c)
	}
	s.managerWritesOnlyStatus("the old version leading again")
	typ := jsonpath("get", "crd", "sitesyncs.gitops.siteops.dev", "-o", "jsonpath="+crdDescriptionType)
	if typ != "string" {
		t.Fatalf("after undo the SiteSync CRD's spec.description is %q, want the new CRD kept", typ)
	}
	u.specsUnchanged("after undo")
}

// crdDescriptionType is the jsonpath of spec.description's type in the SiteSync CRD's schema.
const crdDescriptionType = "{.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.description.type}"

// restoreSiteSyncCRD puts this checkout's SiteSync CRD back when the test ends, after the Application that
// applied the new one is gone, as Argo CD would sync it: server-side apply as argocd-controller, which owns
// the field the new CRD added and so removes it.
func restoreSiteSyncCRD(t *testing.T) {
	t.Helper()
	file := filepath.Join(testenv.RepoRoot(), "base", "crd", "bases", sitesyncCRD)
	t.Cleanup(func() {
		if out, err := tryKubectl("apply", "--server-side", "--force-conflicts", "--field-manager=argocd-controller",
			"-f", file); err != nil {
			t.Errorf("putting the SiteSync CRD back: %v\n%s", err, out)
		}
	})
}
