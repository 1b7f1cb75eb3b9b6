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

package publish

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

// SigningKey is an OpenPGP private key, unlocked, that signs every commit siteops pushes. Build it with
// ParseSigningKey; its key material is never printed.
type SigningKey struct {
	entity *openpgp.Entity
}

// KeyID is the long ID (16 hex digits) of the key that makes the signatures, as `git log --show-signature`
// shows it.
func (k *SigningKey) KeyID() string {
	if key, ok := k.entity.SigningKey(time.Now()); ok {
		return key.PublicKey.KeyIdString()
	}
	return k.entity.PrimaryKey.KeyIdString()
}

// String names the key by its ID only.
func (k *SigningKey) String() string { return "OpenPGP key " + k.KeyID() }

// ParseSigningKey reads an ASCII-armored OpenPGP private key (the first key of the armored block) and unlocks
// it with passphrase when it is encrypted. Errors say what is wrong (no key, no private key, a passphrase that
// is missing or wrong, a key that cannot sign) without any key material; they are permanent.
func ParseSigningKey(armored, passphrase []byte) (*SigningKey, error) {
	list, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(armored))
	if err != nil {
		// The parser's message may quote bytes of the key: it is left out.
		return nil, permanent.Error(errors.New("reading the OpenPGP signing key: not an ASCII-armored OpenPGP key"))
	}
	if len(list) == 0 {
		return nil, permanent.Error(errors.New("reading the OpenPGP signing key: the armored block holds no key"))
	}
	e := list[0]
	if e.PrivateKey == nil {
		return nil, permanent.Error(fmt.Errorf("OpenPGP key %s is a public key: the signing key must be a private key",
			e.PrimaryKey.KeyIdString()))
	}
	if encrypted(e) {
		if len(passphrase) == 0 {
			return nil, permanent.Error(fmt.Errorf("OpenPGP key %s is protected by a passphrase and none was given",
				e.PrimaryKey.KeyIdString()))
		}
		if err := e.DecryptPrivateKeys(passphrase); err != nil {
			return nil, permanent.Error(fmt.Errorf("OpenPGP key %s: the passphrase does not unlock it",
				e.PrimaryKey.KeyIdString()))
		}
	}
	key, ok := e.SigningKey(time.Now())
	if !ok || key.PrivateKey == nil {
		return nil, permanent.Error(fmt.Errorf("OpenPGP key %s has no valid key for signing (expired, revoked or "+
			"encryption-only)",
			e.PrimaryKey.KeyIdString()))
	}
	return &SigningKey{entity: e}, nil
}

// encrypted reports whether the primary key or any subkey of e is locked by a passphrase.
func encrypted(e *openpgp.Entity) bool {
	if e.PrivateKey != nil && e.PrivateKey.Encrypted {
		return true
	}
	for _, s := range e.Subkeys {
		if s.PrivateKey != nil && s.PrivateKey.Encrypted {
			return true
		}
	}
	return false
}

// sign adds an OpenPGP signature of commit, made with k, to commit (a detached armored signature over the
// commit without its signature header, as `git commit -S` makes).
func (k *SigningKey) sign(commit *object.Commit) error {
	payload := &plumbing.MemoryObject{}
	if err := commit.EncodeWithoutSignature(payload); err != nil {
		return fmt.Errorf("encoding the commit to sign: %w", err)
	}
	r, err := payload.Reader()
	if err != nil {
		return fmt.Errorf("reading the commit to sign: %w", err)
	}
	var sig bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&sig, k.entity, r, nil); err != nil {
		return fmt.Errorf("signing the commit with %s: %w", k, err)
	}
	commit.PGPSignature = sig.String()
	return nil
}

// Fingerprint is the fingerprint of k's primary key, in lower-case hex.
func (k *SigningKey) Fingerprint() string { return fmt.Sprintf("%x", k.entity.PrimaryKey.Fingerprint) }

// DetachSign returns a binary OpenPGP signature of data made with k.
func (k *SigningKey) DetachSign(data []byte) ([]byte, error) {
	var sig bytes.Buffer
	if err := openpgp.DetachSign(&sig, k.entity, bytes.NewReader(data), nil); err != nil {
		return nil, fmt.Errorf("signing with %s: %w", k, err)
	}
	return sig.Bytes(), nil
}
