package sitesync

import (
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
