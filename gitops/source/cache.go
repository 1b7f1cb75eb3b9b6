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

// Package source fetches the source commit into an on-disk cache of the repository (shallow, then
// incremental), with the credentials, TLS roots and host keys given, and checks its OpenPGP signature when
// asked; the same caches serve the target branch, and the pushes to it.
package source

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// Cache is a bare go-git repository under WorkDir that caches one remote URL for one purpose ("src",
// "src-full", "tgt"), reused across calls for incremental fetches. Its lock serializes the goroutines of this
// process using it; hold it from open to the last read.
type Cache struct {
	dir     string
	url     string
	auth    transport.AuthMethod
	ca      []byte // extra PEM roots for HTTPS (Auth.CABundle)
	repo    *git.Repository
	storage *filesystem.Storage
	held    *cacheDir
	remotes *remotes
	trees   *tree.Memo // the trees this open of the cache decoded, kept for the next one
}

// Caches owns what a process keeps about the cache folders it opens: a lock per folder and the trees the
// last open of each decoded. The lock serializes the goroutines of this process using a folder.
type Caches struct {
	mu      sync.Mutex
	dirs    map[string]*cacheDir
	remotes *remotes
}

// cacheDir is what caches keeps about one cache folder.
type cacheDir struct {
	lock  sync.Mutex
	trees *tree.Memo // the memo of the last open, read and replaced while lock is held
}

// NewCaches is a registry of cache folders with nothing remembered yet.
func NewCaches() *Caches { return &Caches{dirs: map[string]*cacheDir{}, remotes: newRemotes()} }

// dir is the entry of cache folder dir, made on first use.
func (cs *Caches) dir(dir string) *cacheDir {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	d, ok := cs.dirs[dir]
	if !ok {
		d = &cacheDir{}
		cs.dirs[dir] = d
	}
	return d
}

// Forget drops the tree memos of the cache folders under prefix (a folder path ending in a separator),
// waiting for a Sync that holds one of them.
func (cs *Caches) Forget(prefix string) {
	var under []*cacheDir
	cs.mu.Lock()
	for dir, d := range cs.dirs {
		if strings.HasPrefix(dir, prefix) {
			under = append(under, d)
		}
	}
	cs.mu.Unlock()
	for _, d := range under {
		d.lock.Lock()
		d.trees = nil
		d.lock.Unlock()
	}
}

// TreesDecoded is how many trees the last open of each cache folder under prefix read from its store (not
// found in what the open before it read).
func (cs *Caches) TreesDecoded(prefix string) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := 0
	for dir, d := range cs.dirs {
		if strings.HasPrefix(dir, prefix) && d.trees != nil {
			n += d.trees.Decoded()
		}
	}
	return n
}

// Open locks and opens (or creates) the cache of url for kind under workDir; ca (PEM, may be nil) is
// trusted for HTTPS on top of the system's roots.
func (cs *Caches) Open(workDir, kind, url string, auth transport.AuthMethod, ca []byte) (*Cache, error) {
	sum := sha256.Sum256([]byte(url))
	dir := filepath.Join(workDir, kind+"-"+hex.EncodeToString(sum[:8]))
	c := &Cache{dir: dir, url: url, auth: auth, ca: ca, held: cs.dir(dir), remotes: cs.remotes}
	c.held.lock.Lock()
	if err := c.open(); err != nil {
		c.held.lock.Unlock()
		return nil, err
	}
	return c, nil
}

// open opens the bare repository with its pack files kept open and an object cache until release: a Sync
// reads thousands of objects, and go-git otherwise opens, stats and closes the pack file for each one.
func (c *Cache) open() error {
	c.storage = filesystem.NewStorageWithOptions(osfs.New(c.dir), cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true})
	repo, err := git.Open(c.storage, nil)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			return fmt.Errorf("creating cache %s: %w", c.dir, err)
		}
		if repo, err = git.Init(c.storage, nil); err != nil {
			return fmt.Errorf("creating cache %s: %w", c.dir, err)
		}
		if _, err := repo.CreateRemote(&config.RemoteConfig{Name: git.DefaultRemoteName, URLs: []string{c.url}}); err != nil {
			return fmt.Errorf("configuring cache %s: %w", c.dir, err)
		}
	} else if err != nil {
		// A corrupt cache is rebuilt.
		return c.reset()
	}
	c.repo = repo
	return nil
}

// reset throws the cache away and starts an empty one (e.g. after a failed incremental fetch).
func (c *Cache) reset() error {
	c.closeStorage()
	if err := os.RemoveAll(c.dir); err != nil {
		return fmt.Errorf("removing cache %s: %w", c.dir, err)
	}
	return c.open()
}

// Dir is the cache's folder.
func (c *Cache) Dir() string { return c.dir }

// Repo is the cache's repository.
func (c *Cache) Repo() *git.Repository { return c.repo }

// Release closes the pack files and unlocks the cache.
func (c *Cache) Release() {
	c.closeStorage()
	c.held.lock.Unlock()
}

// closeStorage closes the pack files kept open since open; the object cache goes with the storage.
func (c *Cache) closeStorage() {
	if c.storage != nil {
		_ = c.storage.Close() // read-only descriptors: nothing to lose
		c.storage, c.repo = nil, nil
	}
}

// Memo is the memo of the trees read through this open of the cache: it starts with those the last open
// read, and replaces them for the next one.
func (c *Cache) treeMemo() *tree.Memo {
	if c.trees == nil {
		c.trees = tree.NewMemo()
		c.trees.Follow(c.held.trees)
		c.held.trees = c.trees
	}
	return c.trees
}

// Tree is a FS over root, a tree of the cache, sharing the cache's memo of decoded trees.
func (c *Cache) Tree(root *object.Tree) *tree.Git {
	return tree.NewMemoGit(c.repo.Storer, root, c.treeMemo())
}
