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

package leadership

import (
	"context"
	"testing"
	"time"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// pausedOnPreview creates the blue/green Rollout "manager" of Service "active" in ns as Argo Rollouts leaves it
// paused before promotion: blue active, green the current template and its preview.
func pausedOnPreview(t *testing.T, ns string) {
	t.Helper()
	g := NewWithT(t)
	labels := map[string]string{"app": "manager"}
	ro := &rolloutsv1alpha1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manager"},
		Spec: rolloutsv1alpha1.RolloutSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "manager"}}}},
			Strategy: rolloutsv1alpha1.RolloutStrategy{BlueGreen: &rolloutsv1alpha1.BlueGreenStrategy{
				ActiveService: "active", PreviewService: "preview"}}}}
	g.Expect(k8s.Create(context.Background(), ro)).To(Succeed())
	ro.Status = rolloutsv1alpha1.RolloutStatus{ControllerPause: true, CurrentPodHash: "green",
		PauseConditions: []rolloutsv1alpha1.PauseCondition{{Reason: rolloutsv1alpha1.PauseReasonBlueGreenPause,
			StartTime: metav1.Now()}},
		BlueGreen: rolloutsv1alpha1.BlueGreenStatus{ActiveSelector: "blue", PreviewSelector: "green"}}
	g.Expect(k8s.Status().Update(context.Background(), ro)).To(Succeed())
}

