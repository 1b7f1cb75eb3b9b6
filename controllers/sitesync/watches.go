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
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// requestedAtChanged passes updates that change the gitops.siteops.dev/requestedAt annotation, which the
// push receiver (or a person: `kubectl annotate`) sets to ask for a sync now.
func requestedAtChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld == nil || e.ObjectNew == nil {
				return false
			}
			return e.ObjectOld.GetAnnotations()[gitopsv1alpha1.RequestedAtAnnotation] !=
				e.ObjectNew.GetAnnotations()[gitopsv1alpha1.RequestedAtAnnotation]
		},
	}
}

// rolloutAnnotationsChanged passes updates that change an annotation steering a rollout of waves: the freeze
// override (siteops.dev/override-freeze), the pause (siteops.dev/pause-rollout), an approval
// (siteops.dev/approve-<wave>), or the acceptance or rejection of an Inconclusive analysis
// (siteops.dev/accept-analysis-<wave>, reject-analysis-<wave>). docs/waves.md tells people to `kubectl
// annotate` them; none changes the generation, and the rollout waiting for one may otherwise sleep until its
// freeze window closes.
func rolloutAnnotationsChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld == nil || e.ObjectNew == nil {
				return false
			}
			return rolloutAnnotations(e.ObjectOld.GetAnnotations()) != rolloutAnnotations(e.ObjectNew.GetAnnotations())
		},
	}
}

// rolloutAnnotations is the override, pause, approval and analysis annotations of a, one "key=value" a line, sorted
// by key.
func rolloutAnnotations(a map[string]string) string {
	var lines []string
	for k, v := range a {
		if k == gitopsv1alpha1.OverrideFreezeAnnotation || k == gitopsv1alpha1.PauseRolloutAnnotation ||
			strings.HasPrefix(k, gitopsv1alpha1.ApproveAnnotationPrefix) ||
			strings.HasPrefix(k, gitopsv1alpha1.AcceptAnalysisAnnotationPrefix) ||
			strings.HasPrefix(k, gitopsv1alpha1.RejectAnalysisAnnotationPrefix) {
			lines = append(lines, k+"="+v)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
