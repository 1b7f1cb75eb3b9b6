package kit

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchStatus writes obj's status once, as a merge patch against before (the object as the reconcile read
// it), and sends nothing when nothing changed. An object deleted meanwhile is not an error.
func PatchStatus(ctx context.Context, c client.Client, before, obj client.Object) error {
	patch := client.MergeFrom(before)
	data, err := patch.Data(obj)
	if err != nil {
		return fmt.Errorf("computing the status patch of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	if string(data) == "{}" {
		return nil
	}
	if err := c.Status().Patch(ctx, obj, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("patching the status of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	return nil
}
