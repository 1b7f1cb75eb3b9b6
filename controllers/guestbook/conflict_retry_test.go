package guestbook

import (
	"context"
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
)

// TestRetryConflictRequeuesConflictsAndReturnsOtherErrors: a wrapped optimistic-lock conflict becomes a
// quick requeue without an error (controller-runtime logs returned errors as reconcile errors); other errors
// and successes pass through unchanged.
func TestRetryConflictRequeuesConflictsAndReturnsOtherErrors(t *testing.T) {
	ctx := context.Background()
	conflict := fmt.Errorf("roles step: %w", apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "gb-0",
		errors.New("the object has been modified")))
	res, err := retryConflict(ctx, ctrl.Result{}, conflict)
	if err != nil || res.RequeueAfter != conflictRetry {
		t.Errorf("conflict: got %+v, %v; want RequeueAfter %s and no error", res, err, conflictRetry)
	}

	other := fmt.Errorf("workload step: %w", apierrors.NewForbidden(schema.GroupResource{Resource: "deployments"}, "gb",
		errors.New("denied")))
	if res, err := retryConflict(ctx, ctrl.Result{}, other); !errors.Is(err, other) || res.RequeueAfter != 0 {
		t.Errorf("forbidden: got %+v, %v; want the error back and no requeue", res, err)
	}
	if res, err := retryConflict(ctx, ctrl.Result{}, nil); err != nil || res != (ctrl.Result{}) {
		t.Errorf("success: got %+v, %v; want an empty result", res, err)
	}
}
