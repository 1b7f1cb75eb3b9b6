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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// TestSiteSyncSSHWithoutSecretRefStalls: an SSH source or target URL without its secretRef stalls the SiteSync
// at once (no retries: Reconciling stays False), with a message that names the field to set and the keys its
// Secret needs, and one Stalled warning; the URL's host is never dialled (no SSH agent is asked for a key).
func TestSiteSyncSSHWithoutSecretRefStalls(t *testing.T) {
	useSuite(t)
	addr, connections := gitserver.CountingListener(t)
	sshURL := "ssh://git@" + addr + "/config.git"
	for name, tc := range map[string]struct {
		field  string
		mutate func(*gitopsv1alpha1.SiteSync)
	}{
		"source": {"spec.source.secretRef", func(ss *gitopsv1alpha1.SiteSync) {
			ss.Spec.Source.URL, ss.Spec.Source.SecretRef = sshURL, nil
		}},
		"target": {"spec.target.secretRef", func(ss *gitopsv1alpha1.SiteSync) { ss.Spec.Target.URL = sshURL }},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			ns, repo := newNamespace(t), newRepoName(t)
			suite.git.NewRepo(t, repo, configRepo())
			gitSecret(t, ns, "git", nil)
			key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, tc.mutate))

			ss := waitCondition(t, key, gitopsv1alpha1.ConditionStalled, metav1.ConditionTrue,
				gitopsv1alpha1.ReasonSecretRefMissing)

			stalled := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled)
			for _, want := range []string{tc.field, `"identity"`, `"known_hosts"`, "never uses an SSH agent"} {
				g.Expect(stalled.Message).To(ContainSubstring(want))
			}
			g.Expect(stalled.Message).NotTo(ContainSubstring("SSH_AUTH_SOCK"))
			g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady).Reason).
				To(Equal(gitopsv1alpha1.ReasonSecretRefMissing))
			g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionReconciling)).
				To(BeFalse(), "a stall is not retried")
			g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).To(BeEmpty())

			// Asking again finds the same stall: still one warning.
			requestSync(t, key, "again")
			NewWithT(t).Eventually(func(g Gomega) {
				g.Expect(getSiteSync(t.Context(), g, key).Status.LastHandledTrigger).To(Equal("again"))
			}).WithTimeout(waitTimeout).Should(Succeed())
			var stalls []corev1.Event
			NewWithT(t).Eventually(func(g Gomega) {
				stalls = nil
				for _, e := range eventsOf(t.Context(), g, ns) {
					if e.Reason == gitopsv1alpha1.EventStalled {
						stalls = append(stalls, e)
					}
				}
				g.Expect(stalls).NotTo(BeEmpty())
			}).WithTimeout(waitTimeout).Should(Succeed())
			g.Expect(stalls).To(HaveLen(1))
			g.Expect(stalls[0].Type).To(Equal(corev1.EventTypeWarning))
			g.Expect(stalls[0].Message).To(ContainSubstring(tc.field))
		})
	}
	NewWithT(t).Expect(connections.Load()).To(BeZero(), "the SSH host is never dialled")
}
