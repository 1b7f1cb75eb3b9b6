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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/siteops/siteops/internal/standby"
)

// TestApplyIsRecordedOnlyWhenItChangesSomething applies ConfigMaps through a dry-run and a persisting write
// recorder: a dry-run apply changes nothing and is recorded with the fields it would set; a persisting apply
// of a new object and of a change is recorded; an apply of what the object already holds is no write.
func TestApplyIsRecordedOnlyWhenItChangesSomething(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	direct, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apply"}})).To(Succeed())
	owner := client.FieldOwner("recorder-test")
	cm := func(v string) *corev1ac.ConfigMapApplyConfiguration {
		return corev1ac.ConfigMap("cm", "apply").WithLabels(map[string]string{"app": "x"}).WithData(map[string]string{"k": v})
	}
	key := client.ObjectKey{Namespace: "apply", Name: "cm"}

	dry := &standby.Report{}
	dr := standby.NewWriteRecorder(direct, dry, true)
	g.Expect(dr.Apply(ctx, cm("1"), owner)).To(Succeed())
	g.Expect(apierrors.IsNotFound(direct.Get(ctx, key, &corev1.ConfigMap{}))).To(BeTrue(), "a dry run creates nothing")
	g.Expect(dry.Summarize(false).Writes).To(Equal(1))
	g.Expect(dry.Summarize(false).Recent[0].Verb).To(Equal("apply"))
	g.Expect(dry.Summarize(false).Recent[0].Fields).To(ContainElements(".data", ".metadata"))

	leader := &standby.Report{}
	lr := standby.NewWriteRecorder(direct, leader, false)
	g.Expect(lr.Apply(ctx, cm("1"), owner)).To(Succeed())
	g.Expect(direct.Get(ctx, key, &corev1.ConfigMap{})).To(Succeed())
	g.Expect(lr.Apply(ctx, cm("1"), owner)).To(Succeed())
	g.Expect(leader.Summarize(true).Writes).To(Equal(1), "the same apply again is no write")
	g.Expect(lr.Apply(ctx, cm("2"), owner)).To(Succeed())
	s := leader.Summarize(true)
	g.Expect(s.Writes).To(Equal(2))
	g.Expect(s.Recent[1].Fields).To(Equal([]string{".data.k"}))

	g.Expect(dr.Apply(ctx, cm("2"), owner)).To(Succeed())
	g.Expect(dry.Summarize(false).Writes).To(Equal(1), "a dry run of what the object holds is no write")
	g.Expect(dr.Apply(ctx, cm("3"), owner)).To(Succeed())
	g.Expect(dry.Summarize(false).Writes).To(Equal(2))
	got := &corev1.ConfigMap{}
	g.Expect(direct.Get(ctx, key, got)).To(Succeed())
	g.Expect(got.Data).To(Equal(map[string]string{"k": "2"}))
}

// TestRefusedApplyIsRecordedEachTime: an apply the apiserver refuses (here an invalid ConfigMap key; in a
// cluster, a quota or an admission webhook) is a write the controller wants and cannot have. It is recorded
// every time, and wanted again RepeatAfter later of the same object version it counts as unexpected.
func TestRefusedApplyIsRecordedEachTime(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	direct, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "refused"}})).To(Succeed())
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	report := &standby.Report{Clock: clk}
	dr := standby.NewWriteRecorder(direct, report, true)
	invalid := corev1ac.ConfigMap("cm", "refused").WithData(map[string]string{"not a valid key!": "v"})

	g.Expect(dr.Apply(ctx, invalid, client.FieldOwner("recorder-test"))).NotTo(Succeed())
	s := report.Summarize(false)
	g.Expect(s.Writes).To(Equal(1))
	g.Expect(s.Recent[0].Verb).To(Equal("apply"))
	g.Expect(s.Recent[0].Fields).To(ContainElement(".data"))
	g.Expect(s.UnexpectedWrites).To(Equal(0))

	clk.Step(standby.RepeatAfter)
	g.Expect(dr.Apply(ctx, invalid, client.FieldOwner("recorder-test"))).NotTo(Succeed())
	g.Expect(report.Summarize(false).Writes).To(Equal(2))
	g.Expect(report.Summarize(false).UnexpectedWrites).To(Equal(1), "still wanted, of the same (absent) object")
}

// TestApplyIsStampedWhenSent: an apply is recorded once it returns (only then is it known whether it changed
// anything), but stamped with the time it was sent, as every other write is, so that write times compare.
func TestApplyIsStampedWhenSent(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	direct, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apply-sent"}})).To(Succeed())
	sent := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(sent)
	slow := interceptor.NewClient(direct, interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration,
			opts ...client.ApplyOption) error {
			clk.SetTime(sent.Add(time.Second)) // the apiserver takes a second to answer
			return c.Apply(ctx, obj, opts...)
		},
	})
	report := &standby.Report{Clock: clk}
	cm := corev1ac.ConfigMap("cm", "apply-sent").WithData(map[string]string{"k": "v"})
	g.Expect(standby.NewWriteRecorder(slow, report, false).Apply(ctx, cm,
		client.FieldOwner("recorder-test"))).To(Succeed())
	s := report.Summarize(true)
	g.Expect(s.Writes).To(Equal(1))
	g.Expect(s.Recent[0].Time).To(BeTemporally("==", sent), "stamped when sent, not when it returned")
}
