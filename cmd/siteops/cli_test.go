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

package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/version"
	"github.com/siteops/siteops/test/gitserver"
)

func siteFiles() map[string]string {
	return map[string]string{
		"base/kustomization.yaml": "resources:\n- cm.yaml\n",
		"base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n" +
			"data:\n  color: blue\n",
		"overlays/dev/kustomization.yaml":  "resources:\n- ../../base\nnamePrefix: dev-\n",
		"overlays/prod/kustomization.yaml": "bases:\n- ../../base\nnamePrefix: prod-\n",
		"other/kustomization.yaml":         "resources:\n- deploy.yaml\n",
		"other/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: manager\nspec:\n  template:\n" +
			"    spec:\n      containers:\n      - name: manager\n        image: example.com/manager:v0\n",
	}
}

// cli runs one command line in dir and returns its exit code, stdout and stderr.
func cli(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRenderOneSiteToStdout(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")

	code, out, errOut := cli(t, filepath.Join(wt.Dir, "overlays"), "render", "--site", "prod")

	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(ContainSubstring("name: prod-settings"))
	g.Expect(errOut).To(ContainSubstring(`"bases" is deprecated`))
	g.Expect(errOut).NotTo(ContainSubstring("# Warning"), "kustomize's own stderr line is not shown")
}

func TestRenderEverySiteToOutExitsNonZeroOnAFailedSite(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	files := siteFiles()
	files["overlays/broken/kustomization.yaml"] = "resources:\n- https://example.com/remote.yaml\n"
	srv.NewRepo(t, "config", files)
	wt := srv.Clone(t, "config")
	out := t.TempDir()

	code, stdout, errOut := cli(t, wt.Dir, "render", "--out", out)

	g.Expect(code).To(Equal(1))
	g.Expect(stdout).To(BeEmpty())
	g.Expect(errOut).To(ContainSubstring("FAILED broken"))
	g.Expect(errOut).To(ContainSubstring("remote references are not allowed"))
	g.Expect(errOut).To(ContainSubstring("rendered 2 of 3 sites"))
	g.Expect(filepath.Join(out, "dev", gitops.ManifestFile)).To(BeARegularFile())
	g.Expect(filepath.Join(out, "prod", gitops.ManifestFile)).To(BeARegularFile())
	g.Expect(filepath.Join(out, "broken")).NotTo(BeADirectory())
}

func TestRenderRendersUncommittedChangesOfTheWorkingCopy(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")
	wt.Write("base/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: green\n")

	code, out, errOut := cli(t, wt.Dir, "render", "--site", "dev")

	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(ContainSubstring("color: green"))
}

func TestRenderFromAURLAtATag(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := gitserver.Start(t, gitserver.Options{})
	url := srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")
	wt.Tag("v1")
	wt.Write("base/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: red\n")
	wt.Commit("red")
	wt.Push()

	code, out, errOut := cli(t, t.TempDir(), "render", "--repo", url, "--ref", "v1", "--site", "dev")

	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(ContainSubstring("color: blue"))
}

func TestRenderDirWithImageOverride(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")

	code, out, errOut := cli(t, wt.Dir, "render", "--dir", "other",
		"--image", "example.com/manager=ghcr.io/siteops/manager:v1.2.3")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(ContainSubstring("image: ghcr.io/siteops/manager:v1.2.3"))

	code, _, errOut = cli(t, wt.Dir, "render", "--dir", "other", "--image", "manager=ghcr.io/siteops/manager:v1.2.3")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(errOut).To(ContainSubstring("matched no container image"))

	wt.Write("escape/kustomization.yaml", "resources:\n- ../../outside\n")
	code, _, errOut = cli(t, filepath.Join(wt.Dir, "other"), "render", "--dir", "../escape")
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("leaves the checkout"))
}

func TestDiffShowsWhatAPushWouldChangeOnTheRenderedBranch(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := gitserver.Start(t, gitserver.Options{})
	url := srv.NewRepo(t, "config", siteFiles())
	_, err := gitops.NewSyncer(gitops.SyncerOptions{}).Sync(context.Background(),
		gitops.SyncOptions{Source: gitops.SourceSpec{URL: url}, WorkDir: t.TempDir()})
	g.Expect(err).NotTo(HaveOccurred())
	wt := srv.Clone(t, "config")

	code, out, errOut := cli(t, wt.Dir, "diff", "--site", "dev")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(BeEmpty())
	g.Expect(errOut).To(ContainSubstring("no changes for site dev"))

	wt.Write("base/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: green\n")
	code, out, errOut = cli(t, wt.Dir, "diff", "--site", "dev")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(ContainSubstring("--- a/dev/manifests.yaml (rendered "))
	g.Expect(out).To(ContainSubstring("+++ b/dev/manifests.yaml (working copy)"))
	g.Expect(out).To(ContainSubstring("-  color: blue\n+  color: green\n"))
}

func TestSitesSinceMarksAffectedSites(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")
	first := wt.Head()
	wt.Write("overlays/dev/kustomization.yaml", "resources:\n- ../../base\nnamePrefix: development-\n")
	wt.Commit("dev prefix")

	code, out, errOut := cli(t, wt.Dir, "sites")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(Equal("dev\nprod\n"))

	code, out, errOut = cli(t, wt.Dir, "sites", "--since", first)
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(normalizeSpaces(out)).To(ContainSubstring("dev yes\nprod no\n"))
}

