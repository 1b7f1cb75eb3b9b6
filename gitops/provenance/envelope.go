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
	"context"
	"encoding/json"
	"fmt"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// Signer makes the signature of an envelope; publish.SigningKey (the SiteSync's OpenPGP key) is one.
type Signer interface {
	// DetachSign returns a binary detached signature of data.
	DetachSign(data []byte) ([]byte, error)
	// Fingerprint names the key in the envelope (its keyid).
	Fingerprint() string
}

// Sign makes the DSSE envelope of st, signed by s, as the JSON that AttestationPath holds.
func Sign(ctx context.Context, st Statement, s Signer) ([]byte, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encoding the statement: %w", err)
	}
	es, err := dsse.NewEnvelopeSigner(dsseSigner{s})
	if err != nil {
		return nil, fmt.Errorf("making the envelope signer: %w", err)
	}
	env, err := es.SignPayload(ctx, PayloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("signing the statement of site %s: %w", st.Predicate.BuildDefinition.
			ExternalParameters.Site, err)
	}
	out, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the envelope: %w", err)
	}
	return append(out, '\n'), nil
}

// Open checks the signature of the envelope in data with key and returns its statement. It fails when the
// envelope is malformed, when no signature is key's or a signature of key does not match, and when the
// payload is not an in-toto Statement with an SLSA provenance v1 predicate.
func Open(ctx context.Context, data []byte, key *PublicKey) (Statement, error) {
	var env dsse.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return Statement{}, fmt.Errorf("not a DSSE envelope: %w", err)
	}
	if env.PayloadType != PayloadType {
		return Statement{}, fmt.Errorf("envelope payload type is %q, not %q", env.PayloadType, PayloadType)
	}
	ev, err := dsse.NewEnvelopeVerifier(key)
	if err != nil {
		return Statement{}, fmt.Errorf("making the envelope verifier: %w", err)
	}
	// The verifier's own error counts signatures against a threshold: it says no more than this one.
	if _, err := ev.Verify(ctx, &env); err != nil {
		return Statement{}, fmt.Errorf("%w: the envelope carries no valid signature of %s", ErrBadSignature, key)
	}
	payload, err := env.DecodeB64Payload()
	if err != nil {
		return Statement{}, fmt.Errorf("decoding the envelope's payload: %w", err)
	}
	var st Statement
	if err := json.Unmarshal(payload, &st); err != nil {
		return Statement{}, fmt.Errorf("the envelope's payload is not an in-toto Statement: %w", err)
	}
	if st.Type != StatementType || st.PredicateType != PredicateType {
		return Statement{}, fmt.Errorf("the envelope holds a %q statement of %q, not an in-toto v1 statement of %q",
			st.Type, st.PredicateType, PredicateType)
	}
	return st, nil
}

// dsseSigner is s as a DSSE signer.
type dsseSigner struct{ s Signer }

func (d dsseSigner) Sign(_ context.Context, data []byte) ([]byte, error) { return d.s.DetachSign(data) }
func (d dsseSigner) KeyID() (string, error)                              { return d.s.Fingerprint(), nil }
