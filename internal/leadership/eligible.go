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
	corev1 "k8s.io/api/core/v1"
)

// PodTemplateHashLabel is the label Argo Rollouts puts on each pod of a Rollout and in the selector of the
// Rollout's active and preview Services, naming the pod template (the colour) they select.
const PodTemplateHashLabel = "rollouts-pod-template-hash"

// eligible reports whether this manager may lead: always without an active Service, else only while the active
// Service's selector names this pod's template hash, as the watch of the Service last delivered it. A Service
// that does not exist, or whose selector names no hash yet, selects no colour: nobody may lead.
func (e *Elector) eligible() bool {
	if e.cfg.ActiveService == "" {
		return true
	}
	svc, _ := e.watched(e.serviceInformer, e.cfg.ActiveService).(*corev1.Service)
	return selects(svc, e.cfg.PodTemplateHash)
}

// selects reports whether svc (nil: it does not exist) selects the pods of pod-template hash.
func selects(svc *corev1.Service, hash string) bool {
	if svc == nil {
		return false
	}
	h, ok := svc.Spec.Selector[PodTemplateHashLabel]
	return ok && h == hash
}
