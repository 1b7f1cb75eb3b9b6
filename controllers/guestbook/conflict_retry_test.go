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
