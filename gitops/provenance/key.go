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

package provenance

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// ErrBadSignature is the error of an envelope that the key does not verify.
var ErrBadSignature = errors.New("bad signature")

// PublicKey is the OpenPGP key that verifies envelopes: the public half of the SiteSync's signing key.
type PublicKey struct {
	keys openpgp.EntityList
}

// ParsePublicKey reads an ASCII-armored OpenPGP key (public, or a private one of which only the public part is
// used). The error quotes none of the key's bytes.
func ParsePublicKey(armored []byte) (*PublicKey, error) {
	list, err := openpgp.ReadArmoredKeyRing(bytes.NewReader(armored))
	if err != nil || len(list) == 0 {
		return nil, errors.New("reading the OpenPGP public key: not an ASCII-armored OpenPGP key")
	}
	return &PublicKey{keys: list[:1]}, nil
}

// String names the key by its fingerprint.
func (k *PublicKey) String() string { return "OpenPGP key " + k.fingerprint() }

func (k *PublicKey) fingerprint() string { return fmt.Sprintf("%x", k.keys[0].PrimaryKey.Fingerprint) }

// Verify checks sig, a binary detached OpenPGP signature, of data with k or one of its subkeys.
func (k *PublicKey) Verify(_ context.Context, data, sig []byte) error {
	_, err := openpgp.CheckDetachedSignature(k.keys, bytes.NewReader(data), bytes.NewReader(sig), nil)
	return err
}

// KeyID is the keyid k's envelopes carry: its fingerprint.
func (k *PublicKey) KeyID() (string, error) { return k.fingerprint(), nil }

// Public is k's primary public key.
func (k *PublicKey) Public() crypto.PublicKey { return k.keys[0].PrimaryKey.PublicKey }
