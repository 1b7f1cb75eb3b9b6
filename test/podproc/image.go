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

package podproc

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// binaryFor is the manager build that runs pod: Binaries' entry for the tag of the image of its first
// container, or Binary when the tag has none.
func (c Config) binaryFor(pod *corev1.Pod) string {
	if len(pod.Spec.Containers) == 0 {
		return c.Binary
	}
	if b, ok := c.Binaries[imageTag(pod.Spec.Containers[0].Image)]; ok {
		return b
	}
	return c.Binary
}

// imageTag is the tag of image ("ghcr.io/siteops/manager:v0.2.0" → "v0.2.0"), "" when it has none or is
// pinned by digest only. A colon before the last slash is a registry's port, not a tag.
func imageTag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	return image[i+1:]
}
