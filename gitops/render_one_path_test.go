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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/test/gitserver"
)

// TestCLIAndSyncRenderTheSameBytesAndErrors renders one revision of a repository whose overlays include every
// hostile case twice: as the CLI does (a working copy opened with OpenDir, then RenderSites) and as Sync does
// (read back from the rendered branch). Every site must get the same bytes, digest and warnings, or the
// same error (Sync's scrubbed for status) and failure reason, both ways.
func TestCLIAndSyncRenderTheSameBytesAndErrors(t *testing.T) {
	g := NewWithT(t)
	addr, connections := gitserver.CountingListener(t)
	outside := t.TempDir()
	outsideFile := filepath.Join(outside, "secret.yaml")
	g.Expect(os.WriteFile(outsideFile, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\n"),
		0o644)).To(Succeed())
	execMarker := filepath.Join(outside, "exec-ran")
	execScript := filepath.Join(outside, "touch.sh")
	g.Expect(os.WriteFile(execScript, []byte("#!/bin/sh\ntouch "+execMarker+"\ncat\n"), 0o755)).To(Succeed())

	cases := hostileCases(addr, outsideFile, execScript)
	e := newSyncEnv(t, baseRepo())
	wt := e.srv.Clone(t, e.repo)
	for name, c := range cases {
		for p, content := range c.files {
			wt.Write("overlays/"+name+"/"+p, content)
		}
		for p, target := range c.symlinks {
			wt.Symlink(target, "overlays/"+name+"/"+p)
		}
	}
	wt.Write("overlays/cycle-b/kustomization.yaml", "resources:\n- ../cycle\n")
	wt.Write("overlays/with-bases/kustomization.yaml", "bases:\n- ../../base\nnamePrefix: old-\n")
	rev := wt.Commit("hostile overlays next to good ones")
	wt.Push()

	c, err := OpenDir(wt.Dir)
	g.Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	g.Expect(c.Revision).To(Equal(rev))
	sites, err := c.Sites("")
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cli := c.RenderSites(ctx, "", sites, 2, nil)

	res := e.sync(t, nil)
	g.Expect(res.SourceRevision).To(Equal(rev))
	g.Expect(res.Sites).To(HaveLen(len(cli)))
	scrub := source.NewRedactor()
	failed := 0
	for _, r := range cli {
		s := site(t, res, r.Name)
		g.Expect(s.Warnings).To(Equal(r.Warnings), "site %s", r.Name)
		if r.Err != nil {
			failed++
			g.Expect(s.Ready).To(BeFalse(), "site %s failed in the CLI: %v", r.Name, r.Err)
			g.Expect(s.Message).To(Equal(scrub.String(r.Err.Error())), "site %s", r.Name)
			g.Expect(s.Reason).To(Equal(failureReason(r.Err)), "site %s", r.Name)
			_, published := e.srv.ReadFile(t, e.repo, DefaultTargetBranch, r.Name+"/"+ManifestFile)
			g.Expect(published).To(BeFalse(), "site %s has no output", r.Name)
			continue
		}
		g.Expect(s.Ready).To(BeTrue(), "site %s rendered in the CLI, Sync says: %s", r.Name, s.Message)
		g.Expect(s.InputDigest).To(Equal(r.InputDigest), "site %s", r.Name)
		g.Expect(e.rendered(t, r.Name)).To(Equal(string(r.YAML)), "site %s", r.Name)
	}
	// cycle-b, the other half of the cycle, fails too.
	g.Expect(failed).To(Equal(len(cases)+1), "every hostile overlay fails, the others render")
	g.Expect(strings.Join(sites, ",")).To(ContainSubstring("with-bases"))
	g.Expect(connections.Load()).To(BeZero(), "no network connection may be made")
	g.Expect(execMarker).NotTo(BeAnExistingFile(), "no exec function may run")
}
