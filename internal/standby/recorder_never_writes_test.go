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

package standby_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/internal/standby"
	"github.com/siteops/siteops/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	var err error
	env, err = testenv.Start(testenv.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// TestDryRunWriteRecorderNeverWrites sends every kind of write through a dry-run standby client against the real
// apiserver and shows that nothing is persisted, while the report names each write and its fields.
func TestDryRunWriteRecorderNeverWrites(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	direct, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	report := &standby.Report{Clock: clk}
	sc := standby.NewWriteRecorder(direct, report, true)

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "standby"}}
	g.Expect(direct.Create(ctx, ns)).To(Succeed())
	existing := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "existing", Namespace: "standby"},
		Data: map[string]string{"a": "1"}}
	g.Expect(direct.Create(ctx, existing)).To(Succeed())
	gb := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "gb", Namespace: "standby"},
		Spec: webappv1.GuestbookSpec{Size: 1, ConfigMapName: "existing", Alias: "Phone"}}
	g.Expect(direct.Create(ctx, gb)).To(Succeed())

	// create
	g.Expect(sc.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new",
		Namespace: "standby"}})).To(Succeed())
	g.Expect(apierrors.IsNotFound(direct.Get(ctx, client.ObjectKey{Namespace: "standby", Name: "new"},
		&corev1.ConfigMap{}))).To(BeTrue())

	// update
	upd := existing.DeepCopy()
	upd.Data["a"] = "2"
	g.Expect(sc.Update(ctx, upd)).To(Succeed())
	// patch
	p := existing.DeepCopy()
	p.Data["b"] = "3"
	g.Expect(sc.Patch(ctx, p, client.MergeFrom(existing))).To(Succeed())
	// status patch
	st := gb.DeepCopy()
	st.Status.Active = "pod-0"
	g.Expect(sc.Status().Patch(ctx, st, client.MergeFrom(gb))).To(Succeed())
	// delete
	g.Expect(sc.Delete(ctx, existing.DeepCopy())).To(Succeed())

	got := &corev1.ConfigMap{}
	g.Expect(direct.Get(ctx, client.ObjectKeyFromObject(existing), got)).To(Succeed())
	g.Expect(got.Data).To(Equal(map[string]string{"a": "1"}), "dry-run writes must not change the object")
	g.Expect(got.DeletionTimestamp).To(BeNil())
	gotGB := &webappv1.Guestbook{}
	g.Expect(direct.Get(ctx, client.ObjectKeyFromObject(gb), gotGB)).To(Succeed())
	g.Expect(gotGB.Status.Active).To(BeEmpty())

	s := report.Summarize(false)
	g.Expect(s.Mode).To(Equal("standby"))
	g.Expect(s.Writes).To(Equal(5))
	g.Expect(s.ByKind).To(Equal(map[string]int{"ConfigMap": 4, "Guestbook/status": 1}))
	g.Expect(s.Recent[1].Fields).To(ContainElement(".data.a"))
	g.Expect(s.Recent[2].Fields).To(ContainElement(".data.b"))
	g.Expect(s.Recent[3].Fields).To(ContainElement(".status.active"))
	g.Expect(s.UnexpectedWrites).To(Equal(0), "every write was wanted once")

	// The leader writes the object; the standby then wants the same fields of the new version: new work.
	moved := &corev1.ConfigMap{}
	g.Expect(direct.Get(ctx, client.ObjectKeyFromObject(existing), moved)).To(Succeed())
	moved.Data["a"] = "leader"
	g.Expect(direct.Update(ctx, moved)).To(Succeed())
	again := moved.DeepCopy()
	again.Data["b"] = "3"
	clk.Step(2 * standby.RepeatAfter)
	g.Expect(sc.Patch(ctx, again, client.MergeFrom(moved))).To(Succeed())
	g.Expect(report.Summarize(false).UnexpectedWrites).To(Equal(0), "a write of a newer version is not a repeat")

	// Wanted again at once, of the same version: a reconcile racing the leader's write, not yet a repeat.
	clk.Step(time.Second)
	g.Expect(sc.Patch(ctx, again, client.MergeFrom(moved))).To(Succeed())
	g.Expect(report.Summarize(false).UnexpectedWrites).To(Equal(0))
	// Wanted again RepeatAfter later, of an object still at that version: a disagreement with the running version.
	clk.Step(standby.RepeatAfter)
	g.Expect(sc.Patch(ctx, again, client.MergeFrom(moved))).To(Succeed())
	g.Expect(report.Summarize(false).UnexpectedWrites).To(Equal(1))
}

// TestRecordingClientWrites shows the leader's recording client persists writes and records them.
func TestRecordingClientWrites(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	direct, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	report := &standby.Report{}
	rc := standby.NewWriteRecorder(direct, report, false)
	g.Expect(direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "leader"}})).To(Succeed())
	g.Expect(rc.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made",
		Namespace: "leader"}})).To(Succeed())
	g.Expect(direct.Get(ctx, client.ObjectKey{Namespace: "leader", Name: "made"}, &corev1.ConfigMap{})).To(Succeed())
	s := report.Summarize(true)
	g.Expect(s.Mode).To(Equal("leader"))
	g.Expect(s.Writes).To(Equal(1))
	g.Expect(s.Recent[0].DryRun).To(BeFalse())
}
