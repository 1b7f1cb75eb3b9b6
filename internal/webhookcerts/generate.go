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

package webhookcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Lifetimes of the certificates the manager issues itself, and how long before its end a serving certificate is
// replaced (the CA is replaced, with a new serving certificate, when it has less than that left too).
const (
	caLifetime      = 10 * 365 * 24 * time.Hour
	servingLifetime = 365 * 24 * time.Hour
	renewBefore     = 90 * 24 * time.Hour
)

// Secret keys, as cert-manager writes them, so a Secret from either source mounts the same way.
const (
	KeyCACert  = "ca.crt"
	KeyCert    = "tls.crt"
	KeyKey     = "tls.key"
	keyCAKey   = "ca.key"
	pemCert    = "CERTIFICATE"
	pemPrivKey = "EC PRIVATE KEY"
)

// bundle is a CA and the serving certificate it signed, PEM encoded as stored in the Secret.
type bundle struct {
	caCert, caKey, cert, key []byte
}

func (b bundle) data() map[string][]byte {
	return map[string][]byte{KeyCACert: b.caCert, keyCAKey: b.caKey, KeyCert: b.cert, KeyKey: b.key}
}

func bundleOf(data map[string][]byte) bundle {
	return bundle{caCert: data[KeyCACert], caKey: data[keyCAKey], cert: data[KeyCert], key: data[KeyKey]}
}

// issue returns b with a serving certificate for hosts signed by b's CA, first creating a new CA when b has
// none that is usable at now.
func issue(b bundle, hosts []string, now time.Time) (bundle, error) {
	ca, caKey, err := parsePair(b.caCert, b.caKey)
	if err != nil || now.Add(renewBefore).After(ca.NotAfter) {
		if b.caCert, b.caKey, err = newCert(nil, nil, nil, now, caLifetime); err != nil {
			return bundle{}, fmt.Errorf("creating the webhook CA: %w", err)
		}
		if ca, caKey, err = parsePair(b.caCert, b.caKey); err != nil {
			return bundle{}, err
		}
	}
	if b.cert, b.key, err = newCert(ca, caKey, hosts, now, servingLifetime); err != nil {
		return bundle{}, fmt.Errorf("creating the webhook serving certificate: %w", err)
	}
	return b, nil
}

// fresh reports whether b holds a CA and a serving certificate it signed for every host, both valid for longer
// than renewBefore after now.
func fresh(b bundle, hosts []string, now time.Time) bool {
	ca, _, err := parsePair(b.caCert, b.caKey)
	if err != nil {
		return false
	}
	cert, _, err := parsePair(b.cert, b.key)
	if err != nil || cert.CheckSignatureFrom(ca) != nil {
		return false
	}
	soon := now.Add(renewBefore)
	if soon.After(ca.NotAfter) || soon.After(cert.NotAfter) || now.Before(cert.NotBefore) {
		return false
	}
	for _, h := range hosts {
		if cert.VerifyHostname(h) != nil {
			return false
		}
	}
	return true
}

// newCert creates a key and a certificate: a self-signed CA when parent is nil, else a serving certificate for
// hosts (DNS names and IP addresses) signed by parent.
func newCert(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, hosts []string, now time.Time,
	lifetime time.Duration) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, nil, fmt.Errorf("generating serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		NotBefore:    now.Add(-time.Hour), // tolerate clock skew between the colours and the apiserver
		NotAfter:     now.Add(lifetime),
	}
	if parent == nil {
		tmpl.Subject = pkix.Name{CommonName: "siteops-webhook-ca"}
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
		parent, parentKey = tmpl, key
	} else {
		tmpl.Subject = pkix.Name{CommonName: hosts[0]}
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemCert, Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: pemPrivKey, Bytes: keyDER}), nil
}

// parsePair decodes a PEM certificate and its EC key and checks that they belong together.
func parsePair(certPEM, keyPEM []byte) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil || cb.Type != pemCert || kb.Type != pemPrivKey {
		return nil, nil, errors.New("not a PEM certificate and EC key")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing certificate: %w", err)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing key: %w", err)
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || !pub.Equal(&key.PublicKey) {
		return nil, nil, errors.New("certificate and key do not match")
	}
	return cert, key, nil
}
