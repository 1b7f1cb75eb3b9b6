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
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

// CABundle returns the PEM certificates of a.CABundle that HTTPS connections trust on top of the system's, or
// nil. A bundle without a single parsable certificate is a permanent error. There is deliberately no way to
// skip certificate verification.
func CABundle(a *Auth) ([]byte, error) {
	if a == nil || len(a.CABundle) == 0 {
		return nil, nil
	}
	if err := ValidateCABundle(a.CABundle); err != nil {
		return nil, err
	}
	return a.CABundle, nil
}

// ValidateCABundle checks that b holds PEM certificates (one or more CERTIFICATE blocks, nothing else that
// looks like PEM). Errors are permanent and never quote the input.
func ValidateCABundle(b []byte) error {
	n := 0
	for rest := b; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return permanent.Error(fmt.Errorf("CA bundle holds a PEM block of type %q: only CERTIFICATE blocks belong there",
				block.Type))
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return permanent.Error(fmt.Errorf("CA bundle: certificate %d cannot be parsed: %w", n+1, err))
		}
		n++
	}
	if n == 0 {
		return permanent.Error(errors.New("CA bundle holds no PEM certificate"))
	}
	return nil
}

// classifyTLS turns a certificate the client does not trust into a permanent error that says what to do, or
// returns nil when err is not about the server's certificate.
func classifyTLS(err error) error {
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	msg := err.Error()
	switch {
	case errors.As(err, &unknown) || strings.Contains(msg, "certificate signed by unknown authority"):
		return permanent.Error(fmt.Errorf("the Git server's TLS certificate is signed by an unknown authority: "+
			"put the CA certificate in key ca.crt of the credentials Secret: %w", err))
	case errors.As(err, &hostname) || strings.Contains(msg, "certificate is valid for"):
		return permanent.Error(fmt.Errorf("the Git server's TLS certificate does not match its host name: %w", err))
	case errors.As(err, &invalid) || strings.Contains(msg, "x509: certificate has expired"):
		return permanent.Error(fmt.Errorf("the Git server's TLS certificate is not valid: %w", err))
	}
	return nil
}
