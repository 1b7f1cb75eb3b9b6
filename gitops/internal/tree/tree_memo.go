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

package tree

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeNode is one decoded Git tree: its entries in Git order and, for a large folder, an index by name.
// It holds no object store, so it outlives the store it was read from: trees are immutable.
type treeNode struct {
	hash    plumbing.Hash
	entries []object.TreeEntry
	index   map[string]int // nil for a small folder: a scan is cheaper than a map
}

// indexFrom is the entry count from which a treeNode indexes its entries by name.
const indexFrom = 16

func newTreeNode(t *object.Tree) *treeNode {
	n := &treeNode{hash: t.Hash, entries: t.Entries}
	if len(t.Entries) >= indexFrom {
		n.index = make(map[string]int, len(t.Entries))
		for i, e := range t.Entries {
			n.index[e.Name] = i
		}
	}
	return n
}

// find is the entry called name.
func (n *treeNode) find(name string) (object.TreeEntry, bool) {
	if n.index != nil {
		i, ok := n.index[name]
		if !ok {
			return object.TreeEntry{}, false
		}
		return n.entries[i], true
	}
	for _, e := range n.entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// Memo keeps the trees one Sync decoded for the next Sync of the same cache: the folders no commit
// changed since (every unchanged site's) have the same hashes, so the next Sync finds them here instead of
// reading and decoding them again. Only what the last Sync used is kept, so it never grows beyond one Sync's
// working set.
type Memo struct {
	prev, next       map[plumbing.Hash]*treeNode
	prevSize, nxSize map[plumbing.Hash]int64
	decoded          int // trees read from the store (not found in the memo)
}

// Decoded is how many trees m read from a store (not found in what it started with).
func (m *Memo) Decoded() int { return m.decoded }

// Follow makes m start with what old (the memo of the last Sync of the same cache, may be nil) read.
func (m *Memo) Follow(old *Memo) {
	if old != nil {
		m.prev, m.prevSize = old.next, old.nxSize
	}
}

// NewMemo is a memo that no later Sync reuses.
func NewMemo() *Memo {
	return &Memo{next: map[plumbing.Hash]*treeNode{}, nxSize: map[plumbing.Hash]int64{}}
}

// tree is the decoded tree h of s.
func (m *Memo) tree(s storer.EncodedObjectStorer, h plumbing.Hash) (*treeNode, error) {
	if n, ok := m.next[h]; ok {
		return n, nil
	}
	if n, ok := m.prev[h]; ok {
		m.next[h] = n
		return n, nil
	}
	t, err := object.GetTree(s, h)
	if err != nil {
		return nil, fmt.Errorf("reading tree %s: %w", h, err)
	}
	m.decoded++
	n := newTreeNode(t)
	m.next[h] = n
	return n, nil
}

// size is the size of blob h of s.
func (m *Memo) size(s storer.EncodedObjectStorer, h plumbing.Hash) (int64, error) {
	if n, ok := m.nxSize[h]; ok {
		return n, nil
	}
	n, ok := m.prevSize[h]
	if !ok {
		var err error
		if n, err = s.EncodedObjectSize(h); err != nil {
			return 0, err
		}
	}
	m.nxSize[h] = n
	return n, nil
}
