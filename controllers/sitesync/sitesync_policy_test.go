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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// noLatestPolicy refuses Deployments whose containers use a :latest image.
const noLatestPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: siteops-test-no-latest
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))"
    messageExpression: >-
      'container ' + object.spec.template.spec.containers.filter(c, c.image.endsWith(':latest'))[0].name +
      ' runs an unpinned image: ' + object.spec.template.spec.containers.map(c, c.image).join(', ')
    reason: Forbidden
`

// noLatestInProduction denies the policy in the namespaces labelled tier=production.
const noLatestInProduction = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: siteops-test-no-latest-production
spec:
  policyName: siteops-test-no-latest
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        tier: production
`

// noLatestWarned warns of it everywhere.
const noLatestWarned = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: siteops-test-no-latest-warned
spec:
  policyName: siteops-test-no-latest
  validationActions: [Warn]
`

// policyRepo is configRepo with each site in its own Namespace, shop-<site>, labelled tier production
// (staging, prod) or development (dev); dev and staging run nginx:latest. policies/ holds the policy and
// both bindings.
func policyRepo() map[string]string {
	files := configRepo()
	for site, tier := range map[string]string{"dev": "development", "staging": "production", "prod": "production"} {
		files["overlays/"+site+"/kustomization.yaml"] = "namespace: shop-" + site + "\nresources:\n- ../../base\n" +
			"- namespace.yaml\npatches:\n- path: site-values.yaml\n"
		files["overlays/"+site+"/namespace.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop-" +
			site + "\n  labels:\n    tier: " + tier + "\n"
	}
	files["overlays/dev/site-values.yaml"] = siteValues(1, "nginx:latest")
	files["overlays/staging/site-values.yaml"] = siteValues(2, "nginx:latest")
	files["policies/no-latest.yaml"] = noLatestPolicy + "---\n" + noLatestInProduction + "---\n" + noLatestWarned
	return files
}

func TestSiteSyncPolicyDeniesLatestOnlyInTheSitesItBinds(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, policyRepo())
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Policy = &gitopsv1alpha1.Policy{Paths: []string{"policies"}}
	}))

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionReady, metav1.ConditionFalse, gitopsv1alpha1.ReasonSitesFailed)
	staging, _ := siteStatus(ss, "staging")
	g.Expect(staging.Ready).To(BeFalse())
	g.Expect(staging.Reason).To(Equal(string(gitops.FailurePolicyDenied)))
	g.Expect(staging.Message).To(Equal("denied by policy: Deployment shop-staging/web: ValidatingAdmissionPolicy " +
		"'siteops-test-no-latest' with binding 'siteops-test-no-latest-production' denied request: container app " +
		"runs an unpinned image: nginx:latest"))
	_, published := renderedFile(t, repo, "staging")
	g.Expect(published).To(BeFalse(), "a denied site is not published")

	dev, _ := siteStatus(ss, "dev")
	g.Expect(dev.Ready).To(BeTrue(), dev.Message)
	g.Expect(dev.Policy).NotTo(BeNil())
	g.Expect(dev.Policy.Summary).To(Equal("0 passed, 1 warned"))
	g.Expect(dev.Policy.Findings).To(ConsistOf(ContainSubstring("binding 'siteops-test-no-latest-warned'")))
	prod, _ := siteStatus(ss, "prod")
	g.Expect(prod.Ready).To(BeTrue(), prod.Message)
	g.Expect(prod.Policy.Summary).To(Equal("2 passed"))
	for _, site := range []string{"dev", "prod"} {
		_, ok := renderedFile(t, repo, site)
		g.Expect(ok).To(BeTrue(), "%s is published", site)
	}
	head := suite.git.Log(t, repo, gitops.DefaultTargetBranch)[0]
	g.Expect(strings.Split(head.Message, "\n")).To(ContainElements(gitops.TrailerPolicy+": dev: 0 passed, 1 warned",
		gitops.TrailerPolicy+": prod: 2 passed"))
	g.Expect(head.Message).NotTo(ContainSubstring(gitops.TrailerPolicy + ": staging"))
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(eventsOf(t.Context(), g, ns)).To(ContainElement(And(
			HaveField("Reason", gitopsv1alpha1.EventPolicyFindings), HaveField("Type", corev1.EventTypeWarning),
			HaveField("Message", ContainSubstring("site dev: policies 0 passed, 1 warned")))))
	}).WithTimeout(waitTimeout).Should(Succeed())

	// Pinning staging's image publishes it.
	wt := suite.git.Clone(t, repo)
	wt.Write("overlays/staging/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("staging: pin nginx")
	wt.Push()
	requestSync(t, key, "pinned")
	NewWithT(t).Eventually(func(g Gomega) {
		ss := getSiteSync(t.Context(), g, key)
		s, _ := siteStatus(ss, "staging")
		g.Expect(s.Ready).To(BeTrue(), s.Message)
		g.Expect(s.Policy.Summary).To(Equal("2 passed"))
	}).WithTimeout(waitTimeout).Should(Succeed())
}

// TestPolicyVerdictIsTheAPIServers applies the policy and its Deny binding to a real kube-apiserver and
// creates the Deployment siteops refused for staging, in a server-side dry run: the apiserver refuses it with
// the message siteops reported.
func TestPolicyVerdictIsTheAPIServers(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, policyRepo())
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Policy = &gitopsv1alpha1.Policy{Paths: []string{"policies"}}
		ss.Spec.Sites = []string{"staging"}
	}))
	ss := waitCondition(t, key, gitopsv1alpha1.ConditionReady, metav1.ConditionFalse, gitopsv1alpha1.ReasonSitesFailed)
	staging, _ := siteStatus(ss, "staging")
	verdict, ok := strings.CutPrefix(staging.Message, "denied by policy: Deployment shop-staging/web: ")
	g.Expect(ok).To(BeTrue(), staging.Message)

	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	g.Expect(yaml.UnmarshalStrict([]byte(noLatestPolicy), policy)).To(Succeed())
	g.Expect(yaml.UnmarshalStrict([]byte(noLatestInProduction), binding)).To(Succeed())
	for _, obj := range []client.Object{policy, binding} {
		g.Expect(suite.k8s.Create(t.Context(), obj)).To(Succeed())
		t.Cleanup(func() { _ = suite.k8s.Delete(t.Context(), obj) })
	}
	site := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop-staging",
		Labels: map[string]string{"tier": "production"}}}
	if err := suite.k8s.Create(t.Context(), site); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}

	deployment := &appsv1.Deployment{}
	g.Expect(yaml.Unmarshal([]byte(siteValues(2, "nginx:latest")), deployment)).To(Succeed())
	deployment.Namespace = "shop-staging"
	deployment.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	deployment.Spec.Template.Labels = map[string]string{"app": "web"}
	want := `deployments.apps "web" is forbidden: ` + verdict
	// The apiserver starts enforcing a new policy once its informers have seen it.
	NewWithT(t).Eventually(func() error {
		return suite.k8s.Create(t.Context(), deployment.DeepCopy(), client.DryRunAll)
	}).WithTimeout(waitTimeout).Should(MatchError(want))
}
