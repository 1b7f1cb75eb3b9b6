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

package waves

import (
	"fmt"
	"strings"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// maxQuoted bounds how much of an annotation a message quotes; status.rollout.message is limited in length.
const maxQuoted = 80

// minRevisionPrefix is the shortest revision prefix an annotation may name (as `git log --oneline` prints).
const minRevisionPrefix = 7

// freezeOverride reads the override-freeze annotation, "<revision> <reason>", for the revision being rolled
// out: it returns the reason when the annotation names that revision (the full SHA or a prefix of 7 or more
// characters) and gives a reason. Otherwise reason is empty, and why says what is wrong with an annotation
// that is set, so the frozen rollout's message tells the person.
func freezeOverride(annotations map[string]string, revision string) (reason, why string) {
	value := strings.TrimSpace(annotations[gitopsv1alpha1.OverrideFreezeAnnotation])
	if value == "" {
		return "", ""
	}
	fields := strings.Fields(value)
	target := fields[0]
	if len(target) < minRevisionPrefix || !strings.HasPrefix(revision, target) {
		return "", fmt.Sprintf("%s=%q is for another revision", gitopsv1alpha1.OverrideFreezeAnnotation, clip(value))
	}
	if len(fields) == 1 {
		return "", fmt.Sprintf("%s=%q gives no reason", gitopsv1alpha1.OverrideFreezeAnnotation, clip(value))
	}
	return strings.Join(fields[1:], " "), ""
}

// clip shortens s to maxQuoted characters.
func clip(s string) string {
	if r := []rune(s); len(r) > maxQuoted {
		return string(r[:maxQuoted]) + "…"
	}
	return s
}