func TestUsageErrorsAndVersion(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		nil, {"bogus"}, {"render"}, {"render", "extra"}, {"diff"},
		{"render", "--dir", "x", "--site", "y"}, {"render", "--site", "a", "--image", "x"},
	} {
		code, _, _ := cli(t, dir, args...)
		g.Expect(code).To(Equal(2), "%v", args)
	}
	code, out, _ := cli(t, dir, "version")
	g.Expect(code).To(Equal(0))
	g.Expect(out).To(Equal("siteops " + version.Version + "\n"))
}

// TestHelpExitsZeroAndShowsTheCommandsFlags: `siteops <command> -h` prints the command's usage, --ref among
// render's, and exits 0.
func TestHelpExitsZeroAndShowsTheCommandsFlags(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	for _, cmd := range []string{"render", "diff", "sites", "status", "verify"} {
		code, _, errOut := cli(t, dir, cmd, "-h")
		g.Expect(code).To(Equal(0), cmd)
		g.Expect(errOut).To(HavePrefix("Usage: siteops "+cmd+" "), cmd)
	}
	_, _, errOut := cli(t, dir, "render", "-h")
	usage, _, _ := strings.Cut(errOut, "\n")
	g.Expect(usage).To(ContainSubstring("[--ref REF]"))
}

// TestEveryUsageErrorSaysWhatIsWrong: each command-line mistake exits 2 and says something on stderr; --ref
// with a local checkout says that --ref needs a URL.
func TestEveryUsageErrorSaysWhatIsWrong(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		nil, {"bogus"}, {"render"}, {"render", "extra"}, {"diff"}, {"render", "--no-such-flag"},
		{"render", "--dir", "x", "--site", "y"}, {"render", "--site", "a", "--image", "x"},
		{"render", "--ref", "origin/main", "--site", "dev"},
	} {
		code, _, errOut := cli(t, dir, args...)
		g.Expect(code).To(Equal(2), "%v", args)
		g.Expect(strings.TrimSpace(errOut)).NotTo(BeEmpty(), "%v", args)
	}
	_, _, errOut := cli(t, dir, "render", "--ref", "origin/main", "--site", "dev")
	g.Expect(errOut).To(Equal("siteops render: --ref needs a URL in --repo (a local checkout renders its working tree)\n"))
}

func normalizeSpaces(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(strings.Join(strings.Fields(line), " ") + "\n")
	}
	return b.String()
}

// TestStatusWithoutKubeconfigSaysSo: with no kubeconfig anywhere (KUBECONFIG and HOME point at empty folders)
// status exits 1 with one line that says how to give one, not client-go's hint at KUBERNETES_MASTER.
func TestStatusWithoutKubeconfigSaysSo(t *testing.T) {
	g := NewWithT(t)
	empty := t.TempDir()
	t.Setenv("HOME", empty)
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "config"))
	t.Setenv("KUBERNETES_MASTER", "")

	code, out, errOut := cli(t, empty, "status")

	g.Expect(code).To(Equal(1))
	g.Expect(out).To(BeEmpty())
	g.Expect(errOut).To(Equal("siteops status: no kubeconfig: set KUBECONFIG or --kubeconfig\n"))
}

// TestCommandErrorsSayWhatIsWrong: mistakes the flag package cannot see print one line that names them (two
// SiteSync names, a NAME with -A, a --dir that does not exist), and an SSH --repo given no key names the
// variables that give one, without dialling the host.
func TestCommandErrorsSayWhatIsWrong(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	dialled := make(chan struct{}, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			dialled <- struct{}{}
			_ = c.Close()
		}
	}()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, v := range []string{"SITEOPS_GIT_USERNAME", "SITEOPS_GIT_PASSWORD", "SITEOPS_SSH_KEY_FILE"} {
		t.Setenv(v, "")
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"status", "a", "b"}, 2, "siteops status: give at most one SiteSync NAME, not 2\n"},
		{[]string{"status", "-A", "x"}, 2,
			"siteops status: -A lists the SiteSyncs of every namespace: give no NAME with it\n"},
		{[]string{"render", "--dir", "nope"}, 2, "siteops render: --dir nope: no such folder\n"},
		{[]string{"render", "--repo", "ssh://git@" + l.Addr().String() + "/config.git", "--site", "dev"}, 1,
			"siteops render: an SSH URL needs a private key and known hosts, and none were given (siteops never " +
				"uses an SSH agent): set SITEOPS_SSH_KEY_FILE and SITEOPS_SSH_KNOWN_HOSTS_FILE\n"},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			g := NewWithT(t)
			code, out, errOut := cli(t, dir, tc.args...)
			g.Expect(code).To(Equal(tc.code))
			g.Expect(out).To(BeEmpty())
			g.Expect(errOut).To(Equal(tc.want))
		})
	}
	NewWithT(t).Expect(dialled).NotTo(Receive(), "the SSH host is never dialled")
}
