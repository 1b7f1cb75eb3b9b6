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

// Package leadership elects the manager that reconciles, on a coordination.k8s.io/v1 Lease, and fences the
// writes of every other. With an active Service (the Argo Rollouts blue/green activeService), only a manager
// whose pod that Service selects may lead. When a user promotes the Rollout, the leader stops writing and hands
// the Lease to a Ready pod of the colour promoted to, whose manager leads as soon as its watch shows the active
// Service selecting it; without a watch of the Rollout, the old colour hands the Lease over when the Service
// moves (with no Ready pod to hand it to, it releases the Lease, and the first manager of the new colour to see
// it takes it). The preview never leads. Leadership can be lost and gained again while the process runs on as
// a Ready standby.
package leadership

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/kubernetes"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// Config is what an Elector needs.
type Config struct {
	// Client reads and writes the Lease and reads the active Service.
	Client kubernetes.Interface
	// Namespace and Name are the Lease's; the active Service is in Namespace too.
	Namespace, Name string
	// Identity names this manager in the Lease; unique per process.
	Identity string
	// ActiveService is the Service whose selector says which pods may lead; "" lets every manager contend.
	ActiveService string
	// PodTemplateHash is this pod's PodTemplateHashLabel; required with ActiveService.
	PodTemplateHash string
	// PodName is this manager's pod. A leader that gives up the Lease hands it to a pod of the active colour by
	// its name; the manager of that pod leads from the moment its watch shows the Lease handed to it, without a
	// write of its own. "" outside a pod: Leases handed to a pod are then never this manager's.
	PodName string
	// LeaseDuration is how long a Lease that is not renewed stays its holder's; RenewDeadline how long the
	// leader goes without a successful renewal before it stops leading; RetryPeriod how often it renews. A
	// standby does not poll: it looks when the Lease or the Service changes, and when a held Lease would expire.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Rollouts, when set, reads argoproj.io/v1alpha1 (a REST client for Argo Rollouts' API): with an active
	// Service, the managers watch the Rollouts of their namespace. As soon as a promote shows, the leader stops
	// writing and hands the Lease to a Ready pod of the colour promoted to, while Argo Rollouts moves the
	// Service; that pod's manager holds it, not writing, until the Service selects it, and hands it back if the
	// promote is aborted or the Service has not moved within the renew deadline. The old leader then leads on.
	Rollouts rest.Interface
	// ReleaseOnCancel releases the Lease when the elector stops, so a standby takes it at once.
	ReleaseOnCancel bool
	// Fence is opened while this manager leads; the manager's writes pass through it.
	Fence *Fence
	// Clock drives renewals and expiries; nil means the real clock.
	Clock clock.Clock
	// Log gets one line per change of leadership.
	Log logr.Logger
	// Metrics, when set, reports whether this manager leads.
	Metrics *Metrics
}

// Elector runs the election for one manager.
type Elector struct {
	cfg     Config
	wake    chan struct{}
	decided atomic.Bool

	// leaseInformer and serviceInformer watch the Lease and the active Service (nil without one), podInformer
	// the pods of each colour and rolloutInformer the Rollouts (nil without an active Service, or Rollouts);
	// set by Start.
	leaseInformer, serviceInformer, podInformer, rolloutInformer cache.SharedIndexInformer
	// conflicted is set when a write of the Lease failed on a conflict: the next read goes to the apiserver.
	conflicted bool

	// leading, lastRenew, lease, observedAt, holderChanged and yield belong to Run's goroutine.
	// holderChanged: the Lease as last seen names another holder than the version seen before it.
	leading       bool
	lastRenew     time.Time
	lease         *coordinationv1.Lease
	observedAt    time.Time
	holderChanged bool
	yield         yieldState
}

// yieldState is a leader's pause of its writes while its colour is promoted away: since when it has held
// them, and whether it gave up waiting for the active Service to move (it then writes until the promote is over).
type yieldState struct {
	yielding bool
	since    time.Time
	spent    bool
}

