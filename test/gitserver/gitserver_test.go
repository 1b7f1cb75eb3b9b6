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

package gitserver_test

import (
	"net/http"
	"os/exec"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/test/gitserver"
)

func TestCloneCommitPushRoundTrip(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", map[string]string{"overlays/dev/kustomization.yaml": "resources: []\n"})

	wt := srv.Clone(t, "config")
	wt.Write("overlays/dev/site-values.yaml", "replicas: 2\n")
	sha := wt.Commit("change dev\n\nSiteops-Sites: dev")
	wt.Push()

	g.Expect(srv.Head(t, "config", gitserver.DefaultBranch)).To(Equal(sha))
	content, ok := srv.ReadFile(t, "config", sha, "overlays/dev/site-values.yaml")
	g.Expect(ok).To(BeTrue())
	g.Expect(content).To(Equal("replicas: 2\n"))
	log := srv.Log(t, "config", gitserver.DefaultBranch)
	g.Expect(log).To(HaveLen(2))
	g.Expect(log[0].Subject()).To(Equal("change dev"))
	g.Expect(log[0].Trailer("Siteops-Sites")).To(Equal("dev"))
	g.Expect(srv.Requests()).To(BeNumerically(">", 0))
	g.Expect(srv.Connections()).To(BeNumerically(">", 0))
}

func TestForcePushRewritesBranch(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "r", map[string]string{"a": "1"})
	first := srv.Clone(t, "r")
	second := srv.Clone(t, "r")
	first.Write("a", "2")
	first.Commit("from first")
	first.Push()

	second.Write("b", "x")
	rewritten := second.Commit("from second")
	second.ForcePush()

	g.Expect(srv.Head(t, "r", gitserver.DefaultBranch)).To(Equal(rewritten))
	g.Expect(srv.Log(t, "r", gitserver.DefaultBranch)).To(HaveLen(2))
}

func TestBasicAuthRejectsAnonymous(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{Username: "git", Password: "s3cret"})
	srv.NewRepo(t, "private", map[string]string{"a": "1"})

	resp, err := http.Get(srv.URL("private") + "/info/refs?service=git-upload-pack")
	g.Expect(err).NotTo(HaveOccurred())
	_ = resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))

	wt := srv.Clone(t, "private") // uses the credentials
	wt.Write("b", "2")
	wt.Commit("authenticated push")
	wt.Push()
	g.Expect(srv.Log(t, "private", gitserver.DefaultBranch)).To(HaveLen(2))
}

func TestOrphanBranchAndMissingBranch(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "r", map[string]string{"a": "1"})
	g.Expect(srv.Log(t, "r", "rendered")).To(BeEmpty())
	g.Expect(srv.Head(t, "r", "rendered")).To(BeEmpty())

	wt := srv.Clone(t, "r")
	wt.Checkout("rendered")
	wt.Write("dev/all.yaml", "kind: ConfigMap\n")
	wt.Commit("render")
	wt.Push()
	g.Expect(srv.Files(t, "r", "rendered")).To(Equal([]string{"dev/all.yaml"}))
	g.Expect(wt.Log("rendered")).To(HaveLen(1))
}

func TestStartWithoutTestingT(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(nil, gitserver.Options{})
	defer srv.Close()
	url := srv.NewRepo(nil, "m", map[string]string{"x": "y"})
	g.Expect(url).To(Equal(srv.Addr() + "/m.git"))
	g.Expect(srv.Clone(nil, "m").Head()).To(Equal(srv.Head(nil, "m", gitserver.DefaultBranch)))
}

func TestHTTPSServerIsTrustedOnlyWithItsCA(t *testing.T) {
	g := NewWithT(t)
	ca := gitserver.NewCA(t)
	srv := gitserver.Start(t, gitserver.Options{TLS: ca})
	srv.NewRepo(t, "config", map[string]string{"a": "1"})
	g.Expect(srv.URL("config")).To(HavePrefix("https://127.0.0.1:"))

	wt := srv.Clone(t, "config") // trusts the CA through http.sslCAInfo
	wt.Write("a", "2")
	sha := wt.Commit("over TLS")
	wt.Push()
	g.Expect(srv.Head(t, "config", gitserver.DefaultBranch)).To(Equal(sha))

	out, err := exec.Command("git", "-c", "http.sslCAInfo=/dev/null", "ls-remote", srv.URL("config")).CombinedOutput()
	g.Expect(err).To(HaveOccurred(), "a client without the CA must not connect")
	g.Expect(string(out)).To(ContainSubstring("certificate"))
}
