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

package receiver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

const hookToken = "hook-t0ken-for-tests"

// hookFixture is a Handler over a fake API with one SiteSync "ns/site" following main.
type hookFixture struct {
	rc   *Handler
	c    client.Client
	logs *bytes.Buffer
}

func newHookFixture(t *testing.T, followRef string, withReceiver bool) *hookFixture {
	t.Helper()
	scheme := runtime.NewScheme()
	NewWithT(t).Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	NewWithT(t).Expect(gitopsv1alpha1.AddToScheme(scheme)).To(Succeed())
	ss := &gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "site", UID: "uid-1"},
		Spec:       gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: "https://h/r.git", Ref: followRef}},
	}
	if withReceiver {
		ss.Spec.Receiver = &gitopsv1alpha1.Receiver{SecretRef: gitopsv1alpha1.LocalSecretReference{Name: "hook"}}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "hook"},
		Data: map[string][]byte{"token": []byte(hookToken + "\n")}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ss, secret).Build()
	logs := &bytes.Buffer{}
	log := funcr.New(func(prefix, args string) { logs.WriteString(prefix + args + "\n") }, funcr.Options{Verbosity: 10})
	rc := NewHandler(c, c, clocktesting.NewFakePassiveClock(testTime), log)
	return &hookFixture{rc: rc, c: c, logs: logs}
}

func (f *hookFixture) requestedAt(t *testing.T) string {
	t.Helper()
	ss := &gitopsv1alpha1.SiteSync{}
	NewWithT(t).Expect(f.c.Get(t.Context(), client.ObjectKey{Namespace: "ns", Name: "site"}, ss)).To(Succeed())
	return ss.Annotations[gitopsv1alpha1.RequestedAtAnnotation]
}

func payload(t *testing.T, name string) []byte {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return body
}

func githubRequest(path string, body []byte, key, delivery string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set(headerGitHubSignature, "sha256="+hmacHex([]byte(key), body))
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", delivery)
	return req
}

func serve(rc http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	rc.ServeHTTP(w, req)
	return w
}

func TestReceiverValidGitHubPushTriggers(t *testing.T) {
	g := NewWithT(t)
	f := newHookFixture(t, "main", true)
	w := serve(f.rc, githubRequest("/hook/ns/site", payload(t, "github_push.json"), hookToken, "d-1"))
	g.Expect(w.Code).To(Equal(http.StatusAccepted), w.Body.String())
	g.Expect(f.requestedAt(t)).To(Equal(testTime.Format(time.RFC3339Nano)))
}

func TestReceiverRejectsBadSignatureWithoutTriggering(t *testing.T) {
	body := payload(t, "github_push.json")
	cases := map[string]func(*http.Request){
		"wrong key": func(r *http.Request) {
			r.Header.Set(headerGitHubSignature, "sha256="+
				hmacHex([]byte("wrong"), body))
		},
		"no signature": func(r *http.Request) { r.Header.Del(headerGitHubSignature) },
		"garbage":      func(r *http.Request) { r.Header.Set(headerGitHubSignature, "sha256=nothex") },
		"gitlab bad token": func(r *http.Request) {
			r.Header.Del(headerGitHubSignature)
			r.Header.Set(headerGitLabToken, "nope")
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			f := newHookFixture(t, "main", true)
			req := githubRequest("/hook/ns/site", body, hookToken, "d-1")
			mutate(req)
			w := serve(f.rc, req)
			g.Expect(w.Code).To(Equal(http.StatusUnauthorized))
			g.Expect(f.requestedAt(t)).To(BeEmpty())
			g.Expect(f.logs.String()).NotTo(ContainSubstring(hookToken))
			for _, h := range []string{headerGitHubSignature, headerGitLabToken} {
				if sent := strings.TrimPrefix(req.Header.Get(h), "sha256="); sent != "" {
					g.Expect(f.logs.String()).NotTo(ContainSubstring(sent), "the signature is never logged")
				}
			}
		})
	}
}

func TestReceiverRejectsReplayedDelivery(t *testing.T) {
	g := NewWithT(t)
	f := newHookFixture(t, "main", true)
	body := payload(t, "github_push.json")
	g.Expect(serve(f.rc, githubRequest("/hook/ns/site", body, hookToken, "d-7")).Code).To(Equal(http.StatusAccepted))
	g.Expect(f.c.Patch(t.Context(), &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "site"}},
		client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":null}}`)))).To(Succeed())
	w := serve(f.rc, githubRequest("/hook/ns/site", body, hookToken, "d-7"))
	g.Expect(w.Code).To(Equal(http.StatusConflict))
	g.Expect(f.requestedAt(t)).To(BeEmpty(), "a replay triggers nothing")
	g.Expect(serve(f.rc, githubRequest("/hook/ns/site", body, hookToken, "d-8")).Code).To(Equal(http.StatusAccepted))
}

