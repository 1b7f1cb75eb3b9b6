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

package gitops

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestSyncBaseChangeRendersEverySiteUsingItAndNoOther(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	edgeBefore := e.rendered(t, "edge")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("base/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n"+
		"  selector: {app: web}\n  ports:\n  - port: 8080\n")
	pushed := wt.Commit("base: port 8080")
	wt.Push()
	rendersBefore := e.renders.Load()

	res := e.sync(t, &first)

	g.Expect(e.renders.Load() - rendersBefore).To(BeEquivalentTo(2))
	g.Expect(site(t, res, "dev").Rendered).To(BeTrue())
	g.Expect(site(t, res, "prod").Rendered).To(BeTrue())
	g.Expect(site(t, res, "edge").Rendered).To(BeFalse())
	g.Expect(site(t, res, "edge").InputDigest).To(Equal(site(t, first, "edge").InputDigest))
	g.Expect(site(t, res, "dev").InputDigest).NotTo(Equal(site(t, first, "dev").InputDigest))

	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log).To(HaveLen(2))
	g.Expect(log[0].Trailer(TrailerSourceRevision)).To(Equal(pushed))
	g.Expect(log[0].Trailer(TrailerSites)).To(Equal("dev,prod"))
	g.Expect(changedFiles(t, e, log[1].SHA, log[0].SHA)).To(Equal([]string{"dev/manifests.yaml", "prod/manifests.yaml"}))
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("port: 8080"))
	g.Expect(e.rendered(t, "edge")).To(Equal(edgeBefore))
}
