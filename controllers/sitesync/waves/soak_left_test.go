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

import (
	"testing"
	"time"
)

// TestSoakLeftCountsDownFromOneClock: the soak's "left" is the soak's end (SoakUntil, to the second) less the
// one Now of the plan, rounded up to the second, so it counts down by the time that passed and reads 0s only
// at the end; a healthy time with a fraction of a second does not make it jump.
func TestSoakLeftCountsDownFromOneClock(t *testing.T) {
	healthy := t0.Add(time.Minute + 400*time.Millisecond) // the soak is 10 minutes
	for _, tc := range []struct {
		now  time.Duration // after healthy
		want string
	}{
		{0, "soak, 10m1s left"}, // the soak ends at 10:11:01, the second after healthy+10m
		{600 * time.Millisecond, "soak, 10m0s left"},
		{time.Second, "soak, 10m0s left"},
		{1500 * time.Millisecond, "soak, 10m0s left"},
		{1600 * time.Millisecond, "soak, 9m59s left"},
		{4*time.Minute + 100*time.Millisecond, "soak, 6m1s left"},
		{9*time.Minute + 50*time.Second, "soak, 11s left"},
		{9*time.Minute + 52*time.Second, "soak, 9s left"}, // 2 s later, 2 s less
		{9*time.Minute + 55*time.Second, "soak, 6s left"}, // 5 s after 11s left
		{10*time.Minute + 500*time.Millisecond, "soak, 1s left"},
	} {
		p := compile(t, twoWaves()).Plan(Input{Revision: rev1, Sites: devAt("Delivered", healthy, ""),
			Previous: published(t), Now: healthy.Add(tc.now), CanPublish: true})
		dev := site(t, p.Status, "dev")
		if dev.WaitingFor != tc.want {
			t.Errorf("at healthy+%s: %q, want %q", tc.now, dev.WaitingFor, tc.want)
		}
		if dev.SoakUntil == nil {
			t.Errorf("at healthy+%s: no SoakUntil", tc.now)
			continue
		}
		if got := SoakLeft(dev.SoakUntil.Time, healthy.Add(tc.now)); got != tc.want {
			t.Errorf("at healthy+%s: SoakLeft %q, want %q", tc.now, got, tc.want)
		}
		if dev.SoakUntil.Nanosecond() != 0 {
			t.Errorf("SoakUntil %s is not to the second, as the status stores it", dev.SoakUntil)
		}
	}
	for _, tc := range []struct {
		left time.Duration
		want string
	}{{10 * time.Second, "soak, 10s left"}, {9200 * time.Millisecond, "soak, 10s left"},
		{time.Nanosecond, "soak, 1s left"}, {0, "soak, 0s left"}, {-time.Second, "soak, 0s left"}} {
		if got := SoakLeft(t0.Add(tc.left), t0); got != tc.want {
			t.Errorf("SoakLeft(%s): %q, want %q", tc.left, got, tc.want)
		}
	}
}