func TestReceiverRejectsOversizeBody(t *testing.T) {
	g := NewWithT(t)
	f := newHookFixture(t, "main", true)
	f.rc.MaxBodyBytes = 1024
	big := []byte(`{"ref":"refs/heads/main","pad":"` + strings.Repeat("x", 2048) + `"}`)
	w := serve(f.rc, githubRequest("/hook/ns/site", big, hookToken, "d-1"))
	g.Expect(w.Code).To(Equal(http.StatusRequestEntityTooLarge))

	// Without a Content-Length (chunked) the limit still holds.
	req := githubRequest("/hook/ns/site", nil, hookToken, "d-2")
	req.Body = io.NopCloser(bytes.NewReader(big))
	req.ContentLength = -1
	g.Expect(serve(f.rc, req).Code).To(Equal(http.StatusRequestEntityTooLarge))
	g.Expect(f.requestedAt(t)).To(BeEmpty())
}

func TestReceiverOtherProvidersTrigger(t *testing.T) {
	cases := map[string]func(body []byte) *http.Request{
		"gitlab": func(body []byte) *http.Request {
			req := httptest.NewRequest(http.MethodPost, "/hook/ns/site", bytes.NewReader(body))
			req.Header.Set(headerGitLabToken, hookToken)
			req.Header.Set("X-Gitlab-Event", "Push Hook")
			req.Header.Set("X-Gitlab-Event-UUID", "u-1")
			return req
		},
		"gitea": func(body []byte) *http.Request {
			req := httptest.NewRequest(http.MethodPost, "/hook/ns/site", bytes.NewReader(body))
			req.Header.Set(headerGiteaSignature, hmacHex([]byte(hookToken), body))
			req.Header.Set("X-Gitea-Event", "push")
			req.Header.Set("X-Gitea-Delivery", "g-1")
			return req
		},
		"forgejo": func(body []byte) *http.Request {
			req := httptest.NewRequest(http.MethodPost, "/hook/ns/site", bytes.NewReader(body))
			req.Header.Set(headerForgejoSignature, hmacHex([]byte(hookToken), body))
			req.Header.Set("X-Forgejo-Event", "push")
			req.Header.Set("X-Forgejo-Delivery", "f-1")
			return req
		},
	}
	files := map[string]string{"gitlab": "gitlab_push.json", "gitea": "gitea_push.json", "forgejo": "gitea_push.json"}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			f := newHookFixture(t, "main", true)
			w := serve(f.rc, build(payload(t, files[name])))
			g.Expect(w.Code).To(Equal(http.StatusAccepted), w.Body.String())
			g.Expect(f.requestedAt(t)).NotTo(BeEmpty())
		})
	}
}

func TestReceiverAnswersWithoutTriggering(t *testing.T) {
	push := payload(t, "github_push.json")
	cases := []struct {
		name      string
		followRef string
		receiver  bool
		req       func() *http.Request
		want      int
	}{
		{"GET", "main", true, func() *http.Request { return httptest.NewRequest(http.MethodGet, "/hook/ns/site", nil) },
			http.StatusMethodNotAllowed},
		{"bad path", "main", true, func() *http.Request { return githubRequest("/hook/ns", push, hookToken, "d") },
			http.StatusNotFound},
		{"bad name", "main", true, func() *http.Request { return githubRequest("/hook/ns/Bad_Name", push, hookToken, "d") },
			http.StatusNotFound},
		{"unknown SiteSync", "main", true, func() *http.Request {
			return githubRequest("/hook/ns/other", push, hookToken, "d")
		}, http.StatusNotFound},
		{"receiver not enabled", "main", false,
			func() *http.Request { return githubRequest("/hook/ns/site", push, hookToken, "d") }, http.StatusNotFound},
		{"no delivery id", "main", true, func() *http.Request { return githubRequest("/hook/ns/site", push, hookToken, "") },
			http.StatusBadRequest},
		{"ping", "main", true, func() *http.Request {
			r := githubRequest("/hook/ns/site", []byte(`{"zen":"x"}`), hookToken, "d")
			r.Header.Set("X-GitHub-Event", "ping")
			return r
		}, http.StatusOK},
		{"issue event", "main", true, func() *http.Request {
			r := githubRequest("/hook/ns/site", push, hookToken, "d")
			r.Header.Set("X-GitHub-Event", "issues")
			return r
		}, http.StatusOK},
		{"push to another branch", "release", true,
			func() *http.Request { return githubRequest("/hook/ns/site", push, hookToken, "d") }, http.StatusOK},
		{"signed garbage payload", "main", true,
			func() *http.Request { return githubRequest("/hook/ns/site", []byte(`{"ref":1}`), hookToken, "d") },
			http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			f := newHookFixture(t, tc.followRef, tc.receiver)
			w := serve(f.rc, tc.req())
			g.Expect(w.Code).To(Equal(tc.want), w.Body.String())
			g.Expect(f.requestedAt(t)).To(BeEmpty())
		})
	}
}

func TestParseHookPath(t *testing.T) {
	cases := map[string]bool{
		"/hook/ns/name":                        true,
		"/hook/ns/name/":                       true,
		"/hook/ns/a.b-c":                       true,
		"/hook/ns":                             false,
		"/hook//name":                          false,
		"/hook/ns/a/b":                         false,
		"/hook/NS/name":                        false,
		"/other/ns/name":                       false,
		"/hook/ns/..":                          false,
		"/hook/ns/" + strings.Repeat("a", 254): false,
	}
	for path, want := range cases {
		t.Run(path, func(t *testing.T) {
			_, ok := parseHookPath(path)
			NewWithT(t).Expect(ok).To(Equal(want))
		})
	}
}

// testTime is the fake clock's time in the receiver's tests.
var testTime = time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
