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
	"testing"
	"time"
)

// TestDecide covers the elector's rule, one row per case, at fixed times.
func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tm := timing{renewDeadline: 10 * time.Second, retryPeriod: 2 * time.Second}
	held := func(o observation) observation {
		o.known, o.exists, o.holder, o.duration, o.observedAt = true, true, "other", 15*time.Second, t0
		return o
	}
	mine := func(o observation) observation {
		o.known, o.exists, o.holder, o.own, o.duration, o.observedAt, o.leading, o.lastRenew = true, true, "me", true,
			15*time.Second, t0, true, t0
		return o
	}
	tests := []struct {
		name   string
		o      observation
		want   action
		wantAt time.Time
	}{
		{"standby, preview colour: never takes a free lease", observation{now: t0, known: true, exists: true}, wait,
			time.Time{}},
		{"standby, preview colour: never takes an expired lease", held(observation{now: t0.Add(time.Hour)}), wait,
			time.Time{}},
		{"standby, eligible: no lease, creates it", observation{now: t0, known: true, eligible: true}, create, time.Time{}},
		{"standby, eligible: released lease, takes it at once",
			observation{now: t0, known: true, eligible: true, exists: true}, acquire, time.Time{}},
		{"standby, eligible: held lease, waits for its expiry", held(observation{now: t0.Add(time.Second), eligible: true}),
			wait, t0.Add(15 * time.Second)},
		{"standby, eligible: expired lease, takes it", held(observation{now: t0.Add(15 * time.Second), eligible: true}),
			acquire, time.Time{}},
		{"standby, eligible: lease still in its name, takes it back",
			observation{now: t0, known: true, eligible: true, exists: true, holder: "me", own: true}, acquire, time.Time{}},
		{"standby, eligible: lease handed to its pod, leads without a write",
			observation{now: t0.Add(time.Second), known: true, eligible: true, exists: true, holder: "my-pod", own: true,
				handedOver: true, observedAt: t0}, accept, time.Time{}},
		{"standby, eligible: lease handed to its pod a renew deadline ago, takes it with a write",
			observation{now: t0.Add(10 * time.Second), known: true, eligible: true, exists: true, holder: "my-pod", own: true,
				handedOver: true, observedAt: t0}, acquire, time.Time{}},
		{"standby, colour promoted to: lease handed at the promote, waits for the Service to select it",
			observation{now: t0.Add(time.Second), known: true, exists: true, holder: "my-pod", own: true, handedOver: true,
				observedAt: t0, promotedHere: true}, wait, t0.Add(10 * time.Second)},
		{"standby, colour promoted to: the Service not moved within the renew deadline, hands the Lease on",
			observation{now: t0.Add(10 * time.Second), known: true, exists: true, holder: "my-pod", own: true, handedOver: true,
				observedAt: t0, promotedHere: true}, release, time.Time{}},
		{"standby, eligible: lease left in its pod's name by a process gone, takes it back",
			observation{now: t0, known: true, eligible: true, exists: true, holder: "my-pod", own: true}, acquire, time.Time{}},
		{"standby, preview colour: lease handed to its pod, hands it on",
			observation{now: t0, known: true, exists: true, holder: "my-pod", own: true, handedOver: true}, release,
			time.Time{}},
		{"standby, not eligible: lease still in its name, releases it",
			observation{now: t0, known: true, exists: true, holder: "me", own: true}, release, time.Time{}},
		{"standby, apiserver unreadable: looks again a retry period later", observation{now: t0}, wait,
			t0.Add(2 * time.Second)},
		{"leader: renewal not due", mine(observation{now: t0.Add(time.Second), eligible: true}), wait,
			t0.Add(2 * time.Second)},
		{"leader: renewal due", mine(observation{now: t0.Add(2 * time.Second), eligible: true}), renew, time.Time{}},
		{"leader: active selector moved away, steps down and releases", mine(observation{now: t0.Add(time.Second)}),
			stepDownRelease, time.Time{}},
		{"leader: lease taken by another", func() observation {
			o := mine(observation{now: t0.Add(time.Second), eligible: true})
			o.holder, o.own = "other", false
			return o
		}(), stepDown, time.Time{}},
		{"leader: lease deleted", observation{now: t0, leading: true, lastRenew: t0, known: true, eligible: true}, stepDown,
			time.Time{}},
		{"leader: its colour promoted away, the Service not moved yet: hands the Lease to the colour promoted to",
			mine(observation{now: t0.Add(time.Second), eligible: true, promotedAway: true, incoming: "new-pod"}), handOver,
			time.Time{}},
		{"leader: its colour promoted away, no Ready pod of the colour promoted to: stops writing",
			mine(observation{now: t0.Add(time.Second), eligible: true, promotedAway: true}), yield, time.Time{}},
		{"leader, writes stopped: renewal not due, looks again at the renewal",
			mine(observation{now: t0.Add(time.Second), eligible: true, promotedAway: true, yielding: true,
				yieldingSince: t0.Add(time.Second)}), wait, t0.Add(2 * time.Second)},
		{"leader, writes stopped: renews the Lease",
			mine(observation{now: t0.Add(2 * time.Second), eligible: true, promotedAway: true, yielding: true,
				yieldingSince: t0.Add(time.Second)}), renew, time.Time{}},
		{"leader, writes stopped since a while: looks again when the wait for the Service ends", func() observation {
			o := mine(observation{now: t0.Add(10 * time.Second), eligible: true, promotedAway: true, yielding: true,
				yieldingSince: t0.Add(time.Second)})
			o.lastRenew = t0.Add(9 * time.Second)
			return o
		}(), wait, t0.Add(11 * time.Second)},
		{"leader, writes stopped: the Service moves, steps down and hands over",
			mine(observation{now: t0.Add(time.Second), promotedAway: true, yielding: true, yieldingSince: t0}), stepDownRelease,
			time.Time{}},
		{"leader, writes stopped: the promote undone, writes again",
			mine(observation{now: t0.Add(time.Second), eligible: true, yielding: true, yieldingSince: t0}), resume, time.Time{}},
		{"leader, writes stopped: the Service not moved within the renew deadline, writes again", func() observation {
			o := mine(observation{now: t0.Add(11 * time.Second), eligible: true, promotedAway: true, yielding: true,
				yieldingSince: t0.Add(time.Second)})
			o.lastRenew = t0.Add(10 * time.Second)
			return o
		}(), resume, time.Time{}},
		{"leader: gave up waiting for this promote's Service move, leads on",
			mine(observation{now: t0.Add(time.Second), eligible: true, promotedAway: true, yieldSpent: true}), wait,
			t0.Add(2 * time.Second)},
		{"leader: got back the Lease it handed over in this promote, leads on",
			mine(observation{now: t0.Add(time.Second), eligible: true, promotedAway: true, yieldSpent: true,
				incoming: "new-pod"}), wait, t0.Add(2 * time.Second)},
		{"leader: apiserver unreadable within the renew deadline, tries again",
			observation{now: t0.Add(9 * time.Second), leading: true, lastRenew: t0}, wait, t0.Add(10 * time.Second)},
		{"leader: apiserver unreadable past the renew deadline, steps down",
			observation{now: t0.Add(10 * time.Second), leading: true, lastRenew: t0}, stepDown, time.Time{}},
		{"leader: renewals failed past the renew deadline, steps down",
			mine(observation{now: t0.Add(10 * time.Second), eligible: true}), stepDown, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(tt.o, tm)
			if d.action != tt.want || !d.at.Equal(tt.wantAt) {
				t.Errorf("decide = action %d at %s (%s), want action %d at %s", d.action, d.at, d.reason, tt.want, tt.wantAt)
			}
			if d.action == handOver && d.to != tt.o.incoming {
				t.Errorf("decide hands the Lease to %q, want %q", d.to, tt.o.incoming)
			}
		})
	}
}
