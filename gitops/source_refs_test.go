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
	"context"
	"net"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/test/gitserver"
)

func TestSyncSourceRefs(t *testing.T) {
	t.Parallel()
	e := newSyncEnv(t, baseRepo())
	wt := e.srv.Clone(t, e.repo)
	tagged := wt.Head()
	wt.Tag("v1.0.0")
	wt.Write("overlays/dev/site-values.yaml", siteValues(5, "nginx:1.27"))
	tip := wt.Commit("dev: five")
	wt.Push()
	wt.NewBranch("feature")
	wt.Write("overlays/dev/site-values.yaml", siteValues(6, "nginx:1.27"))
	feature := wt.Commit("feature: six")
	wt.Push()

	for _, tc := range []struct {
		name, ref, wantRev string
	}{
		{"default branch", "", tip},
		{"branch", "main", tip},
		{"other branch", "feature", feature},
		{"tag", "v1.0.0", tagged},
		{"full SHA", tagged, tagged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			o := e.opts
			o.Source.Ref, o.WorkDir, o.Target.Branch = tc.ref, t.TempDir(), "rendered-"+tc.name[:3]
			res, err := NewSyncer(SyncerOptions{}).Sync(context.Background(), o)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(res.SourceRevision).To(Equal(tc.wantRev))
			g.Expect(e.srv.Log(t, e.repo, o.Target.Branch)[0].Trailer(TrailerSourceRevision)).To(Equal(tc.wantRev))
		})
	}
}

func TestSyncFollowsAForcePushedSourceBranch(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	stale := e.srv.Clone(t, e.repo) // still at the initial commit
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	dropped := wt.Commit("dev: two")
	wt.Push()
	second := e.sync(t, &first)
	renderedBefore := e.srv.Log(t, e.repo, DefaultTargetBranch)

	stale.Write("overlays/dev/site-values.yaml", siteValues(9, "nginx:1.29"))
	forced := stale.Commit("dev: nine, history rewritten")
	stale.ForcePush()
	for _, c := range e.srv.Log(t, e.repo, gitserver.DefaultBranch) {
		g.Expect(c.SHA).NotTo(Equal(dropped), "the source history was rewritten")
	}

	res := e.sync(t, &second)

	g.Expect(res.SourceRevision).To(Equal(forced))
	g.Expect(site(t, res, "dev").Ready).To(BeTrue())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("replicas: 9"))
	after := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(after).To(HaveLen(len(renderedBefore) + 1))
	g.Expect(after[1:]).To(Equal(renderedBefore), "no rendered commit lost")
}

func TestSyncPermanentErrors(t *testing.T) {
	t.Parallel()
	e := newSyncEnv(t, baseRepo())
	for _, tc := range []struct {
		name string
		edit func(*SyncOptions)
		want string
	}{
		{"unsupported scheme", func(o *SyncOptions) { o.Source.URL = "ftp://127.0.0.1/x.git" }, "unsupported git URL scheme"},
		{"password in URL", func(o *SyncOptions) { o.Source.URL = "https://u:p@127.0.0.1/x.git" }, "carries a password"},
		{"missing ref", func(o *SyncOptions) { o.Source.Ref = "no-such-branch" }, `ref "no-such-branch" not found`},
		{"missing SHA", func(o *SyncOptions) { o.Source.Ref = "0123456789012345678901234567890123456789" }, "not found"},
		{"missing repository", func(o *SyncOptions) { o.Source.URL = e.srv.URL("nope") }, "repository not found"},
		{"missing overlays dir", func(o *SyncOptions) { o.OverlaysDir = "sites" }, `overlays folder "sites" not found`},
		{"target is the source branch", func(o *SyncOptions) { o.Target.Branch = "main" }, "is the source branch"},
		{"ssh key without known hosts", func(o *SyncOptions) {
			o.Source.URL, o.Source.Auth = "ssh://git@127.0.0.1:1/x.git", &Auth{SSHPrivateKey: []byte("k")}
		}, "known hosts"},
		{"bad author", func(o *SyncOptions) { o.CommitAuthor = "nobody" }, "commit author"},
		{"path template collision", func(o *SyncOptions) { o.Target.PathTemplate = "all" }, "the same folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			o := e.opts
			o.WorkDir = t.TempDir()
			tc.edit(&o)
			_, err := NewSyncer(SyncerOptions{}).Sync(context.Background(), o)
			g.Expect(err).To(MatchError(ContainSubstring(tc.want)))
			g.Expect(IsPermanent(err)).To(BeTrue(), "error %v should be permanent", err)
		})
	}
}

func TestSyncUnreachableSourceIsTransient(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	g.Expect(l.Close()).To(Succeed()) // nothing listens there any more
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	_, err = NewSyncer(SyncerOptions{}).Sync(ctx, SyncOptions{Source: SourceSpec{URL: "http://" + addr + "/x.git"},
		WorkDir: t.TempDir()})

	g.Expect(err).To(HaveOccurred())
	g.Expect(IsPermanent(err)).To(BeFalse())
}

func TestSyncBasicAuthAndCredentialsNeverInMessages(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	const password = "s3cret-Token-value"
	srv := gitserver.Start(t, gitserver.Options{Username: "git", Password: password})
	url := srv.NewRepo(t, "private", baseRepo())

	res, err := NewSyncer(SyncerOptions{}).Sync(context.Background(), SyncOptions{
		Source:  SourceSpec{URL: url, Auth: &Auth{Username: "git", Password: password}},
		WorkDir: t.TempDir(),
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(srv.Log(t, "private", DefaultTargetBranch)).To(HaveLen(1))

	_, err = NewSyncer(SyncerOptions{}).Sync(context.Background(), SyncOptions{
		Source:  SourceSpec{URL: url, Auth: &Auth{Username: "git", Password: "wrong-" + password}},
		WorkDir: t.TempDir(),
	})
	g.Expect(err).To(HaveOccurred())
	g.Expect(IsPermanent(err)).To(BeTrue())
	g.Expect(err.Error()).NotTo(ContainSubstring(password))

	_, err = NewSyncer(SyncerOptions{}).Sync(context.Background(), SyncOptions{Source: SourceSpec{URL: url},
		WorkDir: t.TempDir()})
	g.Expect(err).To(MatchError(ContainSubstring("authentication required")))
	g.Expect(IsPermanent(err)).To(BeTrue())
}

func TestSyncFileURLSourceAndSeparateTarget(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", baseRepo())
	srv.NewRepo(t, "rendered", map[string]string{"README.md": "rendered output lives on branch deploy\n"})

	res, err := NewSyncer(SyncerOptions{}).Sync(context.Background(), SyncOptions{
		Source:  SourceSpec{URL: "file://" + srv.GitDir("config")},
		Target:  TargetSpec{URL: "file://" + srv.GitDir("rendered"), Branch: "deploy", PathTemplate: "clusters/{{.Site}}"},
		WorkDir: t.TempDir(),
	})

	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(srv.Files(t, "rendered", "deploy")).To(Equal([]string{
		"clusters/dev/manifests.yaml", "clusters/edge/manifests.yaml", "clusters/prod/manifests.yaml",
	}))
	g.Expect(srv.Log(t, "config", DefaultTargetBranch)).To(BeEmpty(), "nothing written to the source")
}
