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

package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

// promoteSample is one promote of P6: when `kubectl argo rollouts promote` returned (this process' clock),
// and the write spans of the old colour's manager over its whole life and of the new colour's manager (from
// their "api write" log lines, the same host clock).
type promoteSample struct {
	promoted time.Time
	old, cur managerproc.WriteSpan
	// switched is when the apiserver received Argo Rollouts' write of the active Service's new selector (its
	// audit log); stopped is when the old colour's manager logged "stopped leading", started when the new one's
	// logged "started leading" (siteops' elector; zero with client-go's).
	switched, stopped, started time.Time
}

// toFirstWrite is promote returned → the new colour's first write.
func (s promoteSample) toFirstWrite() time.Duration { return s.cur.First.Sub(s.promoted) }

// gap is the old colour's last write → the new colour's first: negative when they overlap.
func (s promoteSample) gap() time.Duration { return s.cur.First.Sub(s.old.Last) }

// promoteSide is what one side of P6 measured: its promotes, and the write span of every manager process that
// ran in it, oldest first.
type promoteSide struct {
	name    string
	samples []promoteSample
	spans   []managerproc.WriteSpan
}

// toFirstWrites is each sample's toFirstWrite.
func (s promoteSide) toFirstWrites() []time.Duration {
	out := make([]time.Duration, len(s.samples))
	for i, p := range s.samples {
		out[i] = p.toFirstWrite()
	}
	return out
}

// gaps is each sample's gap.
func (s promoteSide) gaps() []time.Duration {
	out := make([]time.Duration, len(s.samples))
	for i, p := range s.samples {
		out[i] = p.gap()
	}
	return out
}

// twoWriters counts the intervals with two writers: the pairs of processes whose write spans (first write to
// last, both included) overlap. Each process leads at most once, so 0 means one writer at a time throughout.
func (s promoteSide) twoWriters() int {
	n := 0
	for i, a := range s.spans {
		for _, b := range s.spans[i+1:] {
			if a.Count > 0 && b.Count > 0 && !a.Last.Before(b.First) && !b.Last.Before(a.First) {
				n++
			}
		}
	}
	return n
}

// quantiles is p50 and p99 of ds (Quantile sorts a copy).
func quantiles(ds []time.Duration) (p50, p99 time.Duration) {
	c := append([]time.Duration(nil), ds...)
	return Quantile(c, 0.5), Quantile(c, 0.99)
}

// phases splits promote → first write where siteops' elector logs its steps: promote returned → the old colour
// stops leading (its manager sees the promote and hands the Lease over; negative when that is before kubectl
// returned); promote returned → Argo Rollouts switches the active Service (not seen when the audit log does not
// show it), → the new colour starts leading (its manager sees the switch), → its first write. It is "" when no
// sample has both log lines.
func (s promoteSide) phases() string {
	var toStop, toSwitch, toStart, toWrite []time.Duration
	for _, p := range s.samples {
		if p.stopped.IsZero() || p.started.IsZero() {
			continue
		}
		toStop = append(toStop, p.stopped.Sub(p.promoted))
		if !p.switched.IsZero() {
			toSwitch = append(toSwitch, p.switched.Sub(p.promoted))
			toStart = append(toStart, p.started.Sub(p.switched))
		}
		toWrite = append(toWrite, p.cur.First.Sub(p.started))
	}
	if len(toStop) == 0 {
		return ""
	}
	f := func(ds []time.Duration) string {
		if len(ds) == 0 {
			return "not seen"
		}
		p50, p99 := quantiles(ds)
		return "p50 " + FormatDuration(p50) + ", p99 " + FormatDuration(p99)
	}
	return fmt.Sprintf("promote → old colour stops leading %s; promote → Argo Rollouts switches the active Service %s; "+
		"→ new colour leads %s; → its first write %s", f(toStop), f(toSwitch), f(toStart), f(toWrite))
}

// serviceSwitches sets each sample's switched time from the audit log: the first write of the active Service
// by Argo Rollouts received after the last promote request (the kubectl plugin's patch of the Rollout's status)
// received before the sample's promote returned.
func (s promoteSide) serviceSwitches(events []auditEvent, ns, service string) {
	for i := range s.samples {
		p := &s.samples[i]
		var promoteReq time.Time
		for _, e := range events {
			if e.ObjectRef.Namespace == ns && e.ObjectRef.Resource == "rollouts" &&
				strings.HasPrefix(e.UserAgent, "kubectl-argo-rollouts") &&
				!e.Received.After(p.promoted) && e.Received.After(promoteReq) {
				promoteReq = e.Received
			}
		}
		if promoteReq.IsZero() {
			continue
		}
		for _, e := range events {
			if e.ObjectRef.Namespace == ns && e.ObjectRef.Resource == "services" && e.ObjectRef.Name == service &&
				(e.Verb == "patch" || e.Verb == "update") && e.Received.After(promoteReq) &&
				(p.switched.IsZero() || e.Received.Before(p.switched)) {
				p.switched = e.Received
			}
		}
	}
}

// summary is the side's figures for the results table: both measures' p50 and p99.
func (s promoteSide) summary() string {
	a50, a99 := quantiles(s.toFirstWrites())
	g50, g99 := quantiles(s.gaps())
	return fmt.Sprintf("promote → first write p50 %s, p99 %s; last old → first new p50 %s, p99 %s",
		FormatDuration(a50), FormatDuration(a99), FormatDuration(g50), FormatDuration(g99))
}
