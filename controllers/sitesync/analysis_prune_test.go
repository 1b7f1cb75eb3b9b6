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
	"time"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestPruneKeepsTheCurrentRunsWhenCreatedInTheSameSecond: creation times have one-second resolution, so an
// older revision's runs and the current one can carry the same time. With a history limit of 1 only the
// current revision's run stays, whatever order the runs are listed in.
func TestPruneKeepsTheCurrentRunsWhenCreatedInTheSameSecond(t *testing.T) {
	g := NewWithT(t)
	scheme := runtime.NewScheme()
	g.Expect(rolloutsv1alpha1.AddToScheme(scheme)).To(Succeed())
	at := metav1.NewTime(time.Date(2026, 12, 3, 13, 7, 36, 0, time.UTC))
	newRun := func(name, revision string) rolloutsv1alpha1.AnalysisRun {
		return rolloutsv1alpha1.AnalysisRun{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
			CreationTimestamp: at, Labels: map[string]string{gitopsv1alpha1.LabelRevision: revision}},
			Status: rolloutsv1alpha1.AnalysisRunStatus{Phase: rolloutsv1alpha1.AnalysisPhaseSuccessful}}
	}
	runs := []rolloutsv1alpha1.AnalysisRun{newRun("old-a", "aaaaaaa"), newRun("old-b", "bbbbbbb"),
		newRun("sites-one-ccccccc", "ccccccc")}
	b := fake.NewClientBuilder().WithScheme(scheme)
	for i := range runs {
		b = b.WithObjects(runs[i].DeepCopy())
	}
	c := b.Build()
	r := &Reconciler{Client: c}
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{RolloutSpec: gitopsv1alpha1.RolloutSpec{AnalysisRunHistoryLimit: ptr.To[int32](1)}}}
	g.Expect(r.pruneAnalysisRuns(t.Context(), &scope{obj: ss, analysisRuns: runs}, "ccccccc")).To(Succeed())
	var left rolloutsv1alpha1.AnalysisRunList
	g.Expect(c.List(t.Context(), &left, client.InNamespace("ns"))).To(Succeed())
	g.Expect(left.Items).To(ConsistOf(HaveField("Name", "sites-one-ccccccc")))
}
