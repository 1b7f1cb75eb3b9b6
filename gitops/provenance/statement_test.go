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

package provenance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/internal/tree/treetest"
	"github.com/siteops/siteops/internal/version"
)

func TestSetDigestHashesTheSortedListingOfTheFiles(t *testing.T) {
	g := NewWithT(t)
	a, b := sha256.Sum256([]byte("a\n")), sha256.Sum256([]byte("b\n"))
	listing := hex.EncodeToString(a[:]) + "  base/a.yaml\n" + hex.EncodeToString(b[:]) + "  overlays/dev/b.yaml\n"
	want := sha256.Sum256([]byte(listing))
	got := SetDigest(map[string][]byte{"overlays/dev/b.yaml": []byte("b\n"), "base/a.yaml": []byte("a\n")})
	g.Expect(got).To(Equal(hex.EncodeToString(want[:])))
	g.Expect(SetDigest(map[string][]byte{"base/a.yaml": []byte("a\n")})).NotTo(Equal(got))
}

func TestNewStatementIsTheSameForTheSameInputAndSplitsTheInputs(t *testing.T) {
	g := NewWithT(t)
	in := Input{Site: "dev", SiteSync: "ns/sites", SourceCommit: "0123",
		Source: Source{URL: "https://git.example.com/config.git", Ref: "main", OverlaysDir: "overlays"},
		Folder: "clusters/dev", Files: map[string][]byte{"manifests.yaml": []byte("kind: A\n")},
		OverlayDir: "overlays/dev", Inputs: map[string][]byte{
			"overlays/dev/kustomization.yaml": []byte("resources: [../../base]\n"),
			"overlays/development/x.yaml":     []byte("not dev's\n"),
			"base/kustomization.yaml":         []byte("resources: []\n"),
		},
		Builder: version.Build{Version: "v1.2.3"},
	}
	one, err := json.Marshal(NewStatement(in))
	g.Expect(err).NotTo(HaveOccurred())
	two, err := json.Marshal(NewStatement(in))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(one).To(Equal(two))

	st := NewStatement(in)
	g.Expect(st.Subject).To(HaveLen(1))
	g.Expect(st.Subject[0].Name).To(Equal("clusters/dev/manifests.yaml"))
	deps := st.Predicate.BuildDefinition.ResolvedDependencies
	g.Expect(deps[0].URI).To(Equal("git+https://git.example.com/config.git@main"))
	g.Expect(st.SourceCommit()).To(Equal("0123"))
	g.Expect(deps[1].Annotations["files"]).To(Equal([]string{"overlays/dev/kustomization.yaml"}))
	g.Expect(deps[2].Annotations["files"]).To(Equal([]string{"base/kustomization.yaml",
		"overlays/development/x.yaml"}))
	g.Expect(st.Predicate.RunDetails.Byproducts).To(BeEmpty())

	in.Policy = &PolicyResults{Digest: "d1", Summary: "4 passed, 1 warned", Findings: []string{"warned: x"}}
	st = NewStatement(in)
	g.Expect(st.Predicate.RunDetails.Byproducts).To(HaveLen(1))
	g.Expect(st.Predicate.RunDetails.Byproducts[0].Name).To(Equal(PolicyByproduct))
	g.Expect(st.Predicate.RunDetails.Byproducts[0].Annotations).To(HaveKeyWithValue("summary", "4 passed, 1 warned"))
}

func TestVerifyNamesEachFileThatDiffers(t *testing.T) {
	g := NewWithT(t)
	want := Subjects("dev", map[string][]byte{"manifests.yaml": []byte("a\n"), "gone.yaml": []byte("g\n")})
	got := Subjects("dev", map[string][]byte{"manifests.yaml": []byte("b\n"), "new.yaml": []byte("n\n")})
	g.Expect(compare(want, got)).To(ConsistOf("dev/gone.yaml is missing",
		HavePrefix("dev/manifests.yaml was changed (sha256 "), "dev/new.yaml was added"))
	g.Expect(compare(want, want)).To(BeEmpty())
}

func TestVerifyRefusesAnEnvelopeOfAnotherPayloadType(t *testing.T) {
	g := NewWithT(t)
	fs := &treetest.Map{Files: map[string]string{
		AttestationPath("dev"): `{"payloadType":"text/plain","payload":"","signatures":[]}`,
	}}
	_, err := Verify(context.Background(), fs, "dev", nil)
	g.Expect(err).To(MatchError(ContainSubstring(`envelope payload type is "text/plain"`)))
	_, err = Verify(context.Background(), fs, "prod", nil)
	g.Expect(err).To(MatchError(ErrNoAttestation))
}
