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

package ledger

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/publish"
)

// t0 is the start of the scripted history's window.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// branch is a rendered branch written with publish.Build, each commit stamped with a chosen time.
type branch struct {
	t    *testing.T
	repo *git.Repository
	head plumbing.Hash
}

func newBranch(t *testing.T) *branch {
	repo, err := git.PlainInit(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	return &branch{t: t, repo: repo}
}

// rev is a made-up 40-hex source revision.
func rev(n byte) string { return strings.Repeat(string('0'+n), 40) }

// publish commits, at the given time, the output of source revision src for sites (content names the
// output); restored maps sites given earlier output back to that output's revision; it returns the commit.
func (b *branch) publish(at time.Time, src string, sites []string, restored map[string]string,
	trailers ...publish.Trailer) plumbing.Hash {
	b.t.Helper()
	st := b.repo.Storer
	in := publish.Input{Branch: "rendered", Author: object.Signature{Name: "siteops", Email: "s@localhost"},
		SourceRev: src, Restored: restored, Trailers: trailers}
	for _, s := range sites {
		out := src
		if r, ok := restored[s]; ok {
			out = r
		}
		obj := st.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		w, _ := obj.Writer()
		_, _ = w.Write([]byte("output of " + out + " for " + s + "\n"))
		_ = w.Close()
		h, err := st.SetEncodedObject(obj)
		if err != nil {
			b.t.Fatal(err)
		}
		in.Files = append(in.Files, publish.File{Dir: s, Site: s, Blob: h})
	}
	target := publish.Target{Head: b.head}
	if !b.head.IsZero() {
		c, err := b.repo.CommitObject(b.head)
		if err != nil {
			b.t.Fatal(err)
		}
		if target.Tree, err = c.Tree(); err != nil {
			b.t.Fatal(err)
		}
		target.Files = tree.NewGit(st, target.Tree)
	}
	h, _, err := publish.Build(st, target, in)
	if err != nil || h.IsZero() {
		b.t.Fatalf("publishing %v: %v (commit %s)", sites, err, h)
	}
	return b.restamp(h, at)
}

// foreign commits, at the given time, a change siteops did not make.
func (b *branch) foreign(at time.Time) {
	c, err := b.repo.CommitObject(b.head)
	if err != nil {
		b.t.Fatal(err)
	}
	b.head = b.store(&object.Commit{Author: c.Author, Committer: c.Committer, TreeHash: c.TreeHash,
		ParentHashes: []plumbing.Hash{b.head}, Message: "hand edit\n"}, at)
}

// restamp rewrites commit h with the committer time at and makes it the head.
func (b *branch) restamp(h plumbing.Hash, at time.Time) plumbing.Hash {
	c, err := b.repo.CommitObject(h)
	if err != nil {
		b.t.Fatal(err)
	}
	b.head = b.store(c, at)
	return b.head
}

func (b *branch) store(c *object.Commit, at time.Time) plumbing.Hash {
	c.Author.When, c.Committer.When = at, at
	obj := b.repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		b.t.Fatal(err)
	}
	h, err := b.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		b.t.Fatal(err)
	}
	return h
}

// scriptedHistory is ten days of a fleet of sites a, b and c, with the status records that go with it:
//
//	R0  before the window: a, b, c.
//	R1  committed t0+1h, published a, b, c at +2h, delivered at +3h: lead time 2h.
//	R2  committed day 1, published a at +1h and b, c at +2h (waves), delivered at +4h: lead time 4h.
//	    A hand edit follows on the branch.
//	R3  committed day 2, published a at +30m; a halts the rollout at +1h and is reverted at +1h10m; every
//	    site is Delivered again at +1h40m: time to restore 40m.
//	R4  committed day 3, published a, b at +1h; b halts the rollout at +2h (no revert).
//	R5  committed day 4, published a, b, c at +1h, delivered at +3h: lead time 3h; R4 restored then: 25h.
//	R6  committed day 9, published day 10 +1h, after the window.
func scriptedHistory(t *testing.T) (*branch, []Change) {
	b := newBranch(t)
	day := 24 * time.Hour
	all := []string{"a", "b", "c"}
	b.publish(t0.Add(-day), rev(0), all, nil)
	b.publish(t0.Add(2*time.Hour), rev(1), all, nil)
	b.publish(t0.Add(day+time.Hour), rev(2), []string{"a"}, nil)
	b.publish(t0.Add(day+2*time.Hour), rev(2), []string{"b", "c"}, nil)
	b.foreign(t0.Add(day + 3*time.Hour))
	r3a := b.publish(t0.Add(2*day+30*time.Minute), rev(3), []string{"a"}, nil)
	b.publish(t0.Add(2*day+70*time.Minute), rev(3), []string{"a"}, map[string]string{"a": rev(2)},
		publish.Trailer{Key: publish.TrailerRevertOf, Value: r3a.String()})
	b.publish(t0.Add(3*day+time.Hour), rev(4), []string{"a", "b"}, nil)
	b.publish(t0.Add(4*day+time.Hour), rev(5), all, nil)
	b.publish(t0.Add(10*day+time.Hour), rev(6), all, nil)
	changes := []Change{
		{Revision: rev(6), CommittedAt: t0.Add(9 * day), PublishedAt: t0.Add(10*day + time.Hour)},
		{Revision: rev(5), CommittedAt: t0.Add(4 * day), PublishedAt: t0.Add(4*day + time.Hour),
			DeliveredAt: t0.Add(4*day + 3*time.Hour)},
		{Revision: rev(4), CommittedAt: t0.Add(3 * day), PublishedAt: t0.Add(3*day + time.Hour),
			HaltedAt: t0.Add(3*day + 2*time.Hour), FailedSites: []string{"b"}, RestoredAt: t0.Add(4*day + 3*time.Hour)},
		{Revision: rev(3), CommittedAt: t0.Add(2 * day), PublishedAt: t0.Add(2*day + 30*time.Minute),
			HaltedAt: t0.Add(2*day + time.Hour), FailedSites: []string{"a"}, RestoredAt: t0.Add(2*day + 100*time.Minute)},
		{Revision: rev(2), CommittedAt: t0.Add(day), PublishedAt: t0.Add(day + time.Hour),
			DeliveredAt: t0.Add(day + 4*time.Hour)},
		{Revision: rev(1), CommittedAt: t0.Add(time.Hour), PublishedAt: t0.Add(2 * time.Hour),
			DeliveredAt: t0.Add(3 * time.Hour)},
	}
	return b, changes
}

