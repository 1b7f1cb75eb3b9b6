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

import "time"

// action is what the elector does next.
type action int

const (
	// wait does nothing until the Lease or the active Service changes, or until decision.at when it is set.
	wait action = iota
	// create creates the Lease, held by this manager.
	create
	// accept leads on a Lease the previous leader handed to this manager's pod, without writing it.
	accept
	// acquire takes the Lease (released, expired, or still in this manager's name).
	acquire
	// renew renews the Lease this manager holds.
	renew
	// handOver stops leading when the leader's colour is promoted away, and hands the Lease to a Ready pod of
	// the colour promoted to before Argo Rollouts moves the active Service: that pod's manager leads as soon as
	// its watch shows the Service selecting it, with no Lease write left between the switch and its first write.
	handOver
	// yield stops the leader's writes, Lease kept, while its colour is promoted away and the active Service has
	// not moved yet, when no Ready pod of the colour promoted to is known: the hand-over that follows the switch
	// has no write of this manager's to wait for.
	yield
	// resume lets the leader write again: the promote was undone, or the Service did not move in time.
	resume
	// stepDown stops leading without touching the Lease (it is someone else's, or cannot be reached).
	stepDown
	// stepDownRelease stops leading, then hands the Lease to a pod of the active colour, or releases it, so that
	// the next eligible manager leads at once.
	stepDownRelease
	// release releases a Lease still in this manager's name while it does not lead.
	release
)

// observation is what the elector knows when it decides.
type observation struct {
	now time.Time
	// leading: this manager leads; lastRenew is when it sent its last successful acquire or renew.
	leading   bool
	lastRenew time.Time
	// known is false when the Lease or the active Service could not be read.
	known bool
	// eligible: the active Service selects this manager's pod (always, without an active Service).
	eligible bool
	// exists: the Lease exists; holder and duration are its holder and lease duration; own: the holder is this
	// manager (its identity or its pod); handedOver: another holder handed it to this manager's pod while this
	// manager watched (not a Lease left in the pod's name by a process of the pod that is gone).
	exists     bool
	holder     string
	duration   time.Duration
	own        bool
	handedOver bool
	// observedAt is when this manager first saw the Lease as it is now (its resourceVersion).
	observedAt time.Time
	// promotedAway: this manager leads and the Rollout says its colour is being promoted away; incoming is a
	// Ready pod of the colour promoted to ("" when none is known). yielding: its writes are stopped for that,
	// since yieldingSince; yieldSpent: it already gave this promote its chance (handed the Lease over and got it
	// back, or waited a renew deadline for the active Service to move) and leads on until the promote is over.
	promotedAway, yielding, yieldSpent bool
	yieldingSince                      time.Time
	incoming                           string
	// promotedHere: this manager does not lead and the Rollout says its colour is being promoted to.
	promotedHere bool
}

// decision is an action, why, for wait the time to look again (zero: only when something changes), and for
// handOver the pod the Lease goes to.
type decision struct {
	action action
	reason string
	at     time.Time
	to     string
}

// timing is the elector's durations.
type timing struct {
	renewDeadline, retryPeriod time.Duration
}

// decide is the elector's rule. A manager leads only while eligible; it renews every retry period and stops
// leading when it could not renew for the renew deadline, when it is no longer eligible (then it hands the Lease
// over or releases it), or when someone else holds the Lease. A manager that does not lead leads only while
// eligible: at once when the previous leader hands it the Lease, else it takes the Lease when nobody holds it or
// its holder has not renewed it for its lease duration, as seen by this manager's clock since it last changed.
// A Lease handed to a manager whose colour is being promoted to waits, for at most a renew deadline, for the
// active Service to select it. Leading on a handed Lease takes no write only within a renew deadline of the
// hand-over: later, the Lease could have expired for the others, and the manager must take it with a write.
func decide(o observation, t timing) decision {
	if o.leading {
		return decideLeading(o, t)
	}
	handedUntil := o.observedAt.Add(t.renewDeadline)
	switch {
	case !o.known:
		return decision{action: wait, reason: "lease or active Service unreadable", at: o.now.Add(t.retryPeriod)}
	case !o.eligible && o.own && o.handedOver && o.promotedHere && o.now.Before(handedUntil):
		return decision{action: wait,
			reason: "lease handed over at the promote: waiting for the active Service to select this pod", at: handedUntil}
	case !o.eligible && o.exists && o.own:
		return decision{action: release, reason: "the active Service does not select this pod"}
	case !o.eligible:
		return decision{action: wait, reason: "the active Service does not select this pod"}
	case !o.exists:
		return decision{action: create, reason: "no lease"}
	case o.handedOver && o.now.Before(handedUntil):
		return decision{action: accept, reason: "lease handed over"}
	case o.holder == "":
		return decision{action: acquire, reason: "lease released"}
	case o.own:
		return decision{action: acquire, reason: "lease still in this manager's name"}
	}
	expiry := o.observedAt.Add(o.duration)
	if !o.now.Before(expiry) {
		return decision{action: acquire, reason: "lease of " + o.holder + " expired"}
	}
	return decision{action: wait, reason: "lease held by " + o.holder, at: expiry}
}

// decideLeading is decide for a manager that leads.
func decideLeading(o observation, t timing) decision {
	deadline := o.lastRenew.Add(t.renewDeadline)
	switch {
	case !o.known && !o.now.Before(deadline):
		return decision{action: stepDown, reason: "could not renew the lease within the renew deadline"}
	case !o.known:
		return decision{action: wait, reason: "lease or active Service unreadable",
			at: earliest(o.now.Add(t.retryPeriod), deadline)}
	case !o.eligible:
		return decision{action: stepDownRelease, reason: "the active Service no longer selects this pod"}
	case !o.exists:
		return decision{action: stepDown, reason: "lease deleted"}
	case !o.own:
		return decision{action: stepDown, reason: "lease taken by " + describe(o.holder)}
	case !o.now.Before(deadline):
		return decision{action: stepDown, reason: "could not renew the lease within the renew deadline"}
	}
	if d, ok := decideYield(o, t); ok {
		return d
	}
	next := o.lastRenew.Add(t.retryPeriod)
	if !o.now.Before(next) {
		return decision{action: renew, reason: "renewal due"}
	}
	if o.yielding {
		next = earliest(next, o.yieldingSince.Add(t.renewDeadline))
	}
	return decision{action: wait, reason: "leading", at: next}
}

// decideYield is the part of decideLeading for a leader that still may lead: when its colour is promoted away
// it hands the Lease to the colour promoted to or, with no Ready pod of that colour known, stops writing; it
// writes again when the promote is undone, or when the active Service has not moved
// for a renew deadline (Argo Rollouts may be down: the manager goes on leading rather than leave nobody writing).
func decideYield(o observation, t timing) (decision, bool) {
	switch {
	case o.yielding && !o.promotedAway:
		return decision{action: resume, reason: "the promote was undone before the active Service moved"}, true
	case o.yielding && !o.now.Before(o.yieldingSince.Add(t.renewDeadline)):
		return decision{action: resume,
			reason: "the active Service did not move within the renew deadline of the promote"}, true
	case o.promotedAway && !o.yielding && !o.yieldSpent && o.incoming != "":
		return decision{action: handOver, reason: "the Rollout is promoted to another colour", to: o.incoming}, true
	case o.promotedAway && !o.yielding && !o.yieldSpent:
		return decision{action: yield, reason: "the Rollout is promoted to another colour"}, true
	}
	return decision{}, false
}

// earliest returns the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// describe names a holder for a log line.
func describe(holder string) string {
	if holder == "" {
		return "nobody"
	}
	return holder
}
