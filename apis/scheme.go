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

// Package apis gathers siteops' API groups.
package apis

import (
	"fmt"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// NewScheme returns a scheme with the built-in Kubernetes types, every siteops API and Argo Rollouts' typed API
// (the manager's own Rollout and its AnalysisRuns, read for SiteSync status) registered: the one the manager, the
// CLI and the tests share.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, batchv1.AddToScheme, webappv1.AddToScheme, gitopsv1alpha1.AddToScheme,
		rolloutsv1alpha1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return s, nil
}
