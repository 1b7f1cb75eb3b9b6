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

package kit

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/siteops/siteops/apis"
)

// InheritShard gives labels the apis.ShardLabel of owner, or removes the label when owner has none, and
// returns labels (allocated when nil and the label is set). A child is then always in its owner's shard, and
// the manager that caches the owner caches the child, whatever labels a user's template carries.
func InheritShard(owner metav1.Object, labels map[string]string) map[string]string {
	shard, ok := owner.GetLabels()[apis.ShardLabel]
	if !ok {
		delete(labels, apis.ShardLabel)
		return labels
	}
	if labels == nil {
		labels = map[string]string{}
	}
	labels[apis.ShardLabel] = shard
	return labels
}
