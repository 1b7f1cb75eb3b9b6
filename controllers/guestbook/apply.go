package guestbook

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ensureObject makes the object key (of newObj's type) carry the fields set in desired, an apply
// configuration used as a typed list of the fields the controller owns. When the cached object already has
// them all it writes nothing; otherwise it sends them as a JSON merge patch (maps merge, lists are replaced,
// fields it does not set keep their values and server defaults), or creates the object when it is missing.
// It does not use server-side apply: the shadow client (controllers/shadow) records and dry-runs patches and
// creates only, and writing nothing when nothing differs keeps a shadow's report free of repeated writes and
// a failover's reconcile free of no-op round trips.
//
// removals are merged into the patch (not into a created object): nulls that delete map keys the controller
// owns wholly, such as a selector's extra keys; any removal forces the patch.
func (r *Reconciler) ensureObject(ctx context.Context, newObj func() client.Object, key types.NamespacedName,
	desired runtime.ApplyConfiguration, removals map[string]any) error {
	data, err := json.Marshal(desired)
	if err != nil {
		return fmt.Errorf("encoding %T: %w", desired, err)
	}
	cur := newObj()
	if err := r.Get(ctx, key, cur); err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading %T %s: %w", cur, key, err)
		}
		obj := newObj()
		if err := json.Unmarshal(data, obj); err != nil {
			return fmt.Errorf("decoding desired %T: %w", obj, err)
		}
		return r.Create(ctx, obj)
	}

	var want map[string]any
	if err := json.Unmarshal(data, &want); err != nil {
		return fmt.Errorf("decoding desired %T: %w", desired, err)
	}
	if len(removals) == 0 {
		covered, err := covers(cur, want)
		if err != nil {
			return err
		}
		if covered {
			return nil
		}
	}
	mergeInto(want, removals)
	patch, err := json.Marshal(want)
	if err != nil {
		return fmt.Errorf("encoding patch of %T: %w", desired, err)
	}
	return r.Patch(ctx, cur, client.RawPatch(types.MergePatchType, patch))
}

// covers reports whether obj already holds every field of want (apiVersion and kind aside: typed objects
// from the cache carry none).
func covers(obj client.Object, want map[string]any) (bool, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return false, fmt.Errorf("encoding %T: %w", obj, err)
	}
	var have map[string]any
	if err := json.Unmarshal(data, &have); err != nil {
		return false, fmt.Errorf("decoding %T: %w", obj, err)
	}
	for k, v := range want {
		if k == "apiVersion" || k == "kind" {
			continue
		}
		if !contains(have[k], v) {
			return false, nil
		}
	}
	return true, nil
}

// contains reports whether have holds want: maps hold every key of want with a value that holds want's,
// lists have as many elements each holding want's, other values are equal. Extra fields in have (server
// defaults) do not count.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if !contains(h[k], wv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !contains(h[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return have == want
	}
}

// mergeInto deep-merges src into dst: maps merge, anything else replaces.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		sm, srcIsMap := v.(map[string]any)
		dm, dstIsMap := dst[k].(map[string]any)
		if srcIsMap && dstIsMap {
			mergeInto(dm, sm)
			continue
		}
		dst[k] = v
	}
}
