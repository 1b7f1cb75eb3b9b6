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
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/internal/kit"
)

// conditions sets the Guestbook's conditions with the reconciler's clock.
func (r *Reconciler) conditions() kit.Conditions {
	return kit.Conditions{Clock: r.clock(), Reasons: kit.Reasons{
		Idle: webappv1.ReasonIdle, Failed: webappv1.ReasonReconcileError, Retrying: webappv1.ReasonRetrying,
	}}
}

// summarize sets the status fields, the detail conditions Available, Progressing and Degraded, and the
// kstatus summary Ready, Reconciling and Stalled, from what the steps that ran learned. A conflict is left out
// of the conditions: it only means another write came first, and the retry follows.
func (r *Reconciler) summarize(st *scope, reconcileErr error) {
	gb := st.gb
	s := &gb.Status
	conds := r.conditions()
	set := func(typ string, v *kit.Verdict) { conds.Set(gb, typ, *v) }
	missing := st.configRead && !st.configFound
	conflict := reconcileErr != nil && apierrors.IsConflict(reconcileErr)
	out := kit.Outcome{Err: reconcileErr}
	if conflict {
		out.Err = nil // keep the last verdicts
	}

	if st.rolesDone {
		s.Active = st.active
		s.Standby = standbyNames(st.pods, st.active)
		s.ReadyReplicas = countReady(st.pods)

		switch {
		case s.Active != "":
			set(webappv1.ConditionAvailable, kit.True(webappv1.ReasonActiveReady,
				fmt.Sprintf("pod %s is active and Ready", s.Active)))
		case missing && len(st.pods) == 0:
			set(webappv1.ConditionAvailable, kit.False(webappv1.ReasonConfigMapMissing,
				fmt.Sprintf("waiting for ConfigMap %q", gb.Spec.ConfigMapName)))
		default:
			set(webappv1.ConditionAvailable, kit.False(webappv1.ReasonNoReadyPod, "no pod is Ready"))
		}

		var progress *kit.Verdict
		switch {
		case missing:
			progress = kit.False(webappv1.ReasonConfigMapMissing, fmt.Sprintf("waiting for ConfigMap %q", gb.Spec.ConfigMapName))
		case rolledOut(st):
			progress = kit.False(webappv1.ReasonRolloutComplete,
				fmt.Sprintf("%d pods run the current config and are Ready", gb.Spec.Size))
		default:
			progress = kit.True(webappv1.ReasonRollingOut, fmt.Sprintf("%d of %d pods Ready", s.ReadyReplicas, gb.Spec.Size))
			out.Progressing = progress
		}
		set(webappv1.ConditionProgressing, progress)
		if !conflict {
			out.Ready = readyVerdict(gb, progress)
		}
	}

	switch {
	case missing:
		msg := fmt.Sprintf("ConfigMap %q not found in namespace %s", gb.Spec.ConfigMapName, gb.Namespace)
		set(webappv1.ConditionDegraded, kit.True(webappv1.ReasonConfigMapMissing, msg))
		out.Ready, out.Stalled = kit.False(webappv1.ReasonConfigMapMissing, msg),
			kit.True(webappv1.ReasonConfigMapMissing, msg)
	case reconcileErr != nil && !conflict:
		set(webappv1.ConditionDegraded, kit.True(webappv1.ReasonReconcileError, reconcileErr.Error()))
	case conflict:
		// keep the last verdict
	case s.Active == "":
		set(webappv1.ConditionDegraded, kit.True(webappv1.ReasonNoReadyPod, "no pod is Ready, nothing is active"))
	default:
		set(webappv1.ConditionDegraded, kit.False(webappv1.ReasonAsExpected, "the active pod is Ready"))
	}
	if !conflict {
		conds.Summarize(gb, out)
	}
	if reconcileErr == nil {
		s.ObservedGeneration = gb.Generation
	}
}

// readyVerdict is Ready from Available and Progressing: True once the active pod is Ready and the rollout
// is complete.
func readyVerdict(gb *webappv1.Guestbook, progress *kit.Verdict) *kit.Verdict {
	switch {
	case gb.Status.Active == "":
		return kit.False(webappv1.ReasonNoReadyPod, "no pod is Ready, nothing is active")
	case progress.Status == metav1.ConditionTrue:
		return kit.False(progress.Reason, progress.Message)
	default:
		return kit.True(webappv1.ReasonActiveReady,
			fmt.Sprintf("pod %s is active; %d pods run the current config and are Ready", gb.Status.Active, gb.Spec.Size))
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
func rolledOut(st *scope) bool {
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