// New checks cfg and returns an Elector.
func New(cfg Config) (*Elector, error) {
	switch {
	case cfg.Client == nil || cfg.Fence == nil:
		return nil, errors.New("leader election needs a client and a fence")
	case cfg.Namespace == "" || cfg.Name == "" || cfg.Identity == "":
		return nil, errors.New("leader election needs the Lease's namespace and name and this manager's identity")
	case cfg.ActiveService != "" && cfg.PodTemplateHash == "":
		return nil, fmt.Errorf("leader election follows the active Service %s, so it needs this pod's %s label",
			cfg.ActiveService, PodTemplateHashLabel)
	case cfg.RetryPeriod <= 0 || cfg.RenewDeadline <= cfg.RetryPeriod || cfg.LeaseDuration <= cfg.RenewDeadline:
		return nil, fmt.Errorf("leader election needs 0 < retry period (%s) < renew deadline (%s) < lease duration (%s)",
			cfg.RetryPeriod, cfg.RenewDeadline, cfg.LeaseDuration)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	return &Elector{cfg: cfg, wake: make(chan struct{}, 1)}, nil
}

// Decided reports whether the elector has made its first decision, on the Lease and the active Service as its
// watches delivered them: from then on it leads, or takes over, as soon as a watch event says it may.
func (e *Elector) Decided() bool { return e.decided.Load() }

// NeedLeaderElection is false: the elector is the leader election, and runs on every manager.
func (e *Elector) NeedLeaderElection() bool { return false }

// Start runs the election until ctx ends; then it stops leading and, with ReleaseOnCancel, releases the Lease.
// It first waits for the watches of the Lease and the active Service to deliver them, so that each decision is
// made on what the watches deliver, with no read of its own.
func (e *Elector) Start(ctx context.Context) error {
	e.watch(ctx)
	synced := []cache.InformerSynced{e.leaseInformer.HasSynced}
	if e.serviceInformer != nil {
		synced = append(synced, e.serviceInformer.HasSynced, e.podInformer.HasSynced)
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return nil
	}
	last := ""
	for first := true; ; first = false {
		d := e.step(ctx)
		if first {
			e.decided.Store(true)
			e.cfg.Log.V(1).Info("first decision made", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "reason", d.reason)
		} else if d.reason != "" && d.reason != last {
			e.cfg.Log.V(1).Info("waiting", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "reason", d.reason)
		}
		if d.reason != "" {
			last = d.reason
		}
		var timeout <-chan time.Time
		var timer clock.Timer
		if !d.at.IsZero() {
			due := d.at.Sub(e.cfg.Clock.Now())
			if due <= 0 {
				// The clock passed the moment while the step ran: decide again now rather than wait for a
				// timer that a stepped clock would fire only at its next step.
				continue
			}
			timer = e.cfg.Clock.NewTimer(due)
			timeout = timer.C()
		}
		select {
		case <-ctx.Done():
			e.shutdown()
			return nil
		case <-e.wake:
		case <-timeout:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// step observes the Lease and the active Service, decides and acts, and returns the decision to wait on.
func (e *Elector) step(ctx context.Context) decision {
	for {
		o := e.observe(ctx)
		d := decide(o, timing{renewDeadline: e.cfg.RenewDeadline, retryPeriod: e.cfg.RetryPeriod})
		if d.action == wait {
			return d
		}
		if again := e.act(ctx, d, o.now); !again {
			at := o.now.Add(e.cfg.RetryPeriod)
			if e.leading {
				at = earliest(at, e.lastRenew.Add(e.cfg.RenewDeadline))
			}
			return decision{action: wait, at: at}
		}
	}
}

// observe reads the Lease and the active Service as the watches last delivered them.
func (e *Elector) observe(ctx context.Context) observation {
	now := e.cfg.Clock.Now()
	o := observation{now: now, leading: e.leading, lastRenew: e.lastRenew}
	rctx, cancel := context.WithTimeout(ctx, e.requestTimeout(now))
	defer cancel()
	lease, err := e.getLease(rctx)
	if err != nil {
		e.cfg.Log.V(1).Info("cannot read the lease", "error", err.Error())
		return o
	}
	e.see(lease, now)
	o.known, o.eligible, o.exists, o.observedAt = true, e.eligible(), lease != nil, e.observedAt
	o.holder, o.duration = holderOf(lease)
	o.own = e.owns(o.holder)
	o.handedOver = o.own && o.holder == e.cfg.PodName && e.holderChanged
	ro := e.rollout()
	away := promotedAway(ro, e.cfg.PodTemplateHash)
	if !away {
		e.yield.spent = false
	}
	o.promotedAway, o.promotedHere = e.leading && away, !e.leading && promotedTo(ro, e.cfg.PodTemplateHash)
	if o.promotedAway {
		o.incoming = e.readyPodOf(ro.Status.CurrentPodHash) // a Ready pod of the colour promoted to
	}
	o.yielding, o.yieldingSince, o.yieldSpent = e.yield.yielding, e.yield.since, e.yield.spent
	return o
}

// see remembers lease, when it first saw it as it is, and whether its holder changed from the version seen before.
func (e *Elector) see(lease *coordinationv1.Lease, now time.Time) {
	if e.lease == nil || lease == nil || e.lease.ResourceVersion != lease.ResourceVersion {
		e.observedAt = now
		before, _ := holderOf(e.lease)
		after, _ := holderOf(lease)
		e.holderChanged = e.lease != nil && lease != nil && before != after
	}
	e.lease = lease
}

// owns reports whether holder is this manager: its identity, or its pod's name, which a previous leader handing
// the Lease over writes.
func (e *Elector) owns(holder string) bool {
	return holder != "" && (holder == e.cfg.Identity || holder == e.cfg.PodName)
}

// act carries out d, decided at now. It reports whether to observe again at once (the Lease moved under it,
// or leadership changed), else the elector waits a retry period or the next change.
func (e *Elector) act(ctx context.Context, d decision, now time.Time) (again bool) {
	rctx, cancel := context.WithTimeout(ctx, e.requestTimeout(now))
	defer cancel()
	var lease *coordinationv1.Lease
	var err error
	switch d.action {
	case create:
		lease, err = e.createLease(rctx, now)
	case accept:
		e.lastRenew = e.observedAt
		e.startLeading(d.reason)
		return false
	case acquire:
		lease, err = e.acquireLease(rctx, e.lease, now)
	case renew:
		lease, err = e.renewLease(rctx, e.lease, now)
	case handOver:
		e.stopLeading(d.reason)
		e.yield.spent = true // should the Lease come back during this promote, lead on until it is over
		e.handTo(rctx, d.to)
		return true
	case yield:
		e.yield = yieldState{yielding: true, since: now}
		e.cfg.Fence.Revoke()
		e.cfg.Log.Info("stopped writing", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "reason", d.reason)
		return true
	case resume:
		e.yield = yieldState{spent: promotedAway(e.rollout(), e.cfg.PodTemplateHash)}
		e.cfg.Fence.Grant()
		e.cfg.Log.Info("writing again", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "reason", d.reason)
		return true
	case stepDown:
		e.stopLeading(d.reason)
		return true
	case stepDownRelease:
		e.stopLeading(d.reason)
		e.release(rctx)
		return true
	case release:
		e.release(rctx)
		return false
	}
	if err != nil {
		e.cfg.Log.V(1).Info("lease not written", "reason", d.reason, "error", err.Error())
		return false
	}
	e.see(lease, now)
	e.lastRenew = now
	if !e.leading {
		e.startLeading(d.reason)
	}
	return false
}

// requestTimeout bounds one request: a leader never waits past its renew deadline.
func (e *Elector) requestTimeout(now time.Time) time.Duration {
	if !e.leading {
		return e.cfg.RenewDeadline
	}
	return max(e.lastRenew.Add(e.cfg.RenewDeadline).Sub(now), time.Millisecond)
}

// startLeading opens the fence.
func (e *Elector) startLeading(reason string) {
	e.leading = true
	e.cfg.Fence.Grant()
	e.cfg.Metrics.setLeading(e.cfg.Name, true)
	e.cfg.Log.Info("started leading", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "identity", e.cfg.Identity,
		"reason", reason)
}

// stopLeading closes the fence and waits, at most a renew deadline, for the writes it had admitted.
func (e *Elector) stopLeading(reason string) {
	e.leading, e.yield = false, yieldState{}
	drained, _ := e.cfg.Fence.Revoke()
	e.cfg.Metrics.setLeading(e.cfg.Name, false)
	e.cfg.Log.Info("stopped leading", "lease", e.cfg.Namespace+"/"+e.cfg.Name, "identity", e.cfg.Identity,
		"reason", reason)
	select {
	case <-drained:
	case <-e.cfg.Clock.After(e.cfg.RenewDeadline):
		e.cfg.Log.Info("writes admitted while leading have not returned; releasing the lease anyway")
	}
}

// shutdown stops leading when the manager stops and, with ReleaseOnCancel, releases the Lease.
func (e *Elector) shutdown() {
	if !e.leading {
		return
	}
	e.stopLeading("manager stopping")
	if !e.cfg.ReleaseOnCancel {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.RenewDeadline)
	defer cancel()
	e.release(ctx)
}

// leases is the Lease client.
func (e *Elector) leases() coordinationv1client.LeaseInterface {
	return e.cfg.Client.CoordinationV1().Leases(e.cfg.Namespace)
}
