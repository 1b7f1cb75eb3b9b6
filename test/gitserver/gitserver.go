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

// Package gitserver serves bare Git repositories over HTTP on 127.0.0.1 for tests, with the real
// `git http-backend` behind net/http/cgi (fetch and push, optional basic auth), and counts the requests and
// connections it sees so a test can assert that nothing reached it. Helpers shell out to the real `git` CLI to
// create repositories and to play the user who pushes. Options.TLS serves HTTPS with a CA made for the test
// (NewCA); NewOpenPGPKey, NewGPG and Worktree.CommitSigned sign commits with Debian's gpg and check them with
// `git verify-commit`.
//
// In a test: srv := gitserver.Start(t, gitserver.Options{}); it stops on t.Cleanup. From TestMain pass a nil
// t and call Close yourself; helper failures then panic instead of failing a test.
package gitserver

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// DefaultBranch is the branch NewRepo creates.
const DefaultBranch = "main"

// Options configures a Server.
type Options struct {
	// Username and Password, when Username is set, require HTTP basic auth on every request (401 otherwise).
	Username, Password string
	// TLS, when set, serves HTTPS with TLS.Server (see NewCA): only clients trusting TLS.CertPEM connect.
	TLS *CA
}

// Server is a running Git HTTP server.
type Server struct {
	opts     Options
	root     string
	ownsRoot bool
	http     *httptest.Server
	handler  http.Handler
	requests atomic.Int64
	conns    atomic.Int64
	logMu    sync.Mutex
	log      []string // "METHOD /path?query" of every request
	caFile   string   // the CA file the git CLI trusts (HTTPS servers)
	cleanup  []func() // run by Close
}

// Start serves a fresh temporary root of bare repositories on 127.0.0.1 at a random port. With a non-nil t the
// server and its root are removed on t.Cleanup; with t == nil the caller must call Close.
func Start(t testing.TB, opts Options) *Server {
	if t != nil {
		t.Helper()
	}
	root, err := os.MkdirTemp("", "gitserver-")
	if err != nil {
		fail(t, "creating repository root: %v", err)
	}
	backend, err := httpBackendPath()
	if err != nil {
		_ = os.RemoveAll(root)
		fail(t, "%v", err)
	}
	s := &Server{opts: opts, root: root, ownsRoot: true}
	cgiHandler := &cgi.Handler{
		Path: backend,
		Root: "/",
		Dir:  root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
			// Pushes are anonymous at the CGI level (auth is checked here), so enable receive-pack explicitly.
			"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.receivepack", "GIT_CONFIG_VALUE_0=true",
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		},
		InheritEnv: []string{"PATH", "HOME", "TMPDIR"},
	}
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.logMu.Lock()
		s.log = append(s.log, r.Method+" "+r.URL.RequestURI())
		s.logMu.Unlock()
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Basic realm="gitserver"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		cgiHandler.ServeHTTP(w, r)
	})
	s.http = httptest.NewUnstartedServer(s.handler)
	s.countConnections()
	s.start()
	if opts.TLS != nil {
		s.caFile = s.writeCAFile(t)
	}
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// countConnections counts every new connection to the current HTTP server.
func (s *Server) countConnections() {
	s.http.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.conns.Add(1)
		}
	}
}

// Stop takes the server down as a Git host going away: its listener and open connections are closed (clients
// get "connection refused"), its repositories stay. Restart brings it back on the same address.
func (s *Server) Stop() { s.http.Close() }

// Restart serves the repositories again on the address the server had before Stop.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	addr := s.http.Listener.Addr().String()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fail(t, "listening again on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(s.handler)
	_ = srv.Listener.Close()
	srv.Listener = l
	s.http = srv
	s.countConnections()
	s.start()
}

// start serves plain HTTP, or HTTPS with the certificate of Options.TLS.
func (s *Server) start() {
	if s.opts.TLS == nil {
		s.http.Start()
		return
	}
	s.http.TLS = &tls.Config{Certificates: []tls.Certificate{s.opts.TLS.Server}, MinVersion: tls.VersionTLS12}
	s.http.StartTLS()
}

func (s *Server) authorized(r *http.Request) bool {
	if s.opts.Username == "" {
		return true
	}
	user, pass, ok := r.BasicAuth()
	return ok && user == s.opts.Username && pass == s.opts.Password
}

// Close stops the server and removes its repositories.
func (s *Server) Close() {
	s.http.Close()
	if s.ownsRoot {
		_ = os.RemoveAll(s.root)
	}
	for _, f := range s.cleanup {
		f()
	}
}

// Root is the folder holding the bare repositories (<Root>/<name>.git), e.g. for file:// URLs.
func (s *Server) Root() string { return s.root }

// Addr is the server's base URL, http://127.0.0.1:<port> (https:// with Options.TLS).
func (s *Server) Addr() string { return s.http.URL }

