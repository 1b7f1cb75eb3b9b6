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
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/test/gitserver"
)

func TestParseSigningKeyRefusesKeysThatCannotSign(t *testing.T) {
	locked := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", "s3cret-passphrase")
	plain := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", "")
	for _, tc := range []struct {
		name       string
		armored    []byte
		passphrase string
		wantErr    string // "" = the key is accepted
	}{
		{"unlocked key", plain.PrivateArmored, "", ""},
		{"locked key and its passphrase", locked.PrivateArmored, "s3cret-passphrase", ""},
		{"locked key without a passphrase", locked.PrivateArmored, "", "protected by a passphrase and none was given"},
		{"locked key with a wrong passphrase", locked.PrivateArmored, "wrong-guess", "the passphrase does not unlock it"},
		{"public key", plain.PublicArmored, "", "is a public key"},
		{"not armored", []byte("just some text"), "", "not an ASCII-armored OpenPGP key"},
		{"empty", nil, "", "not an ASCII-armored OpenPGP key"},
		{"armor around garbage",
			[]byte("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nAAAA\n-----END PGP PRIVATE KEY BLOCK-----\n"), "",
			"not an ASCII-armored OpenPGP key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			k, err := ParseSigningKey(tc.armored, []byte(tc.passphrase))
			if tc.wantErr == "" {
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(k.String()).To(HavePrefix("OpenPGP key "))
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
			g.Expect(permanent.Is(err)).To(BeTrue())
			g.Expect(err.Error()).NotTo(ContainSubstring("s3cret-passphrase"))
			g.Expect(err.Error()).NotTo(ContainSubstring("wrong-guess"))
			if len(tc.armored) > 200 {
				g.Expect(err.Error()).NotTo(ContainSubstring(string(tc.armored[100:140])), "no key material")
			}
		})
	}
}
