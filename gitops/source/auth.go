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

package source

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

// Auth holds Git credentials, always read by the caller from a Kubernetes Secret (never logged).
type Auth struct {
	Username, Password string // HTTPS basic auth; a token goes in Password (Username may be "git")
	SSHPrivateKey      []byte // PEM; with SSHKnownHosts (required when SSHPrivateKey is set)
	SSHKnownHosts      []byte
	// CABundle holds PEM certificates HTTPS connections trust on top of the system's (a private CA).
	CABundle []byte
}

// Spec names the source repository and revision. Ref is a branch, tag or full commit SHA; "" means the
// remote's default branch.
type Spec struct {
	URL, Ref string
	Auth     *Auth
	// Verify, when set, accepts only a source commit signed by one of these keys (mode HEAD); any other
	// commit fails the Sync with ErrSourceNotVerified before anything is rendered.
	Verify *TrustedKeys
}

// scpLikeURL matches user@host:path, the SSH shorthand.
var scpLikeURL = regexp.MustCompile(`^([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+):([^/].*|/.+)$`)

// ValidateURL accepts the Git URLs siteops supports: https://, http://, ssh://, user@host:path and file://.
// Credentials inside the URL are refused (they belong in a Secret). Errors are permanent.
func ValidateURL(raw string) error {
	if raw == "" {
		return permanent.Error(fmt.Errorf("git URL is empty"))
	}
	if scpLikeURL.MatchString(raw) && !strings.Contains(raw, "://") {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return permanent.Error(fmt.Errorf("invalid git URL: %w", redactURLError(err)))
	}
	switch u.Scheme {
	case "https", "http", "ssh":
		if u.Host == "" {
			return permanent.Error(fmt.Errorf("git URL %q has no host", u.Redacted()))
		}
	case "file":
		if u.Path == "" {
			return permanent.Error(fmt.Errorf("git URL %q has no path", u.Redacted()))
		}
	default:
		return permanent.Error(fmt.Errorf("unsupported git URL scheme %q: use https, http, ssh or file", u.Scheme))
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		return permanent.Error(fmt.Errorf("git URL %q carries a password: put credentials in a Secret", u.Redacted()))
	}
	return nil
}

// IsSSHURL reports whether raw uses the SSH transport: ssh:// or the scp form user@host:path.
func IsSSHURL(raw string) bool {
	ssh, _ := isSSHURL(raw)
	return ssh
}

// isSSHURL reports whether raw uses the SSH transport, and the user it names.
func isSSHURL(raw string) (bool, string) {
	if m := scpLikeURL.FindStringSubmatch(raw); m != nil && !strings.Contains(raw, "://") {
		return true, m[1]
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "ssh" {
		return false, ""
	}
	return true, u.User.Username()
}

// ErrNoSSHKey is the error of an SSH URL given no private key. siteops never falls back to an SSH agent or to
// the keys in the process's home folder: only the key it is given is used.
var ErrNoSSHKey = errors.New("an SSH URL needs a private key and known hosts, and none were given " +
	"(siteops never uses an SSH agent)")

// AuthMethod turns Auth into a go-git auth method for rawURL. Known hosts are written under workDir (they are
// public); a key without known hosts is refused. An SSH URL without a key is refused (ErrNoSSHKey, permanent):
// go-git would otherwise ask an SSH agent.
func AuthMethod(rawURL string, a *Auth, workDir string) (transport.AuthMethod, error) {
	if ssh, user := isSSHURL(rawURL); ssh {
		return sshAuth(user, a, workDir)
	}
	if a == nil || (a.Username == "" && a.Password == "") {
		return nil, nil
	}
	user := a.Username
	if user == "" {
		user = "git"
	}
	return &githttp.BasicAuth{Username: user, Password: a.Password}, nil
}

// sshAuth is the public-key auth of user with a's key, checking host keys against a's known hosts.
func sshAuth(user string, a *Auth, workDir string) (transport.AuthMethod, error) {
	if a == nil || len(a.SSHPrivateKey) == 0 {
		return nil, permanent.Error(ErrNoSSHKey)
	}
	if len(a.SSHKnownHosts) == 0 {
		return nil, permanent.Error(fmt.Errorf("an SSH private key needs known hosts (host key checking is mandatory)"))
	}
	if user == "" {
		user = "git"
	}
	keys, err := gitssh.NewPublicKeys(user, a.SSHPrivateKey, "")
	if err != nil {
		return nil, permanent.Error(fmt.Errorf("parsing the SSH private key: %w", err))
	}
	sum := sha256.Sum256(a.SSHKnownHosts)
	khFile := filepath.Join(workDir, "known_hosts-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(workDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating work dir: %w", err)
	}
	if err := os.WriteFile(khFile, a.SSHKnownHosts, 0o600); err != nil {
		return nil, fmt.Errorf("writing known hosts: %w", err)
	}
	cb, err := gitssh.NewKnownHostsCallback(khFile)
	if err != nil {
		return nil, permanent.Error(fmt.Errorf("parsing known hosts: %w", err))
	}
	keys.HostKeyCallback = cb
	return keys, nil
}

// redactURLError scrubs a URL parse error, which quotes the URL.
func redactURLError(err error) error { return &redactedError{msg: redact(err.Error()), err: err} }
