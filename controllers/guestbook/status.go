package guestbook

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// patchStatus writes what the reconcile observed into st.gb.Status and patches it once, against before,
// when anything changed. It returns reconcileErr joined with a failure to patch.
func (r *Reconciler) patchStatus(ctx context.Context, st *reconcileState, before *webappv1.Guestbook, reconcileErr error) error {
	summarize(st, reconcileErr)
	patch := client.MergeFrom(before)
	data, err := patch.Data(st.gb)
	if err != nil {
		return errors.Join(reconcileErr, fmt.Errorf("computing status patch: %w", err))
	}
	if string(data) == "{}" {
		return reconcileErr
	}
	if err := r.Status().Patch(ctx, st.gb, patch); err != nil && !apierrors.IsNotFound(err) {
		return errors.Join(reconcileErr, fmt.Errorf("patching status: %w", err))
	}
	return reconcileErr
}

// summarize sets the status fields and the Available, Progressing and Degraded conditions from what the
// steps that ran learned. A conflict is left out of the conditions: it only means another write came first,
// and the retry follows.
func summarize(st *reconcileState, reconcileErr error) {
	gb := st.gb
	s := &gb.Status
	set := func(typ string, status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{
			Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: gb.Generation,
		})
	}
	missing := st.configRead && st.configMap == nil

	if st.rolesDone {
		s.Active = st.active
		s.Standby = standbyNames(st.pods, st.active)
		s.ReadyReplicas = countReady(st.pods)

		switch {
		case s.Active != "":
			set(webappv1.ConditionAvailable, metav1.ConditionTrue, webappv1.ReasonActiveReady,
				fmt.Sprintf("pod %s is active and Ready", s.Active))
		case missing && len(st.pods) == 0:
			set(webappv1.ConditionAvailable, metav1.ConditionFalse, webappv1.ReasonConfigMapMissing,
				fmt.Sprintf("waiting for ConfigMap %q", gb.Spec.ConfigMapName))
		default:
			set(webappv1.ConditionAvailable, metav1.ConditionFalse, webappv1.ReasonNoReadyPod, "no pod is Ready")
		}

		switch {
		case missing:
			set(webappv1.ConditionProgressing, metav1.ConditionFalse, webappv1.ReasonConfigMapMissing,
				fmt.Sprintf("waiting for ConfigMap %q", gb.Spec.ConfigMapName))
		case rolledOut(st):
			set(webappv1.ConditionProgressing, metav1.ConditionFalse, webappv1.ReasonRolloutComplete,
				fmt.Sprintf("%d pods run the current config and are Ready", gb.Spec.Size))
		default:
			set(webappv1.ConditionProgressing, metav1.ConditionTrue, webappv1.ReasonRollingOut,
				fmt.Sprintf("%d of %d pods Ready", s.ReadyReplicas, gb.Spec.Size))
		}
	}

	switch {
	case missing:
		set(webappv1.ConditionDegraded, metav1.ConditionTrue, webappv1.ReasonConfigMapMissing,
			fmt.Sprintf("ConfigMap %q not found in namespace %s", gb.Spec.ConfigMapName, gb.Namespace))
	case reconcileErr != nil && !apierrors.IsConflict(reconcileErr):
		set(webappv1.ConditionDegraded, metav1.ConditionTrue, webappv1.ReasonReconcileError, reconcileErr.Error())
	case reconcileErr != nil:
		// a conflict: keep the last verdict
	case s.Active == "":
		set(webappv1.ConditionDegraded, metav1.ConditionTrue, webappv1.ReasonNoReadyPod, "no pod is Ready, nothing is active")
	default:
		set(webappv1.ConditionDegraded, metav1.ConditionFalse, webappv1.ReasonAsExpected, "the active pod is Ready")
	}
	if reconcileErr == nil {
		s.ObservedGeneration = gb.Generation
	}
}

// standbyNames lists, sorted, the pods other than active that are not being deleted.
func standbyNames(pods []corev1.Pod, active string) []string {
	var names []string
	for i := range pods {
		if p := &pods[i]; p.Name != active && p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}

// countReady counts the servable pods.
func countReady(pods []corev1.Pod) int32 {
	var n int32
	for i := range pods {
		if servable(&pods[i]) {
			n++
		}
	}
	return n
}

// rolledOut reports whether exactly size pods (not being deleted) run the current config hash and all are
// Ready.
func rolledOut(st *reconcileState) bool {
	var current int32
	for i := range st.pods {
		p := &st.pods[i]
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Annotations[webappv1.AnnotationConfigHash] != st.configHash || !servable(p) {
			return false
		}
		current++
	}
	return current == st.gb.Spec.Size
}
