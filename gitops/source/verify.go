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
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

// ErrSourceNotVerified is wrapped by the error of a Sync whose source commit is unsigned or not signed by one
// of the trusted keys. Nothing is rendered or pushed then.
var ErrSourceNotVerified = errors.New("source commit not verified")

// TrustedKeys is a keyring of OpenPGP public keys whose signatures on source commits are accepted. Build it
// with ParseTrustedKeys.
type TrustedKeys struct {
	keyring openpgp.EntityList
}

// ParseTrustedKeys reads one or more ASCII-armored OpenPGP public keys per entry (entry name → armored
// keys, e.g. the data of a Secret). An entry that is not armored OpenPGP is an error naming the entry; no
// key at all is an error. Errors are permanent.
func ParseTrustedKeys(entries map[string][]byte) (*TrustedKeys, error) {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	t := &TrustedKeys{}
	for _, n := range names {
		list, err := readArmoredKeys(entries[n])
		if err != nil {
			return nil, permanent.Error(fmt.Errorf("trusted keys %q: %w", n, err))
		}
		t.keyring = append(t.keyring, list...)
	}
	if len(t.keyring) == 0 {
		return nil, permanent.Error(errors.New("no trusted OpenPGP public key given"))
	}
	return t, nil
}

// readArmoredKeys reads every armored block of b (several keys may be concatenated, as `gpg --export -a A B`
// writes them when run once per key).
func readArmoredKeys(b []byte) (openpgp.EntityList, error) {
	var out openpgp.EntityList
	const begin = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
	blocks := strings.SplitAfter(string(b), "-----END PGP PUBLIC KEY BLOCK-----")
	for _, blk := range blocks {
		i := strings.Index(blk, begin)
		if i < 0 {
			if strings.TrimSpace(blk) != "" && len(out) == 0 {
				return nil, errors.New("not an ASCII-armored OpenPGP public key")
			}
			continue
		}
		list, err := openpgp.ReadArmoredKeyRing(strings.NewReader(blk[i:]))
		if err != nil {
			return nil, errors.New("not an ASCII-armored OpenPGP public key")
		}
		out = append(out, list...)
	}
	if len(out) == 0 {
		return nil, errors.New("no OpenPGP public key in it")
	}
	return out, nil
}

// KeyIDs lists the long IDs of the trusted primary keys, sorted.
func (t *TrustedKeys) KeyIDs() []string {
	ids := make([]string, 0, len(t.keyring))
	for _, e := range t.keyring {
		ids = append(ids, e.PrimaryKey.KeyIdString())
	}
	sort.Strings(ids)
	return ids
}

// verifyCommit checks that commit carries an OpenPGP signature made by one of the trusted keys. The error
// wraps ErrSourceNotVerified and is permanent: only a new, signed commit (or another key) can fix it.
func (t *TrustedKeys) verifyCommit(commit *object.Commit) error {
	short := commit.Hash.String()[:12]
	if strings.TrimSpace(commit.PGPSignature) == "" {
		return permanent.Error(fmt.Errorf("%w: commit %s is not signed", ErrSourceNotVerified, short))
	}
	if !strings.Contains(commit.PGPSignature, "BEGIN PGP SIGNATURE") {
		return permanent.Error(fmt.Errorf("%w: commit %s carries a signature that is not OpenPGP (SSH and X.509 "+
			"signatures are not supported)",
			ErrSourceNotVerified, short))
	}
	payload := &plumbing.MemoryObject{}
	if err := commit.EncodeWithoutSignature(payload); err != nil {
		return fmt.Errorf("encoding commit %s to verify it: %w", short, err)
	}
	r, err := payload.Reader()
	if err != nil {
		return fmt.Errorf("reading commit %s to verify it: %w", short, err)
	}
	signer, err := openpgp.CheckArmoredDetachedSignature(t.keyring, r, strings.NewReader(commit.PGPSignature), nil)
	switch {
	case errors.Is(err, pgperrors.ErrUnknownIssuer):
		return permanent.Error(fmt.Errorf("%w: commit %s is signed by key %s, which is not one of the trusted keys",
			ErrSourceNotVerified, short, issuerOf(commit.PGPSignature)))
	case err != nil:
		return permanent.Error(fmt.Errorf("%w: the signature of commit %s is not valid: %w", ErrSourceNotVerified, short,
			err))
	case signer == nil:
		return permanent.Error(fmt.Errorf("%w: commit %s: no trusted key made its signature", ErrSourceNotVerified, short))
	}
	return nil
}

// issuerOf reads the issuer key ID of an armored signature, or "(unknown)".
func issuerOf(armored string) string {
	block, err := armor.Decode(strings.NewReader(armored))
	if err != nil {
		return "(unknown)"
	}
	p, err := packet.Read(block.Body)
	if err != nil {
		return "(unknown)"
	}
	if sig, ok := p.(*packet.Signature); ok && sig.IssuerKeyId != nil {
		return fmt.Sprintf("%016X", *sig.IssuerKeyId)
	}
	return "(unknown)"
}
