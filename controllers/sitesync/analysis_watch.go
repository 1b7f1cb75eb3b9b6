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
	"fmt"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// watchAnalysisRuns makes the controller own the AnalysisRuns it creates where Argo Rollouts' AnalysisRun kind
// is served: a run's phase change wakes its SiteSync. Without the kind, waves with analysis wait.
func (r *Reconciler) watchAnalysisRuns(b *builder.Builder, mapper meta.RESTMapper) (*builder.Builder, error) {
	gvk := rolloutsv1alpha1.SchemeGroupVersion.WithKind("AnalysisRun")
	_, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case meta.IsNoMatchError(err):
		return b, nil
	case err != nil:
		return nil, fmt.Errorf("looking up Argo Rollouts' AnalysisRun kind: %w", err)
	}
	r.analysisObserved = true
	return b.Owns(&rolloutsv1alpha1.AnalysisRun{}, builder.WithPredicates(analysisPhaseChanged())), nil
}

// analysisPhaseChanged passes the updates of a run that change its phase: the planner reads nothing else
// until the run ends, and a running run is updated at each measurement.
func analysisPhaseChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*rolloutsv1alpha1.AnalysisRun)
			n, ok2 := e.ObjectNew.(*rolloutsv1alpha1.AnalysisRun)
			return !ok1 || !ok2 || o.Status.Phase != n.Status.Phase
		},
	}
}
