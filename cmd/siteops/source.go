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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/source"
)

// newFlagSet returns a flag set for a command that reports errors as errUsage.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		_, _ = fmt.Fprintf(stderr, "Usage: siteops %s %s\n\nFlags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, refusing positional arguments. With -h it returns flag.ErrHelp, the usage printed.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseOnly(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		_, _ = fmt.Fprintf(fs.Output(), "siteops %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
}

// parseOnly parses args: flag.ErrHelp for -h, errUsage for a mistake (flag printed both).
func parseOnly(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return flag.ErrHelp
	default:
		return errUsage
	}
}

// isURL reports whether repo names a remote rather than a folder.
func isURL(repo string) bool {
	return strings.Contains(repo, "://") || (strings.Contains(repo, "@") && strings.Contains(repo, ":") &&
		!strings.HasPrefix(repo, "/") && !strings.HasPrefix(repo, "."))
}

// openRepo opens --repo: a local working copy (its Git root) or a URL fetched into the user cache.
func openRepo(ctx context.Context, sy *gitops.Syncer, repo, ref string) (*gitops.Checkout, error) {
	if !isURL(repo) {
		if ref != "" {
			return nil, usageError{"--ref needs a URL in --repo (a local checkout renders its working tree)"}
		}
		return gitops.OpenDir(repo)
	}
	dir, err := cacheDir()
	if err != nil {
		return nil, err
	}
	auth, err := authFromEnv()
	if err != nil {
		return nil, err
	}
	c, err := sy.FetchCheckout(ctx, dir, gitops.SourceSpec{URL: repo, Ref: ref, Auth: auth})
	return c, sshKeyHint(err)
}

// sshKeyHint adds to the error of an SSH URL given no key the environment variables that give one.
func sshKeyHint(err error) error {
	if errors.Is(err, source.ErrNoSSHKey) {
		return fmt.Errorf("%w: set SITEOPS_SSH_KEY_FILE and SITEOPS_SSH_KNOWN_HOSTS_FILE", err)
	}
	return err
}

// cacheDir is where fetched repositories are kept between runs.
func cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache folder: %w", err)
	}
	return filepath.Join(base, "siteops", "git"), nil
}

// authFromEnv reads Git credentials from the environment, never from flags (they would show in ps):
// SITEOPS_GIT_USERNAME/SITEOPS_GIT_PASSWORD (a token goes in the password), or SITEOPS_SSH_KEY_FILE with
// SITEOPS_SSH_KNOWN_HOSTS_FILE.
func authFromEnv() (*gitops.Auth, error) {
	a := &gitops.Auth{Username: os.Getenv("SITEOPS_GIT_USERNAME"), Password: os.Getenv("SITEOPS_GIT_PASSWORD")}
	if f := os.Getenv("SITEOPS_SSH_KEY_FILE"); f != "" {
		key, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading SITEOPS_SSH_KEY_FILE: %w", err)
		}
		a.SSHPrivateKey = key
		if kh := os.Getenv("SITEOPS_SSH_KNOWN_HOSTS_FILE"); kh != "" {
			if a.SSHKnownHosts, err = os.ReadFile(kh); err != nil {
				return nil, fmt.Errorf("reading SITEOPS_SSH_KNOWN_HOSTS_FILE: %w", err)
			}
		}
	}
	if a.Username == "" && a.Password == "" && len(a.SSHPrivateKey) == 0 {
		return nil, nil
	}
	return a, nil
}

// quietStderr sends what kustomize prints on the process's stderr (its deprecation lines, which siteops
// reports per site itself) to /dev/null until the returned function is called. The CLI owns its process, so
// swapping os.Stderr is safe here; progress goes to the writer captured before.
func quietStderr() func() {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	saved := os.Stderr
	os.Stderr = devNull
	return func() {
		os.Stderr = saved
		_ = devNull.Close()
	}
}
