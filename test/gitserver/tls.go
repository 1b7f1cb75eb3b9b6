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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority made for one test and the server certificate it issued for 127.0.0.1, so a
// Server can speak HTTPS that only clients trusting CertPEM accept.
type CA struct {
	// CertPEM is the CA certificate, PEM-encoded (what a credentials Secret's ca.crt holds).
	CertPEM []byte
	// Server is the certificate and key the HTTPS listener presents (127.0.0.1 and localhost).
	Server tls.Certificate
}

// NewCA creates a fresh CA (ECDSA P-256, valid for an hour) and a server certificate for 127.0.0.1 signed by
// it.
func NewCA(t testing.TB) *CA {
	if t != nil {
		t.Helper()
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fail(t, "generating CA key: %v", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gitserver test CA"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		fail(t, "creating CA certificate: %v", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		fail(t, "parsing CA certificate: %v", err)
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fail(t, "generating server key: %v", err)
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		fail(t, "creating server certificate: %v", err)
	}
	return &CA{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Server:  tls.Certificate{Certificate: [][]byte{srvDER, caDER}, PrivateKey: srvKey},
	}
}

// writeCAFile writes the CA certificate of an HTTPS server under its root's sibling folder, for the git CLI's
// http.sslCAInfo, and returns its path.
func (s *Server) writeCAFile(t testing.TB) string {
	dir, err := os.MkdirTemp("", "gitserver-ca-")
	if err != nil {
		fail(t, "creating CA folder: %v", err)
	}
	s.cleanup = append(s.cleanup, func() { _ = os.RemoveAll(dir) })
	p := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(p, s.opts.TLS.CertPEM, 0o600); err != nil {
		fail(t, "writing CA file: %v", err)
	}
	return p
}
