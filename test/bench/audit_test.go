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
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// auditEvent is the part of a kube-apiserver audit event (audit.k8s.io/v1, level Metadata) the benchmarks
// read.
type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"` // microseconds
}

// readAudit reads the JSON lines of an audit log file.
func readAudit(path string) ([]auditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	return parseAudit(f)
}

// parseAudit reads audit events, one JSON object a line; lines that are not events are skipped.
func parseAudit(r io.Reader) ([]auditEvent, error) {
	var out []auditEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e auditEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Verb == "" {
			continue
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading audit log: %w", err)
	}
	return out, nil
}

// cronJobSide selects the audit events of one CronJob controller: its user agent prefix and suffix (the
// kube-controller-manager adds its controller's name) and the namespace of its CronJobs. offsets holds the
// stagger offset of each CronJob with spec.spread, by name (P8): its runs start that long after the
// scheduled time, and their lag counts from there; a CronJob not in it starts at the scheduled time.
type cronJobSide struct {
	namespace, uaPrefix, uaSuffix string
	offsets                       map[string]time.Duration
}

// startOf is when the CronJob named cronJob starts its run for the scheduled time.
func (s cronJobSide) startOf(cronJob string, scheduled time.Time) time.Time {
	return scheduled.Add(s.offsets[cronJob])
}

func (s cronJobSide) matches(e auditEvent) bool {
	return e.ObjectRef.Namespace == s.namespace && strings.HasPrefix(e.UserAgent, s.uaPrefix) &&
		strings.HasSuffix(e.UserAgent, s.uaSuffix)
}

// scheduleStats are the figures of one side of P1 over a window of scheduled minutes.
type scheduleStats struct {
	lags              []time.Duration // create request received − start time, one per (CronJob, minute)
	created, missed   int
	duplicates        int // successful creates beyond the first for a (CronJob, minute)
	requests          int // writes by the controller received in the window
	requestsByKind    map[string]int
	failedCreates     int // create requests answered with an error (e.g. 409 AlreadyExists)
	slots, cronJobNum int
}

// scheduleStatsOf reads one side's Job create requests for the minutes [first, first+slots) of cronJobs
// CronJobs named prefix0…, and its write requests received in [first, end). Job names are
// <CronJob>-<scheduled time in Unix minutes>, as both controllers name them (with spec.spread too: the name
// keeps the scheduled time). A lag is measured from the run's start time (side.startOf).
func scheduleStatsOf(events []auditEvent, side cronJobSide, prefix string, cronJobs int, first time.Time, slots int,
	end time.Time) scheduleStats {
	st := scheduleStats{requestsByKind: map[string]int{}, slots: slots, cronJobNum: cronJobs}
	type slot struct {
		cj  string
		min int64
	}
	creates := map[slot]int{}
	firstMin := first.Unix() / 60
	for _, e := range events {
		if !side.matches(e) {
			continue
		}
		if !e.Received.Before(first) && e.Received.Before(end) {
			st.requests++
			kind := e.Verb + " " + e.ObjectRef.Resource
			if e.ObjectRef.Subresource != "" {
				kind += "/" + e.ObjectRef.Subresource
			}
			st.requestsByKind[kind]++
		}
		if e.Verb != "create" || e.ObjectRef.Resource != "jobs" || e.ObjectRef.APIGroup != "batch" {
			continue
		}
		if e.ResponseStatus.Code >= 300 {
			st.failedCreates++
			continue
		}
		i := strings.LastIndexByte(e.ObjectRef.Name, '-')
		if i < 0 {
			continue
		}
		m, err := strconv.ParseInt(e.ObjectRef.Name[i+1:], 10, 64)
		if err != nil || m < firstMin || m >= firstMin+int64(slots) || !strings.HasPrefix(e.ObjectRef.Name, prefix) {
			continue
		}
		k := slot{e.ObjectRef.Name[:i], m}
		creates[k]++
		if creates[k] == 1 {
			st.lags = append(st.lags, e.Received.Sub(side.startOf(k.cj, time.Unix(m*60, 0))))
		}
	}
	for _, n := range creates {
		st.created++
		st.duplicates += n - 1
	}
	st.missed = cronJobs*slots - st.created
	return st
}

// perJob is the write requests per Job created.
func (st scheduleStats) perJob() float64 {
	if st.created == 0 {
		return 0
	}
	return float64(st.requests) / float64(st.created)
}

// peakPerSecond is the largest number of the events keep selects received within one wall-clock second
// (the second they fall in, as Received.Truncate(time.Second)) in [from, end), and that second.
func peakPerSecond(events []auditEvent, keep func(auditEvent) bool, from, end time.Time) (int, time.Time) {
	perSecond := map[time.Time]int{}
	for _, e := range events {
		if e.Received.Before(from) || !e.Received.Before(end) || !keep(e) {
			continue
		}
		perSecond[e.Received.Truncate(time.Second)]++
	}
	var (
		peak int
		at   time.Time
	)
	for s, n := range perSecond {
		if n > peak || (n == peak && s.Before(at)) {
			peak, at = n, s
		}
	}
	return peak, at
}
