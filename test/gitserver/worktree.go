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

package gitserver

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Worktree is a non-bare clone that plays a user of a served repository; every method shells out to git and
// fails the test (or panics when t is nil) on error.
type Worktree struct {
	t testing.TB
	// Dir is the working directory.
	Dir string
	// Branch is the branch Commit and Push work on.
	Branch string
}

// Commit is one commit of a Log.
type Commit struct {
	SHA string
	// Message is the full commit message (subject, body and trailers).
	Message string
}

// Subject is the first line of the message.
func (c Commit) Subject() string {
	subject, _, _ := strings.Cut(c.Message, "\n")
	return subject
}

// Trailer returns the value of trailer key (e.g. "Siteops-Source-Revision") in the message, or "".
func (c Commit) Trailer(key string) string {
	for _, line := range strings.Split(c.Message, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), key) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

const logFormat = "--format=%H%x00%B%x1e"

// Clone clones repository name over HTTP (with the server's credentials) at DefaultBranch into a temp dir
// removed on t.Cleanup (or left for the OS when t is nil).
func (s *Server) Clone(t testing.TB, name string) *Worktree {
	if t != nil {
		t.Helper()
	}
	var dir string
	if t != nil {
		dir = t.TempDir()
	} else {
		d, err := os.MkdirTemp("", "gitserver-clone-")
		if err != nil {
			fail(t, "creating clone dir: %v", err)
		}
		dir = d
	}
	u, err := url.Parse(s.URL(name))
	if err != nil {
		fail(t, "parsing URL: %v", err)
	}
	if s.opts.Username != "" {
		u.User = url.UserPassword(s.opts.Username, s.opts.Password)
	}
	args := []string{"clone", "--quiet"}
	if s.caFile != "" {
		// -c for the clone itself, --config kept in the clone so later fetches and pushes trust the server too.
		args = []string{"-c", "http.sslCAInfo=" + s.caFile, "clone", "--quiet", "--config", "http.sslCAInfo=" + s.caFile}
	}
	run(t, "", append(args, u.String(), dir)...)
	return &Worktree{t: t, Dir: dir, Branch: DefaultBranch}
}

// Checkout switches to branch, tracking origin/branch when it exists, or creating an empty orphan branch.
func (w *Worktree) Checkout(branch string) {
	w.helper()
	run(w.t, w.Dir, "fetch", "--quiet", "origin")
	if _, err := gitOutput(w.Dir, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/"+branch); err == nil {
		run(w.t, w.Dir, "checkout", "--quiet", "-B", branch, "origin/"+branch)
	} else {
		run(w.t, w.Dir, "checkout", "--quiet", "--orphan", branch)
		run(w.t, w.Dir, "rm", "-r", "--quiet", "--cached", "--ignore-unmatch", ".")
		run(w.t, w.Dir, "clean", "-fdq")
	}
	w.Branch = branch
}

// NewBranch creates branch at HEAD and switches to it (Push then creates it on the remote).
func (w *Worktree) NewBranch(branch string) {
	w.helper()
	run(w.t, w.Dir, "checkout", "--quiet", "-b", branch)
	w.Branch = branch
}

// Pull fetches and resets the current branch to its remote head, dropping local changes.
func (w *Worktree) Pull() {
	w.helper()
	run(w.t, w.Dir, "fetch", "--quiet", "origin")
	run(w.t, w.Dir, "reset", "--quiet", "--hard", "origin/"+w.Branch)
}

// Write writes content to path (relative to the worktree), creating folders.
func (w *Worktree) Write(path, content string) {
	w.helper()
	full := filepath.Join(w.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		fail(w.t, "creating folder of %s: %v", path, err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		fail(w.t, "writing %s: %v", path, err)
	}
}

// Remove deletes path (a file or a whole folder).
func (w *Worktree) Remove(path string) {
	w.helper()
	if err := os.RemoveAll(filepath.Join(w.Dir, filepath.FromSlash(path))); err != nil {
		fail(w.t, "removing %s: %v", path, err)
	}
}

// Symlink creates a symbolic link at path pointing to target (stored as is, relative or absolute).
func (w *Worktree) Symlink(target, path string) {
	w.helper()
	full := filepath.Join(w.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		fail(w.t, "creating folder of %s: %v", path, err)
	}
	_ = os.Remove(full)
	if err := os.Symlink(target, full); err != nil {
		fail(w.t, "symlinking %s: %v", path, err)
	}
}

// Commit stages every change and commits it with msg, returning the new HEAD SHA.
func (w *Worktree) Commit(msg string) string {
	w.helper()
	run(w.t, w.Dir, "add", "--all")
	run(w.t, w.Dir, "-c", "commit.gpgsign=false", "commit", "--quiet", "--allow-empty", "-m", msg)
	return w.Head()
}

// Head is the SHA of the worktree's HEAD.
func (w *Worktree) Head() string {
	w.helper()
	return strings.TrimSpace(run(w.t, w.Dir, "rev-parse", "HEAD"))
}

// Push pushes the current branch to origin (a plain, fast-forward-only push).
func (w *Worktree) Push() {
	w.helper()
	run(w.t, w.Dir, "push", "--quiet", "origin", "HEAD:refs/heads/"+w.Branch)
}

// ForcePush force-pushes the current branch to origin, rewriting its history.
func (w *Worktree) ForcePush() {
	w.helper()
	run(w.t, w.Dir, "push", "--quiet", "--force", "origin", "HEAD:refs/heads/"+w.Branch)
}

// Tag creates a lightweight tag at HEAD and pushes it.
func (w *Worktree) Tag(name string) {
	w.helper()
	run(w.t, w.Dir, "tag", name)
	run(w.t, w.Dir, "push", "--quiet", "origin", "refs/tags/"+name)
}

// Log fetches origin and lists the commits of origin/branch, newest first.
func (w *Worktree) Log(branch string) []Commit {
	w.helper()
	run(w.t, w.Dir, "fetch", "--quiet", "origin")
	return parseLog(run(w.t, w.Dir, "log", logFormat, "refs/remotes/origin/"+branch))
}

func (w *Worktree) helper() {
	if w.t != nil {
		w.t.Helper()
	}
}

func parseLog(out string) []Commit {
	var commits []Commit
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		sha, msg, ok := strings.Cut(rec, "\x00")
		if !ok {
			continue
		}
		commits = append(commits, Commit{SHA: sha, Message: strings.TrimRight(msg, "\n")})
	}
	return commits
}
