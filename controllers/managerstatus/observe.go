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

package managerstatus

import (
	"context"
	"fmt"
	"slices"
	"strings"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// managerContainer is the manager's container in base/manager's Rollout; the first container when absent.
const managerContainer = "manager"

// rolloutKey is the Rollout ref names, with the documented defaults for empty fields.
func rolloutKey(ref *gitopsv1alpha1.ManagerRolloutReference) types.NamespacedName {
	key := types.NamespacedName{Namespace: gitopsv1alpha1.DefaultManagerRolloutNamespace, Name: gitopsv1alpha1.DefaultManagerRolloutName}
	if ref != nil && ref.Namespace != "" {
		key.Namespace = ref.Namespace
	}
	if ref != nil && ref.Name != "" {
		key.Name = ref.Name
	}
	return key
}

// Observe reads the Rollout key and returns its status for a SiteSync: nil when the Rollout does not exist or
// Argo Rollouts is not installed, an error only when the apiserver could not answer.
func Observe(ctx context.Context, c client.Reader, key types.NamespacedName) (*gitopsv1alpha1.ManagerStatus, error) {
	ro := &rolloutsv1alpha1.Rollout{}
	if err := c.Get(ctx, key, ro); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("getting Rollout %s: %w", key, err)
	}
	st := &gitopsv1alpha1.ManagerStatus{
		Rollout: key.String(),
		Phase:   string(ro.Status.Phase),
		Message: ro.Status.Message,
	}
	newest, stable := ro.Status.CurrentPodHash, ro.Status.StableRS
	specImage := imageOf(ro.Spec.Template.Spec)
	switch stable {
	case "", newest:
		st.StableImage = specImage
	default:
		st.PreviewImage = specImage
		img, err := replicaSetImage(ctx, c, key.Namespace, key.Name+"-"+stable)
		if err != nil {
			return nil, err
		}
		st.StableImage = img
	}
	run, err := latestPrePromotionRun(ctx, c, ro, newest)
	if err != nil {
		return nil, err
	}
	st.ShadowVerdict = gitopsv1alpha1.ShadowVerdictNone
	if run != nil {
		st.AnalysisRun = run.Name
		st.ShadowVerdict = verdict(run.Status.Phase)
	}
	return st, nil
}

// imageOf is the manager container's image of a pod spec.
func imageOf(spec corev1.PodSpec) string {
	for _, c := range spec.Containers {
		if c.Name == managerContainer {
			return c.Image
		}
	}
	if len(spec.Containers) > 0 {
		return spec.Containers[0].Image
	}
	return ""
}

// replicaSetImage is the manager image of the Rollout's ReplicaSet name; empty when it is gone.
func replicaSetImage(ctx context.Context, c client.Reader, namespace, name string) (string, error) {
	rs := &appsv1.ReplicaSet{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, rs); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("getting ReplicaSet %s/%s: %w", namespace, name, err)
	}
	return imageOf(rs.Spec.Template.Spec), nil
}

// latestPrePromotionRun is the newest pre-promotion AnalysisRun the Rollout owns for the pod hash; nil when
// there is none.
func latestPrePromotionRun(ctx context.Context, c client.Reader, ro *rolloutsv1alpha1.Rollout, podHash string) (*rolloutsv1alpha1.AnalysisRun, error) {
	if podHash == "" {
		return nil, nil
	}
	runs := &rolloutsv1alpha1.AnalysisRunList{}
	if err := c.List(ctx, runs, client.InNamespace(ro.Namespace), client.MatchingLabels{
		rolloutsv1alpha1.RolloutTypeLabel:             rolloutsv1alpha1.RolloutTypePrePromotionLabel,
		rolloutsv1alpha1.DefaultRolloutUniqueLabelKey: podHash,
	}); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("listing AnalysisRuns of Rollout %s/%s: %w", ro.Namespace, ro.Name, err)
	}
	owned := slices.DeleteFunc(runs.Items, func(run rolloutsv1alpha1.AnalysisRun) bool {
		return !slices.ContainsFunc(run.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == ro.UID })
	})
	if len(owned) == 0 {
		return nil, nil
	}
	latest := slices.MaxFunc(owned, func(a, b rolloutsv1alpha1.AnalysisRun) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return &latest, nil
}

// verdict maps an AnalysisRun phase to a shadow verdict.
func verdict(p rolloutsv1alpha1.AnalysisPhase) gitopsv1alpha1.ShadowVerdict {
	switch p {
	case rolloutsv1alpha1.AnalysisPhaseSuccessful:
		return gitopsv1alpha1.ShadowVerdictSuccessful
	case rolloutsv1alpha1.AnalysisPhaseFailed, rolloutsv1alpha1.AnalysisPhaseError, rolloutsv1alpha1.AnalysisPhaseInconclusive:
		return gitopsv1alpha1.ShadowVerdictFailed
	default: // "", Pending, Running
		return gitopsv1alpha1.ShadowVerdictRunning
	}
}
