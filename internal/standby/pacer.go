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

package standby

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Pacer spaces the standby reconciles of each object at least Interval apart, so that a manager in standby mode
// sends the apiserver at most one round of dry runs per object per Interval however often the object changes:
// a reconcile that comes sooner is put off to the end of the interval, and then sees the object as it is by then.
// The leader's reconciles are never paced.
type Pacer struct {
	// Interval is the least time between two standby reconciles of one object; 0 does not pace.
	Interval time.Duration
	// Clock tells the time; nil means the real clock.
	Clock clock.PassiveClock

	mu   sync.Mutex
	last map[reconcile.Request]time.Time
	// kept is how many entries last held after its last pruning.
	kept int
}

// Wait returns how long req's standby reconcile must wait; 0 means it runs now, and the time is noted.
func (p *Pacer) Wait(req reconcile.Request) time.Duration {
	if p == nil || p.Interval <= 0 {
		return 0
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.last[req]; ok {
		if d := t.Add(p.Interval).Sub(now); d > 0 {
			return d
		}
	}
	p.note(req, now)
	return 0
}

// Note notes a reconcile of req that is not the standby's (the leader's): the next standby reconcile of req is
// paced from now.
func (p *Pacer) Note(req reconcile.Request) {
	if p == nil || p.Interval <= 0 {
		return
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.note(req, now)
}

// now is the pacer's clock's time.
func (p *Pacer) now() time.Time {
	if p.Clock == nil {
		return time.Now()
	}
	return p.Clock.Now()
}

// note records a reconcile of req at now; p.mu is held.
func (p *Pacer) note(req reconcile.Request, now time.Time) {
	if p.last == nil {
		p.last = map[reconcile.Request]time.Time{}
	}
	p.last[req] = now
	p.prune(now)
}

// prune drops the entries whose interval is over (they no longer put anything off) once last has doubled since
// the previous pruning, so it holds about the objects reconciled in the last interval.
func (p *Pacer) prune(now time.Time) {
	if len(p.last) < 2*p.kept+1024 {
		return
	}
	for req, t := range p.last {
		if !now.Before(t.Add(p.Interval)) {
			delete(p.last, req)
		}
	}
	p.kept = len(p.last)
}
