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
	"bytes"
	"crypto"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// OpenPGPKey is an OpenPGP key pair made for one test.
type OpenPGPKey struct {
	// KeyID is the long key ID (16 upper-case hex digits) and Fingerprint the full one.
	KeyID, Fingerprint string
	// PrivateArmored is the ASCII-armored private key (locked by the passphrase given to NewOpenPGPKey, if
	// any); PublicArmored the ASCII-armored public key.
	PrivateArmored, PublicArmored []byte
}

// NewOpenPGPKey makes an RSA-2048 OpenPGP key for "name <email>"; a non-empty passphrase locks the private key.
func NewOpenPGPKey(t testing.TB, name, email, passphrase string) *OpenPGPKey {
	if t != nil {
		t.Helper()
	}
	cfg := &packet.Config{Algorithm: packet.PubKeyAlgoRSA, RSABits: 2048, DefaultHash: crypto.SHA256}
	e, err := openpgp.NewEntity(name, "", email, cfg)
	if err != nil {
		fail(t, "generating OpenPGP key: %v", err)
	}
	var raw bytes.Buffer
	if err := e.Serialize(&raw); err != nil {
		fail(t, "serializing OpenPGP public key: %v", err)
	}
	pub := armored(t, openpgp.PublicKeyType, raw.Bytes())
	if passphrase != "" {
		if err := e.EncryptPrivateKeys([]byte(passphrase), cfg); err != nil {
			fail(t, "locking OpenPGP key: %v", err)
		}
	}
	raw.Reset()
	if err := e.SerializePrivateWithoutSigning(&raw, cfg); err != nil {
		fail(t, "serializing OpenPGP private key: %v", err)
	}
	priv := armored(t, openpgp.PrivateKeyType, raw.Bytes())
	return &OpenPGPKey{
		KeyID:          e.PrimaryKey.KeyIdString(),
		Fingerprint:    strings.ToUpper(fmt.Sprintf("%x", e.PrimaryKey.Fingerprint)),
		PrivateArmored: priv,
		PublicArmored:  pub,
	}
}

// armored wraps raw OpenPGP packets in an ASCII armor block of blockType.
func armored(t testing.TB, blockType string, raw []byte) []byte {
	var out bytes.Buffer
	w, err := armor.Encode(&out, blockType, nil)
	if err != nil {
		fail(t, "armoring: %v", err)
	}
	if _, err := w.Write(raw); err != nil {
		fail(t, "armoring: %v", err)
	}
	if err := w.Close(); err != nil {
		fail(t, "armoring: %v", err)
	}
	return out.Bytes()
}

// GPG is a GNUPGHOME of its own for Debian's gpg, and git commands that sign or verify with it.
type GPG struct {
	Home string
}

// NewGPG creates an empty GNUPGHOME (a short path: gpg-agent's socket lives there), removed on t.Cleanup
// with its agent stopped. It fails the test when gpg is not installed.
func NewGPG(t testing.TB) *GPG {
	t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Fatalf("gitserver: gpg is not installed (Debian package gnupg; `make test-deps` installs it): %v", err)
	}
	home, err := os.MkdirTemp("", "gpg-")
	if err != nil {
		t.Fatalf("gitserver: creating GNUPGHOME: %v", err)
	}
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatalf("gitserver: %v", err)
	}
	g := &GPG{Home: home}
	t.Cleanup(func() {
		_ = exec.Command("gpgconf", "--homedir", home, "--kill", "gpg-agent").Run()
		_ = os.RemoveAll(home)
	})
	return g
}

// Import imports armored keys (public or unprotected private) into the GNUPGHOME.
func (g *GPG) Import(t testing.TB, armoredKey []byte) {
	t.Helper()
	cmd := exec.Command("gpg", "--homedir", g.Home, "--batch", "--import")
	cmd.Stdin = bytes.NewReader(armoredKey)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gitserver: gpg --import: %v: %s", err, out)
	}
}

// VerifyCommit runs `git verify-commit -v sha` in the bare repository name with this GNUPGHOME and returns
// its combined output (gpg's report); err is set when git does not accept the signature.
func (g *GPG) VerifyCommit(s *Server, name, sha string) (string, error) {
	return g.git("", "--git-dir", s.GitDir(name), "verify-commit", "-v", sha)
}

// CommitSigned stages every change and commits it with msg, signed by key (its private key must be imported
// into g) with `git commit -S`, and returns the new HEAD SHA.
func (w *Worktree) CommitSigned(msg string, g *GPG, key *OpenPGPKey) string {
	w.helper()
	run(w.t, w.Dir, "add", "--all")
	if out, err := g.git(w.Dir, "-c", "gpg.program=gpg", "-c", "user.signingkey="+key.Fingerprint,
		"commit", "--quiet", "--allow-empty", "-S", "-m", msg); err != nil {
		fail(w.t, "signed commit: %v: %s", err, out)
	}
	return w.Head()
}

func (g *GPG) git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), "GNUPGHOME="+g.Home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
