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

package dashboard

import (
	"net/http"
	"strings"
	"testing"
)

// TestServesOnlyGETToLoopbackHosts refuses a request whose Host names another host (what a page of another
// site sends through DNS rebinding) and any method but GET and HEAD.
func TestServesOnlyGETToLoopbackHosts(t *testing.T) {
	url := startDashboard(t, newNamespace(t))
	if resp := get(t, url+"/", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET / for %s: %s, want 200", url, resp.Status)
	}
	for _, host := range []string{"localhost", "[::1]:8088"} {
		req, err := http.NewRequest(http.MethodGet, url+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET / with Host %s: %s, want 200", host, resp.Status)
		}
	}
	req, err := http.NewRequest(http.MethodGet, url+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example:8088"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET / with Host attacker.example: %s, want 403", resp.Status)
	}
	post, err := http.Post(url+"/sitesyncs/x/y", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	_ = post.Body.Close()
	if post.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s, want 405", post.Status)
	}
}

// TestListenRefusesNonLoopbackAddresses listens on loopback addresses only.
func TestListenRefusesNonLoopbackAddresses(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		l, err := Listen(addr)
		if err != nil {
			t.Errorf("Listen(%q): %v", addr, err)
			continue
		}
		if !strings.HasPrefix(l.Addr().String(), "127.0.0.1:") {
			t.Errorf("Listen(%q) listens on %s, want 127.0.0.1", addr, l.Addr())
		}
		_ = l.Close()
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:8088", "example.com:8088", "8088"} {
		if l, err := Listen(addr); err == nil {
			_ = l.Close()
			t.Errorf("Listen(%q) listened on %s, want a refusal", addr, l.Addr())
		}
	}
}

// TestMissingSiteSyncIsNotFoundAndLive answers 404 for a SiteSync that is not there, with a page that
// updates when it appears.
func TestMissingSiteSyncIsNotFoundAndLive(t *testing.T) {
	url := startDashboard(t, newNamespace(t))
	resp := get(t, url+"/sitesyncs/nowhere/none", nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET a missing SiteSync: %s, want 404", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q, want the page", ct)
	}
}