func TestLedgerOfAScriptedHistory(t *testing.T) {
	b, changes := scriptedHistory(t)
	w := Window{From: t0, To: t0.Add(10 * 24 * time.Hour)}
	pubs, err := ReadPublishes(b.repo, b.head, w.From)
	if err != nil {
		t.Fatal(err)
	}
	got := Compute(pubs, changes, w)

	// By hand: R1..R5 deployed in ten days; R3 and R4 failed; lead times 2h, 4h, 3h; restores 40m, 25h.
	want := Report{From: w.From, To: w.To, Deployments: 5, DeploymentsPerDay: 0.5, FailedChanges: 2,
		ChangeFailureRate: 0.4,
		LeadTime: Durations{Count: 3, SumSeconds: 9 * 3600, MedianSeconds: 3 * 3600, MeanSeconds: 3 * 3600,
			MaxSeconds: 4 * 3600},
		TimeToRestore: Durations{Count: 2, SumSeconds: 2400 + 90000, MedianSeconds: (2400 + 90000) / 2,
			MeanSeconds: (2400 + 90000) / 2, MaxSeconds: 90000},
		Sites: []SiteReport{
			{Name: "a", Deployments: 5, DeploymentsPerDay: 0.5, FailedChanges: 1, ChangeFailureRate: 0.2},
			{Name: "b", Deployments: 4, DeploymentsPerDay: 0.4, FailedChanges: 1, ChangeFailureRate: 0.25},
			{Name: "c", Deployments: 3, DeploymentsPerDay: 0.3},
		},
	}
	if diff := cmpReport(got, want); diff != "" {
		t.Errorf("report:\n%s", diff)
	}
}

func TestReadPublishesParsesTheTrailersAndStopsAtTheWindow(t *testing.T) {
	b, _ := scriptedHistory(t)
	pubs, err := ReadPublishes(b.repo, b.head, t0.Add(2*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var revs []string
	for _, p := range pubs {
		revs = append(revs, p.SourceRevision[:1])
	}
	// Newest first: R6, R5, R4, the revert of R3, R3; nothing older than the window's start.
	if got := strings.Join(revs, ""); got != "65433" {
		t.Fatalf("source revisions read: %q, want 65433", got)
	}
	revert := pubs[3]
	if revert.RevertOf != pubs[4].Commit || strings.Join(revert.Restored, ",") != "a" ||
		strings.Join(revert.Sites, ",") != "a" || len(revert.Deployed()) != 0 {
		t.Errorf("revert read as %+v, want a restored, reverting %s", revert, pubs[4].Commit)
	}
	if got := strings.Join(pubs[2].Sites, ","); got != "a,b" || pubs[2].RevertOf != "" {
		t.Errorf("R4's commit read as %+v, want sites a,b", pubs[2])
	}
}

func TestLogReadsOnlyTheNewCommits(t *testing.T) {
	b, changes := scriptedHistory(t)
	w := Window{From: t0, To: t0.Add(10 * 24 * time.Hour)}
	full, err := ReadPublishes(b.repo, b.head, w.From)
	if err != nil {
		t.Fatal(err)
	}
	// The log first reads an older head, then the branch as it is now: the same publishes as one full read.
	log := NewLog()
	c, err := b.repo.CommitObject(b.head)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := log.Read("ns/fleet", b.repo, c.ParentHashes[0], w.From); err != nil {
		t.Fatal(err)
	}
	got, err := log.Read("ns/fleet", b.repo, b.head, w.From)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmpReport(Compute(got, changes, w), Compute(full, changes, w)); diff != "" || len(got) != len(full) {
		t.Errorf("incremental read differs from a full one (%d vs %d publishes):\n%s", len(got), len(full), diff)
	}
	if got[0].Commit != b.head.String() {
		t.Errorf("newest publish %s, want the head %s", got[0].Commit, b.head)
	}
}

// cmpReport says how got differs from want, or "" when they are equal.
func cmpReport(got, want Report) string {
	if reflect.DeepEqual(got, want) {
		return ""
	}
	return fmt.Sprintf("got  %+v\nwant %+v", got, want)
}
