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

package sitesync

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/sitesync/receiver"
	"github.com/siteops/siteops/test/gitserver"
)

// githubHeaders signs body with key as GitHub does.
func githubHeaders(body []byte, key, delivery string) http.Header {
	h := http.Header{}
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write(body)
	h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	h.Set("X-GitHub-Event", "push")
	h.Set("X-GitHub-Delivery", delivery)
	h.Set("Content-Type", "application/json")
	return h
}

// post sends a webhook to the running receiver for key and returns the status code.
func post(t *testing.T, key client.ObjectKey, h http.Header, body []byte) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost,
		suite.receiver+receiver.PathPrefix+key.Namespace+"/"+key.Name, bytes.NewReader(body))
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	_ = resp.Body.Close()
	return resp.StatusCode
}

// githubPushBody is a GitHub push payload naming sha on main.
func githubPushBody(sha string) []byte {
	return []byte(`{"ref":"refs/heads/main","after":"` + sha + `","repository":{"clone_url":"http://127.0.0.1/x.git"}}`)
}

func TestReceiverValidPushTriggersSyncAtOnce(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	gitSecret(t, ns, "hook", map[string]string{"token": hookToken})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Receiver = &gitopsv1alpha1.Receiver{SecretRef: gitopsv1alpha1.LocalSecretReference{Name: "hook"}}
	}))
	waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))

	wt := suite.git.Clone(t, repo)
	wt.Write("overlays/staging/site-values.yaml", siteValues(4, "nginx:1.27"))
	pushed := wt.Commit("staging: four replicas")
	wt.Push()
	body := githubPushBody(pushed)

	// Bad signature: 401, nothing triggered.
	g.Expect(post(t, key, githubHeaders(body, "wrong-token", "t-1"), body)).To(Equal(http.StatusUnauthorized))
	g.Expect(getSiteSync(t.Context(), g, key).Annotations).NotTo(HaveKey(gitopsv1alpha1.RequestedAtAnnotation))

	// Oversize: 413, nothing triggered.
	big := []byte(strings.Replace(string(body), `"ref"`, `"pad":"`+strings.Repeat("x", receiver.DefaultMaxBodyBytes)+
		`","ref"`, 1))
	g.Expect(post(t, key, githubHeaders(big, hookToken, "t-2"), big)).To(Equal(http.StatusRequestEntityTooLarge))
	g.Expect(getSiteSync(t.Context(), g, key).Annotations).NotTo(HaveKey(gitopsv1alpha1.RequestedAtAnnotation))

	// Valid: 202 and the new source commit is rendered without waiting for the interval (1m).
	g.Expect(post(t, key, githubHeaders(body, hookToken, "t-3"), body)).To(Equal(http.StatusAccepted))
	ss := waitReady(t, key, pushed)
	g.Expect(ss.Status.LastHandledTrigger).To(Equal(ss.Annotations[gitopsv1alpha1.RequestedAtAnnotation]))
	g.Expect(suite.git.Log(t, repo, "rendered")[0].Trailer("Siteops-Source-Revision")).To(Equal(pushed))

	// Replay of the accepted delivery: 409, the trigger is unchanged.
	trigger := ss.Annotations[gitopsv1alpha1.RequestedAtAnnotation]
	g.Expect(post(t, key, githubHeaders(body, hookToken, "t-3"), body)).To(Equal(http.StatusConflict))
	g.Expect(getSiteSync(t.Context(), g, key).Annotations[gitopsv1alpha1.RequestedAtAnnotation]).To(Equal(trigger))
}

// hookToken is the receiver Secret's token the webhooks of this package's tests are signed with.
const hookToken = "hook-t0ken-for-tests"
