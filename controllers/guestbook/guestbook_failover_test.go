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

package guestbook

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// failoverObservations is the sample count of the failover duration histogram.
func failoverObservations(t *testing.T) uint64 {
	t.Helper()
	m := &dto.Metric{}
	NewWithT(t).Expect(testMetrics.failoverSeconds.Write(m)).To(Succeed())
	return m.GetHistogram().GetSampleCount()
}

// startWithActive creates a Guestbook of size Ready pods and waits until the first pod is active.
func startWithActive(t *testing.T, name string, size int) (*webappv1.Guestbook, []string) {
	t.Helper()
	g := NewWithT(t)
	ns := newNamespace(t)
	createConfigMap(t, ns, "cfg", map[string]string{"k": "v"})
	gb := createGuestbook(t, ns, name, int32(size), "cfg")
	pods := createPods(t, gb, size)
	g.Eventually(func(g Gomega) {
		g.Expect(selectedPods(g, ns, name)).To(Equal([]string{pods[0]}))
		g.Expect(getGuestbook(g, gb).Status.Active).To(Equal(pods[0]))
	}, eventually).Should(Succeed())
	return gb, pods
}

// expectActive waits until pod is the only pod the <name> Service selects, the others are behind
// <name>-standby, and the status says so.
func expectActive(g Gomega, gb *webappv1.Guestbook, pod string, standby []string) {
	g.Eventually(func(g Gomega) {
		g.Expect(selectedPods(g, gb.Namespace, gb.Name)).To(Equal([]string{pod}))
		g.Expect(selectedPods(g, gb.Namespace, standbyServiceName(gb))).To(Equal(standby))
		got := getGuestbook(g, gb)
		g.Expect(got.Status.Active).To(Equal(pod))
		g.Expect(condition(got, webappv1.ConditionAvailable)).To(HaveField("Status", metav1.ConditionTrue))
	}, eventually).Should(Succeed())
}

func TestGuestbookFailoverWhenActivePodNotReady(t *testing.T) {
	g := NewWithT(t)
	failovers := testutil.ToFloat64(testMetrics.failovers)
	observed := failoverObservations(t)
	gb, pods := startWithActive(t, "nr", 3)

	setReady(t, gb.Namespace, pods[0], false)
	expectActive(g, gb, pods[1], []string{pods[0], pods[2]})
	g.Eventually(func(g Gomega) {
		g.Expect(eventsWithReason(g, gb, webappv1.EventActiveChanged)).To(ContainElement(
			HaveField("Note", And(ContainSubstring(pods[1]), ContainSubstring("replacing "+pods[0])))))
	}, eventually).Should(Succeed())
	g.Expect(testutil.ToFloat64(testMetrics.failovers)).To(BeNumerically(">", failovers))
	g.Expect(failoverObservations(t)).To(BeNumerically(">", observed), "the failover duration is observed")

	// The old active pod comes back Ready: it stays standby, the new active pod is kept.
	setReady(t, gb.Namespace, pods[0], true)
	g.Consistently(func(g Gomega) {
		g.Expect(activePodNames(g, gb.Namespace)).To(Equal([]string{pods[1]}))
	}, "2s").Should(Succeed())
}

func TestGuestbookFailoverWhenActivePodDeleted(t *testing.T) {
	g := NewWithT(t)
	gb, pods := startWithActive(t, "del", 3)

	g.Expect(k8s.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: gb.Namespace, Name: pods[0]}})).To(Succeed())
	expectActive(g, gb, pods[1], []string{pods[2]})
	g.Expect(getGuestbook(g, gb).Status.Standby).To(Equal([]string{pods[2]}))
}

func TestGuestbookNoReadyPodThenRecovery(t *testing.T) {
	g := NewWithT(t)
	gb, pods := startWithActive(t, "none", 2)

	setReady(t, gb.Namespace, pods[1], false)
	setReady(t, gb.Namespace, pods[0], false)
	g.Eventually(func(g Gomega) {
		g.Expect(activePodNames(g, gb.Namespace)).To(BeEmpty())
		got := getGuestbook(g, gb)
		g.Expect(got.Status.Active).To(BeEmpty())
		g.Expect(condition(got, webappv1.ConditionDegraded)).To(And(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", webappv1.ReasonNoReadyPod)))
		g.Expect(condition(got, webappv1.ConditionAvailable)).To(HaveField("Status", metav1.ConditionFalse))
		g.Expect(eventsWithReason(g, gb, webappv1.EventNoReadyPod)).NotTo(BeEmpty())
	}, eventually).Should(Succeed())

	setReady(t, gb.Namespace, pods[1], true)
	expectActive(g, gb, pods[1], []string{pods[0]})
	g.Expect(condition(getGuestbook(g, gb), webappv1.ConditionDegraded)).To(HaveField("Status", metav1.ConditionFalse))
}