// URL is the clone URL of repository name (without credentials).
func (s *Server) URL(name string) string { return s.http.URL + "/" + repoDir(name) }

// Requests counts the HTTP requests served so far, including rejected ones.
func (s *Server) Requests() int64 { return s.requests.Load() }

// RequestLog lists the requests served so far, oldest first, as "METHOD /path?query" (e.g.
// "GET /config.git/info/refs?service=git-upload-pack", "POST /config.git/git-receive-pack").
func (s *Server) RequestLog() []string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]string(nil), s.log...)
}

// Connections counts the TCP connections accepted so far.
func (s *Server) Connections() int64 { return s.conns.Load() }

// GitDir is the path of repository name's bare repository.
func (s *Server) GitDir(name string) string { return filepath.Join(s.root, repoDir(name)) }

// NewRepo creates bare repository name with one commit on DefaultBranch holding files (path → content;
// folders are created) and returns its clone URL.
func (s *Server) NewRepo(t testing.TB, name string, files map[string]string) string {
	if t != nil {
		t.Helper()
	}
	gitDir := s.GitDir(name)
	run(t, "", "init", "--quiet", "--bare", "--initial-branch="+DefaultBranch, gitDir)
	work, err := os.MkdirTemp("", "gitserver-seed-")
	if err != nil {
		fail(t, "creating seed worktree: %v", err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	run(t, work, "init", "--quiet", "--initial-branch="+DefaultBranch)
	wt := &Worktree{t: t, Dir: work, Branch: DefaultBranch}
	for path, content := range files {
		wt.Write(path, content)
	}
	wt.Commit("initial commit")
	run(t, work, "push", "--quiet", gitDir, "HEAD:refs/heads/"+DefaultBranch)
	return s.URL(name)
}

// Log lists the commits of branch in repository name, newest first, read directly from the bare repository
// (no HTTP request is made). A missing branch yields an empty list.
func (s *Server) Log(t testing.TB, name, branch string) []Commit {
	if t != nil {
		t.Helper()
	}
	if _, err := gitOutput("", "--git-dir", s.GitDir(name), "rev-parse", "--verify", "--quiet",
		"refs/heads/"+branch); err != nil {
		return nil
	}
	return parseLog(run(t, "", "--git-dir", s.GitDir(name), "log", logFormat, "refs/heads/"+branch))
}

// Head is the commit SHA of branch in repository name, or "" when the branch does not exist. It takes a
// testing.TB, unused, like every other Server helper, so callers need not know which ones can fail a test.
func (s *Server) Head(_ testing.TB, name, branch string) string {
	out, err := gitOutput("", "--git-dir", s.GitDir(name), "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// ReadFile returns the content of path at rev (a branch or SHA) in repository name, and whether it exists.
// Like Head it takes an unused testing.TB.
func (s *Server) ReadFile(_ testing.TB, name, rev, path string) (string, bool) {
	out, err := gitOutput("", "--git-dir", s.GitDir(name), "show", rev+":"+path)
	if err != nil {
		return "", false
	}
	return out, true
}

// Files lists every file path at rev in repository name, sorted.
func (s *Server) Files(t testing.TB, name, rev string) []string {
	if t != nil {
		t.Helper()
	}
	out := run(t, "", "--git-dir", s.GitDir(name), "ls-tree", "-r", "--name-only", rev)
	return strings.Fields(out)
}

func repoDir(name string) string {
	if strings.HasSuffix(name, ".git") {
		return name
	}
	return name + ".git"
}

// httpBackendPath finds git-http-backend in git's exec path.
func httpBackendPath() (string, error) {
	out, err := gitOutput("", "--exec-path")
	if err != nil {
		return "", fmt.Errorf("finding git's exec path (is git installed?): %w", err)
	}
	path := filepath.Join(strings.TrimSpace(out), "git-http-backend")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("git-http-backend not found: %w", err)
	}
	return path, nil
}

// gitEnv isolates the git CLI from the user's configuration and fixes the identity of test commits.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		// The CA of an HTTPS test server comes from http.sslCAInfo, which these would override.
		if !strings.HasPrefix(kv, "GIT_SSL_CAINFO=") && !strings.HasPrefix(kv, "GIT_SSL_CAPATH=") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=gitserver test", "GIT_AUTHOR_EMAIL=test@gitserver.local",
		"GIT_COMMITTER_NAME=gitserver test", "GIT_COMMITTER_EMAIL=test@gitserver.local",
	)
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

func run(t testing.TB, dir string, args ...string) string {
	if t != nil {
		t.Helper()
	}
	out, err := gitOutput(dir, args...)
	if err != nil {
		fail(t, "%v", err)
	}
	return out
}

func fail(t testing.TB, format string, args ...any) {
	if t != nil {
		t.Helper()
		t.Fatalf("gitserver: "+format, args...)
	}
	panic(fmt.Sprintf("gitserver: "+format, args...))
}
