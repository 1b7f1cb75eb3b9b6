package sitesync

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// secretRefIndex indexes SiteSyncs by the names of the Git credential Secrets they reference.
const secretRefIndex = ".spec.secretRefs"

// indexSecretRefs lists the Secrets whose change should re-trigger a SiteSync's sync.
func indexSecretRefs(obj client.Object) []string {
	ss, ok := obj.(*gitopsv1alpha1.SiteSync)
	if !ok {
		return nil
	}
	var names []string
	if ref := ss.Spec.Source.SecretRef; ref != nil {
		names = append(names, ref.Name)
	}
	if ref := ss.Spec.Target.SecretRef; ref != nil && (len(names) == 0 || names[0] != ref.Name) {
		names = append(names, ref.Name)
	}
	return names
}

// siteSyncsForSecret maps a Secret to the SiteSyncs in its namespace that reference it.
func (r *Reconciler) siteSyncsForSecret(ctx context.Context, secret client.Object) []reconcile.Request {
	var list gitopsv1alpha1.SiteSyncList
	if err := r.List(ctx, &list, client.InNamespace(secret.GetNamespace()),
		client.MatchingFields{secretRefIndex: secret.GetName()}); err != nil {
		// A map function cannot return an error; the next interval re-syncs anyway.
		logf.FromContext(ctx).Error(err, "listing SiteSyncs that reference a Secret", "secret", secret.GetName())
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return requests
}

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