// patchRolloutStatus merge-patches the status of Rollout "manager" in ns: `{"pauseConditions":null}` is what
// `kubectl argo rollouts promote` sends to a paused blue/green Rollout, `{"abort":true}` what abort sends.
func patchRolloutStatus(t *testing.T, ns, status string) {
	t.Helper()
	ro := &rolloutsv1alpha1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "manager"}}
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"status":`+status+`}`))
	NewWithT(t).Expect(k8s.Status().Patch(context.Background(), ro, patch)).To(Succeed())
}

// promotedColourPair is blue leading and green watching in a new namespace ns, each in a pod of its colour (blue's
// Ready, green's as greenReady says) and watching the Rollouts of ns, with the Rollout paused on green's preview;
// then the Rollout is promoted and it waits until blue stops writing.
func promotedColourPair(t *testing.T, ns string, tm timing3, greenReady bool) colourPair {
	t.Helper()
	newNamespace(t, ns)
	colourPod(t, ns, "manager-blue", "blue", true)
	colourPod(t, ns, "manager-green", "green", greenReady)
	pausedOnPreview(t, ns)
	p := startColourPairWith(t, ns, tm, true)
	p.blueLog.Take()
	patchRolloutStatus(t, ns, `{"pauseConditions":null}`)
	NewWithT(t).Eventually(p.blue.fence.Leading, eventually).Should(BeFalse(), "blue stops writing at the promote")
	return p
}

// TestPromoteHandsTheLeaseOverBeforeTheServiceMoves promotes the Rollout as `kubectl argo rollouts promote`
// does: the leader stops leading as soon as its watch shows the promote and hands the Lease to the Ready pod of
// the colour promoted to, whose manager holds it without writing until Argo Rollouts moves the active Service,
// and then leads on what its watch of the Service shows, with no request of its own.
func TestPromoteHandsTheLeaseOverBeforeTheServiceMoves(t *testing.T) {
	g := NewWithT(t)
	ns := "promote-hand-over"
	p := promotedColourPair(t, ns, never, true)
	_, err := p.blue.fence.Enter()
	g.Expect(err).To(MatchError(ErrNotLeading))
	g.Eventually(func() string { return holder(g, ns) }, eventually).Should(Equal("manager-green"),
		"blue hands the Lease to green's pod at the promote")
	g.Consistently(p.green.fence.Leading).Should(BeFalse(), "green waits for the active Service to select it")
	g.Expect(p.blueLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "blue: the hand-over only")

	promote(t, ns, "active", "green")
	g.Eventually(p.green.fence.Leading, eventually).Should(BeTrue())
	g.Expect(holder(g, ns)).To(Equal("manager-green"))
	g.Expect(p.blueLog.Take()).To(BeEmpty(), "blue: nothing more once the Service moves")
	g.Expect(p.greenLog.Take()).To(BeEmpty(), "green: no request before it leads")
	g.Expect(p.ledger.Events()).To(Equal([]string{"blue started", "blue stopped", "green started"}))
	g.Expect(p.ledger.Overlaps()).To(BeEmpty())
}

// TestPromoteWithoutAReadyNewColourStopsTheLeadersWrites promotes while no pod of the colour promoted to is
// Ready: the leader has nobody to hand the Lease to, so it stops writing and keeps the Lease until the Service
// moves, then releases it, and the new colour's manager takes it.
func TestPromoteWithoutAReadyNewColourStopsTheLeadersWrites(t *testing.T) {
	g := NewWithT(t)
	ns := "promote-yield"
	p := promotedColourPair(t, ns, never, false)
	g.Consistently(p.green.fence.Leading).Should(BeFalse(), "green waits for the active Service")
	g.Expect(holder(g, ns)).To(Equal("blue"), "blue keeps the Lease until the Service moves")
	g.Expect(p.blueLog.Take()).To(BeEmpty(), "stopping its writes costs blue no request")

	promote(t, ns, "active", "green")
	g.Eventually(p.green.fence.Leading, eventually).Should(BeTrue())
	g.Expect(holder(g, ns)).To(Equal("green"))
	g.Expect(p.blueLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "blue: the release only")
	g.Expect(p.ledger.Events()).To(Equal([]string{"blue started", "blue stopped writing", "blue stopped",
		"green started"}))
	g.Expect(p.ledger.Overlaps()).To(BeEmpty())
}

// TestAbortAfterPromoteHandsTheLeaseBack aborts the Rollout after the promote and before Argo Rollouts moved
// the Service: the new colour's manager, which holds the Lease it was handed, hands it back to the active
// colour's pod, whose manager leads again.
func TestAbortAfterPromoteHandsTheLeaseBack(t *testing.T) {
	g := NewWithT(t)
	ns := "promote-abort"
	p := promotedColourPair(t, ns, never, true)
	g.Eventually(func() string { return holder(g, ns) }, eventually).Should(Equal("manager-green"))
	patchRolloutStatus(t, ns, `{"abort":true}`)
	g.Eventually(p.blue.fence.Leading, eventually).Should(BeTrue(), "blue leads again after the abort")
	g.Expect(holder(g, ns)).To(Equal("manager-blue"))
	g.Expect(p.green.fence.Leading()).To(BeFalse())
	g.Expect(p.greenLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "green: the hand-back only")
	g.Expect(p.ledger.Events()).To(Equal([]string{"blue started", "blue stopped", "blue started"}))
	g.Expect(p.ledger.Overlaps()).To(BeEmpty())
}

// handedWaiting is why a manager handed the Lease at a promote waits.
const handedWaiting = "lease handed over at the promote: waiting for the active Service to select this pod"

// TestLeaderLeadsOnWhenTheServiceDoesNotMove promotes while Argo Rollouts does not move the active Service
// (its controller down): the new colour's manager holds the Lease it was handed for a renew deadline, then
// hands it back, and the old leader leads and renews, not handing the Lease over again while that promote
// stays pending.
func TestLeaderLeadsOnWhenTheServiceDoesNotMove(t *testing.T) {
	g := NewWithT(t)
	ns := "promote-stuck"
	p := promotedColourPair(t, ns, short, true)
	g.Eventually(func() string { return holder(g, ns) }, eventually).Should(Equal("manager-green"))
	g.Eventually(func() bool { return p.ledger.Waited("green", handedWaiting) }, eventually).Should(BeTrue(),
		"green saw the Lease handed to it before the clock moves")
	p.clock.Step(short.renew - time.Second)
	g.Consistently(p.blue.fence.Leading).Should(BeFalse(), "green holds the Lease until its renew deadline")
	p.clock.Step(time.Second)
	g.Eventually(p.blue.fence.Leading, eventually).Should(BeTrue(), "blue leads again a renew deadline after the promote")
	g.Expect(holder(g, ns)).To(Equal("manager-blue"))
	p.clock.Step(short.retry)
	g.Eventually(func() string { return holder(g, ns) }, eventually).Should(Equal("blue"), "blue renews in its own name")
	g.Expect(p.blue.fence.Leading()).To(BeTrue(), "blue does not hand the Lease over again for the same promote")
	g.Expect(p.ledger.Events()).To(Equal([]string{"blue started", "blue stopped", "blue started"}))
	g.Expect(p.ledger.Overlaps()).To(BeEmpty())
}
