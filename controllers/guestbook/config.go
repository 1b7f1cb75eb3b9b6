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
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// reconcileConfig hashes the data of the Guestbook's ConfigMap: the hash remembered for the version the cached
// metadata names, else read (uncached, through APIReader). A missing ConfigMap is no error: the status summary
// marks the Guestbook Degraded/ConfigMapMissing, the workload step leaves the Deployment alone, and the
// ConfigMap watch brings the Guestbook back when it appears.
func (r *Reconciler) reconcileConfig(ctx context.Context, st *scope) error {
	key := types.NamespacedName{Namespace: st.gb.Namespace, Name: st.gb.Spec.ConfigMapName}
	if hash, ok := r.rememberedConfigHash(ctx, key); ok {
		st.configRead, st.configFound, st.configHash = true, true, hash
		return nil
	}
	cm := &corev1.ConfigMap{}
	wasMissing := isConfigMissing(st.gb)
	if err := r.configReader().Get(ctx, key, cm); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading ConfigMap %s: %w", key, err)
		}
		st.configRead = true
		if !wasMissing {
			r.events().Warning(st.gb, webappv1.EventConfigMapMissing,
				"ConfigMap %q not found; the workload waits for it", key.Name)
		}
		return nil
	}
	if wasMissing {
		r.events().Normal(st.gb, webappv1.EventConfigMapFound, "ConfigMap %q found", key.Name)
	}
	st.configRead, st.configFound, st.configHash = true, true, configHash(cm)
	r.ConfigHashes.remember(key, cm.UID, cm.ResourceVersion, st.configHash)
	return nil
}

// rememberedConfigHash is the hash remembered for the ConfigMap's version in the cached metadata; false when
// nothing is remembered for it, or the cache does not have it.
func (r *Reconciler) rememberedConfigHash(ctx context.Context, key types.NamespacedName) (string, bool) {
	if r.ConfigHashes == nil {
		return "", false
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if err := r.Get(ctx, key, meta); err != nil {
		return "", false
	}
	return r.ConfigHashes.lookup(key, meta.UID, meta.ResourceVersion)
}

// configReader is APIReader, or Client when it is nil.
func (r *Reconciler) configReader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

// isConfigMissing reports whether the Guestbook's last status said its ConfigMap was missing.
func isConfigMissing(gb *webappv1.Guestbook) bool {
	c := meta.FindStatusCondition(gb.Status.Conditions, webappv1.ConditionDegraded)
	return c != nil && c.Status == "True" && c.Reason == webappv1.ReasonConfigMapMissing
}

// configHash is a stable digest of a ConfigMap's data and binaryData: keys sorted, every key and value
// length-prefixed so no two different maps hash alike. Metadata does not count.
func configHash(cm *corev1.ConfigMap) string {
	h := sha256.New()
	write := func(kind string, k string, v []byte) {
		_, _ = fmt.Fprintf(h, "%s %d:%s %d:", kind, len(k), k, len(v))
		_, _ = h.Write(v)
	}
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		write("d", k, []byte(cm.Data[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(cm.BinaryData)) {
		write("b", k, cm.BinaryData[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
