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
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// recentLimit bounds how many writes a Report keeps in full.
const recentLimit = 200

// keyLimit bounds how many distinct dry-run writes a Report remembers to tell repeated ones: a standby that
// runs for days sees a new Job name every scheduled minute and must not grow without end.
const keyLimit = 10000

// Write is one recorded API write.
type Write struct {
	// Time is when the write was sent.
	Time      time.Time `json:"time"`
	Verb      string    `json:"verb"`
	Kind      string    `json:"kind"`
	Namespace string    `json:"namespace,omitempty"`
	Name      string    `json:"name"`
	Fields    []string  `json:"fields,omitempty"`
	// ResourceVersion is the version of the object the write was computed from (empty for a create).
	ResourceVersion string `json:"resourceVersion,omitempty"`
	DryRun          bool   `json:"dryRun"`
}

// key identifies what a write wants and of which version of the object: once the object has moved on (the
// leader's own write, the next schedule's status), wanting the same fields again is new work, not a repeat.
func (w Write) key() string {
	return w.Verb + " " + w.Kind + " " + w.Namespace + "/" + w.Name + "@" + w.ResourceVersion + " " +
		strings.Join(w.Fields, ",")
}

// RepeatAfter is how long after its first time a dry-run write must be wanted again, against the same
// version of the object, to count as unexpected. A standby reconciling an object again before the leader's
// write for the same event has reached its cache wants the same write within moments; a version that
// disagrees with the leader keeps wanting it for as long as the object stays as it is.
const RepeatAfter = 5 * time.Second

// Report collects writes: counts by kind and the most recent ones in full.
type Report struct {
	// Clock stamps each write; nil means the real clock.
	Clock clock.PassiveClock
	// Log, when set, gets one line per write at V(1) ("api write"): the hand-off tests read these to prove
	// that no two managers ever wrote at the same time.
	Log logr.Logger
	// Metrics, when set, counts the dry-run writes.
	Metrics *Metrics

	mu     sync.Mutex
	total  int
	byKind map[string]int
	byKey  map[string]wanted
	recent []Write
	last   time.Time
}

// Summary is the JSON form of a Report.
type Summary struct {
	// Mode is "standby" while the manager does not lead (writes are dry runs), else "leader".
	Mode string `json:"mode"`
	// Writes counts the writes recorded since start.
	Writes int `json:"writes"`
	// UnexpectedWrites counts the distinct writes (verb, object and the version it was read at, fields) that
	// were wanted again RepeatAfter or later: a one-off write (a Job for a schedule the leader also serves) is
	// the leader's work seen from the side, while a write the new version keeps wanting of an object nobody
	// changes is a disagreement with the running version. A pre-promotion analysis requires 0.
	UnexpectedWrites int            `json:"unexpectedWrites"`
	ByKind           map[string]int `json:"byKind"`
	LastWrite        *time.Time     `json:"lastWrite,omitempty"`
	Recent           []Write        `json:"recent"`
}

// wanted is when a dry-run write was first wanted, and whether it was wanted again RepeatAfter or later.
type wanted struct {
	at       time.Time
	repeated bool
}

// now is the report's clock's time.
func (r *Report) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

// Record adds w, sent at w.Time, or now when that is zero (a write recorded just before it is sent).
func (r *Report) Record(w Write) {
	if w.Time.IsZero() {
		w.Time = r.now()
	}
	if r.Log.GetSink() != nil {
		r.Log.V(1).Info("api write", "verb", w.Verb, "kind", w.Kind, "namespace", w.Namespace, "name", w.Name, "dryRun",
			w.DryRun, "sent", w.Time)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKind == nil {
		r.byKind, r.byKey = map[string]int{}, map[string]wanted{}
	}
	r.total++
	r.byKind[w.Kind]++
	// Only dry runs can be unexpected; the leader's own writes need no memory of what they wanted.
	if k := w.key(); w.DryRun {
		if first, seen := r.byKey[k]; seen {
			first.repeated = first.repeated || w.Time.Sub(first.at) >= RepeatAfter
			r.byKey[k] = first
		} else if len(r.byKey) < keyLimit {
			r.byKey[k] = wanted{at: w.Time}
		}
	}
	r.last = w.Time
	r.recent = append(r.recent, w)
	if len(r.recent) > recentLimit {
		r.recent = r.recent[len(r.recent)-recentLimit:]
	}
	if w.DryRun {
		r.Metrics.dryRun(w.Kind)
	}
}

// Summarize returns the report's current state; leading says whether the manager holds the lease.
func (r *Report) Summarize(leading bool) Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Summary{Mode: "standby", Writes: r.total, ByKind: map[string]int{}}
	for _, w := range r.byKey {
		if w.repeated {
			s.UnexpectedWrites++
		}
	}
	if leading {
		s.Mode = "leader"
	}
	for k, v := range r.byKind {
		s.ByKind[k] = v
	}
	if !r.last.IsZero() {
		last := r.last
		s.LastWrite = &last
	}
	s.Recent = append([]Write{}, r.recent...)
	sort.SliceStable(s.Recent, func(i, j int) bool { return s.Recent[i].Time.Before(s.Recent[j].Time) })
	return s
}

// Handler serves the report as JSON; leading reports whether the manager holds the lease now.
func (r *Report) Handler(leading func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(r.Summarize(leading()))
	})
}
