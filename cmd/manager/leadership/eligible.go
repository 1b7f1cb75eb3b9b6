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

package leadership

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodTemplateHashLabel is the label Argo Rollouts puts on each pod of a Rollout and in the selector of the
// Rollout's active and preview Services, naming the pod template (the colour) they select.
const PodTemplateHashLabel = "rollouts-pod-template-hash"

// eligible reports whether this manager may lead: always without an active Service, else only while the active
// Service's selector names this pod's template hash. A Service that does not exist, or whose selector names no
// hash yet, selects no colour: nobody may lead.
func (e *Elector) eligible(ctx context.Context) (bool, error) {
	if e.cfg.ActiveService == "" {
		return true, nil
	}
	svc, err := e.cfg.Client.CoreV1().Services(e.cfg.Namespace).Get(ctx, e.cfg.ActiveService, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the active Service %s/%s: %w", e.cfg.Namespace, e.cfg.ActiveService, err)
	}
	hash, ok := svc.Spec.Selector[PodTemplateHashLabel]
	return ok && hash == e.cfg.PodTemplateHash, nil
}
