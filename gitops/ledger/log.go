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
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Log remembers the publishes read from each rendered branch, so the next read walks only the commits pushed
// since, back to the window's start. Make one per process; it is safe for concurrent use.
type Log struct {
	mu       sync.Mutex
	branches map[string]branchLog
}

// branchLog is what a Log remembers of one branch: the head last read and its publishes back to since.
type branchLog struct {
	head  plumbing.Hash
	since time.Time
	pubs  []Publish
}

// NewLog makes a Log with nothing remembered.
func NewLog() *Log { return &Log{branches: map[string]branchLog{}} }

// Read returns the publishes of head back to since, newest first, as ReadPublishes does; key names the
// branch (say, the SiteSync). Commits read before are not read again.
func (l *Log) Read(key string, repo *git.Repository, head plumbing.Hash, since time.Time) ([]Publish, error) {
	l.mu.Lock()
	prev, ok := l.branches[key]
	l.mu.Unlock()
	if !ok || since.Before(prev.since) || !isAncestor(repo, prev.head, head) {
		prev = branchLog{}
	}
	fresh, err := readUntil(repo, head, prev.head, since)
	if err != nil {
		return nil, err
	}
	pubs := fresh
	for _, p := range prev.pubs {
		if !p.At.Before(since) {
			pubs = append(pubs, p)
		}
	}
	l.mu.Lock()
	l.branches[key] = branchLog{head: head, since: since, pubs: pubs}
	l.mu.Unlock()
	return append([]Publish(nil), pubs...), nil
}

// ForgetPrefix drops what the Log remembers of the branches whose keys start with prefix.
func (l *Log) ForgetPrefix(prefix string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.branches {
		if strings.HasPrefix(k, prefix) {
			delete(l.branches, k)
		}
	}
}

// isAncestor reports whether old is on head's history (false for a zero old or a branch pushed over).
func isAncestor(repo *git.Repository, old, head plumbing.Hash) bool {
	if old.IsZero() {
		return false
	}
	if old == head {
		return true
	}
	a, err := repo.CommitObject(old)
	if err != nil {
		return false
	}
	b, err := repo.CommitObject(head)
	if err != nil {
		return false
	}
	ok, err := a.IsAncestor(b)
	return err == nil && ok
}
