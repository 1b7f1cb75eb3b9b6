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
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/utils/ptr"
)

// getLease is the Lease as the watch last delivered it, or as this manager last wrote it when that is newer
// (its own write may not have come back on the watch yet); nil when it does not exist. It reads the apiserver
// when the watch says the Lease is gone or gives a resource version that does not compare, and after a write of
// the Lease failed on a conflict (the watch may be behind).
func (e *Elector) getLease(ctx context.Context) (*coordinationv1.Lease, error) {
	if seen, _ := e.watched(e.leaseInformer, e.cfg.Name).(*coordinationv1.Lease); seen != nil && !e.conflicted {
		if e.lease == nil {
			return seen, nil
		}
		if c, err := resourceversion.CompareResourceVersion(seen.ResourceVersion, e.lease.ResourceVersion); err == nil {
			if c < 0 {
				return e.lease, nil
			}
			return seen, nil
		}
	}
	l, err := e.leases().Get(ctx, e.cfg.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		e.conflicted = false
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading lease %s/%s: %w", e.cfg.Namespace, e.cfg.Name, err)
	}
	e.conflicted = false
	return l, nil
}

// createLease creates the Lease in this manager's name.
func (e *Elector) createLease(ctx context.Context, now time.Time) (*coordinationv1.Lease, error) {
	t := metav1.NewMicroTime(now)
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.cfg.Namespace, Name: e.cfg.Name},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(e.cfg.Identity), LeaseDurationSeconds: e.durationSeconds(),
			AcquireTime: &t, RenewTime: &t, LeaseTransitions: ptr.To[int32](0)},
	}
	out, err := e.leases().Create(ctx, l, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating lease %s/%s: %w", e.cfg.Namespace, e.cfg.Name, err)
	}
	return out, nil
}

// acquireLease takes cur in this manager's name. The update carries cur's resourceVersion, so it fails with a
// conflict when anyone wrote the Lease since it was read.
func (e *Elector) acquireLease(ctx context.Context, cur *coordinationv1.Lease,
	now time.Time) (*coordinationv1.Lease, error) {
	l := cur.DeepCopy()
	t := metav1.NewMicroTime(now)
	if !e.owns(ptr.Deref(l.Spec.HolderIdentity, "")) {
		l.Spec.LeaseTransitions = ptr.To(ptr.Deref(l.Spec.LeaseTransitions, 0) + 1)
		l.Spec.AcquireTime = &t
	}
	l.Spec.HolderIdentity = ptr.To(e.cfg.Identity)
	l.Spec.LeaseDurationSeconds = e.durationSeconds()
	l.Spec.RenewTime = &t
	return e.updateLease(ctx, l, "taking")
}

// renewLease renews cur, which this manager holds, in its identity (a Lease handed over names only its pod).
func (e *Elector) renewLease(ctx context.Context, cur *coordinationv1.Lease,
	now time.Time) (*coordinationv1.Lease, error) {
	l := cur.DeepCopy()
	t := metav1.NewMicroTime(now)
	l.Spec.HolderIdentity = ptr.To(e.cfg.Identity)
	l.Spec.RenewTime = &t
	l.Spec.LeaseDurationSeconds = e.durationSeconds()
	return e.updateLease(ctx, l, "renewing")
}

// releaseLease hands cur to the pod to, which then holds it for a lease duration from now; with to "", to
// nobody: no holder and a one-second duration, as client-go's elector releases, so that every contender sees it
// free at once. It returns the Lease as written, and is a no-op (cur) when cur is not this manager's.
func (e *Elector) releaseLease(ctx context.Context, cur *coordinationv1.Lease, now time.Time,
	to string) (*coordinationv1.Lease, error) {
	if cur == nil || !e.owns(ptr.Deref(cur.Spec.HolderIdentity, "")) {
		return cur, nil
	}
	l := cur.DeepCopy()
	t := metav1.NewMicroTime(now)
	l.Spec.RenewTime = &t
	if to == "" {
		l.Spec.HolderIdentity = nil
		l.Spec.LeaseDurationSeconds = ptr.To[int32](1)
		return e.updateLease(ctx, l, "releasing")
	}
	l.Spec.HolderIdentity = ptr.To(to)
	l.Spec.LeaseDurationSeconds = e.durationSeconds()
	l.Spec.AcquireTime = &t
	l.Spec.LeaseTransitions = ptr.To(ptr.Deref(l.Spec.LeaseTransitions, 0) + 1)
	return e.updateLease(ctx, l, "handing over")
}

// updateLease writes l.
func (e *Elector) updateLease(ctx context.Context, l *coordinationv1.Lease,
	doing string) (*coordinationv1.Lease, error) {
	out, err := e.leases().Update(ctx, l, metav1.UpdateOptions{})
	e.conflicted = apierrors.IsConflict(err)
	if err != nil {
		return nil, fmt.Errorf("%s lease %s/%s: %w", doing, e.cfg.Namespace, e.cfg.Name, err)
	}
	return out, nil
}

// durationSeconds is the lease duration written in the Lease.
func (e *Elector) durationSeconds() *int32 {
	return ptr.To(int32((e.cfg.LeaseDuration + time.Second - 1) / time.Second))
}

// holderOf returns the Lease's holder and duration ("" and 0 when l is nil).
func holderOf(l *coordinationv1.Lease) (string, time.Duration) {
	if l == nil {
		return "", 0
	}
	return ptr.Deref(l.Spec.HolderIdentity, ""), time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second
}
