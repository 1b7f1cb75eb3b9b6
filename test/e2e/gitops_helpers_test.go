//go:build e2e

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

package e2e

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// webhookCerts makes a CA and a serving certificate for 127.0.0.1 with openssl, in the layout
// controller-runtime's webhook server reads (tls.crt, tls.key); it returns the folder and the CA bundle.
func webhookCerts(t *testing.T) (dir, caBundle string) {
	t.Helper()
	dir = t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("openssl", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
		"-subj", "/CN=siteops-e2e-webhook-ca", "-days", "1")
	run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "tls.key", "-out", "tls.csr", "-subj", "/CN=127.0.0.1")
	if err := os.WriteFile(filepath.Join(dir, "ext"),
		[]byte("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run("x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
		"-out", "tls.crt", "-days", "1", "-extfile", "ext")
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, base64.StdEncoding.EncodeToString(ca)
}

// webhookRouting is overlays/local/webhook-{mutating,validating}.yaml for a manager serving webhooks on
// 127.0.0.1:port; verb is "mutate" or "validate".
func webhookRouting(verb string, port int, caBundle string) string {
	return fmt.Sprintf(
		`# The local cluster's kwok pods run no binary, so admission goes to the manager running on the host at
# 127.0.0.1:%[1]d, with this site's webhook CA.
- op: replace
  path: /webhooks/0/clientConfig
  value:
    url: https://127.0.0.1:%[1]d/%[3]s-batch-tutorial-kubebuilder-io-v1-cronjob
    caBundle: %[2]s
`, port, caBundle, verb)
}

// gitOut runs git in dir (a work tree or a bare repository) and returns its output.
func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// writeFile writes content to dir/rel.
func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editFile replaces the first from with to in dir/rel, failing when from is absent.
func editFile(t *testing.T, dir, rel, from, to string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(from)) {
		t.Fatalf("%s does not contain %q", rel, from)
	}
	writeFile(t, dir, rel, strings.Replace(string(b), from, to, 1))
}

// pushWebhook sends a GitHub-style push event for sha to the manager's receiver, signed with token.
func pushWebhook(t *testing.T, receiverPort int, namespace, name, token, ref, sha string) {
	t.Helper()
	body := fmt.Sprintf(`{"ref":%q,"after":%q,"repository":{"clone_url":"file:///e2e"}}`, ref, sha)
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte(body))
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	req, _ := http.NewRequest(http.MethodPost,
		fmt.Sprintf("http://127.0.0.1:%d/hook/%s/%s", receiverPort, namespace, name), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", hex.EncodeToString(id))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("sending the push webhook: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("push webhook answered %d, want 202", resp.StatusCode)
	}
}
