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

package waves

import "time"

// maxFreezeSteps bounds the walk over a window's activations (an every-minute schedule open for days).
const maxFreezeSteps = 100000

// maxFreezeAhead is how far past now frozenUntil follows windows that overlap or abut. Windows that keep each
// other open for good (every minute for an hour, every hour for an hour) report a freeze until about then;
// the SiteSync looks again at that time and follows them further.
const maxFreezeAhead = 31 * 24 * time.Hour

// frozenUntil is when the freeze windows open at now close, or the zero time when none is open. Windows that
// overlap or follow each other without a gap count as one. Durations are elapsed time: a window of 8h that
// opens the night the clocks go back closes at the same wall-clock hour plus one. Windows that never leave a
// gap are followed up to maxFreezeAhead.
func (r *Rollout) frozenUntil(now time.Time) time.Time {
	var until time.Time
	for changed := true; changed && until.Sub(now) < maxFreezeAhead; {
		changed = false
		at := now
		if !until.IsZero() {
			at = until
		}
		for _, w := range r.freeze {
			if end := w.openUntil(at); end.After(until) {
				until, changed = end, true
			}
		}
	}
	return until
}

// openUntil is when the window open at t closes (the latest end of the activations that cover t), or the
// zero time.
func (w window) openUntil(t time.Time) time.Time {
	var until time.Time
	fire := w.schedule.Next(t.Add(-w.duration))
	for i := 0; i < maxFreezeSteps && !fire.IsZero() && !fire.After(t); i++ {
		if end := fire.Add(w.duration); end.After(t) && end.After(until) {
			until = end
		}
		fire = w.schedule.Next(fire)
	}
	return until
}
