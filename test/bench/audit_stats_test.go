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
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScheduleStatsReadLagsMissesDuplicatesAndRequestsFromTheAuditLog checks P1's audit analysis on a
// hand-written log: lags from the create requests' receive times, a slot without a Job is missed, a second
// successful create for a slot is a duplicate, a 409 is a failed create, and only the side's own writes in
// the window count as requests.
func TestScheduleStatsReadLagsMissesDuplicatesAndRequestsFromTheAuditLog(t *testing.T) {
	const ua = "manager/v0.0.0 (linux/amd64) kubernetes/$Format"
	const kcm = "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc/cronjob-controller"
	first := time.Unix(29640000*60, 0).UTC() // a minute boundary
	at := func(d time.Duration) string { return first.Add(d).Format(time.RFC3339Nano) }
	line := func(verb, agent, ns, group, resource, sub, name string, code int, at string) string {
		return `{"kind":"Event","verb":"` + verb + `","userAgent":"` + agent + `","objectRef":{"resource":"` + resource +
			`","namespace":"` + ns + `","name":"` + name + `","apiGroup":"` + group + `","subresource":"` + sub +
			`"},"responseStatus":{"code":` + strconv.Itoa(code) + `},"requestReceivedTimestamp":"` + at + `"}`
	}
	log := strings.Join([]string{
		line("create", ua, "s", "batch", "jobs", "", "cj-0-29640000", 201, at(250*time.Millisecond)),
		line("create", ua, "s", "batch", "jobs", "", "cj-1-29640000", 201, at(1500*time.Millisecond)),
		line("create", ua, "s", "batch", "jobs", "", "cj-0-29640001", 201, at(60100*time.Millisecond)),
		line("create", ua, "s", "batch", "jobs", "", "cj-0-29640001", 201, at(60900*time.Millisecond)),
		line("create", ua, "s", "batch", "jobs", "", "cj-1-29640001", 409, at(60300*time.Millisecond)),
		line("patch", ua, "s", "batch.tutorial.kubebuilder.io", "cronjobs", "status", "cj-0", 200, at(400*time.Millisecond)),
		line("create", ua, "s", "events.k8s.io", "events", "", "cj-0.1", 201, at(300*time.Millisecond)),
		line("create", kcm, "k", "batch", "jobs", "", "cj-0-29640000", 201, at(9*time.Second)),
		line("create", ua, "s", "batch", "jobs", "", "cj-0-29639999", 201, at(-59800*time.Millisecond)),
		"not json",
	}, "\n")
	events, err := parseAudit(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	st := scheduleStatsOf(events, cronJobSide{namespace: "s", uaPrefix: "manager/"}, "cj-", 2, first, 2,
		first.Add(2*time.Minute))

	if st.created != 3 || st.missed != 1 || st.duplicates != 1 || st.failedCreates != 1 {
		t.Fatalf("created %d, missed %d, duplicates %d, failed %d; want 3, 1, 1, 1", st.created, st.missed,
			st.duplicates, st.failedCreates)
	}
	if want := []time.Duration{250 * time.Millisecond, 1500 * time.Millisecond,
		100 * time.Millisecond}; !equalDurations(st.lags, want) {
		t.Fatalf("lags %v, want %v", st.lags, want)
	}
	// In the window: 5 Job creates (one a 409), the status patch and the event; not the one before it.
	if st.requests != 7 || st.requestsByKind["patch cronjobs/status"] != 1 || st.requestsByKind["create events"] != 1 {
		t.Fatalf("requests %d by kind %v, want 7 with one status patch and one event", st.requests, st.requestsByKind)
	}
	kcmSide := scheduleStatsOf(events, cronJobSide{namespace: "k", uaPrefix: "kube-controller-manager/",
		uaSuffix: "/cronjob-controller"}, "cj-", 1, first, 1, first.Add(time.Minute))
	if kcmSide.created != 1 || kcmSide.lags[0] != 9*time.Second {
		t.Fatalf("anchor side: created %d, lags %v; want 1 Job 9 s late", kcmSide.created, kcmSide.lags)
	}
}

// TestScheduleStatsCountLagsFromEachCronJobsOwnStartTime: with spec.spread a run starts at the scheduled
// minute plus its CronJob's offset (P8), so a Job created 12.3 s after the minute by a CronJob whose offset
// is 12 s is 300 ms late, and a CronJob without an offset is timed from the minute.
func TestScheduleStatsCountLagsFromEachCronJobsOwnStartTime(t *testing.T) {
	const ua = "manager/v0.0.0 (linux/amd64) kubernetes/$Format"
	first := time.Unix(29640000*60, 0).UTC()
	create := func(name string, after time.Duration) auditEvent {
		e := auditEvent{Verb: "create", UserAgent: ua, Received: first.Add(after)}
		e.ObjectRef.Resource, e.ObjectRef.APIGroup, e.ObjectRef.Namespace, e.ObjectRef.Name = "jobs", "batch", "s", name
		e.ResponseStatus.Code = 201
		return e
	}
	events := []auditEvent{
		create("cj-0-29640000", 12300*time.Millisecond),
		create("cj-1-29640000", 900*time.Millisecond),
		create("cj-0-29640001", time.Minute+12*time.Second+50*time.Millisecond),
	}
	side := cronJobSide{namespace: "s", uaPrefix: "manager/", offsets: map[string]time.Duration{"cj-0": 12 * time.Second}}
	st := scheduleStatsOf(events, side, "cj-", 2, first, 2, first.Add(2*time.Minute))
	want := []time.Duration{300 * time.Millisecond, 900 * time.Millisecond, 50 * time.Millisecond}
	if !equalDurations(st.lags, want) || st.created != 3 || st.missed != 1 {
		t.Fatalf("lags %v, created %d, missed %d; want %v, 3, 1", st.lags, st.created, st.missed, want)
	}
}

// TestPeakPerSecondCountsTheBusiestSecondInTheWindow: events are bucketed by the wall-clock second they were
// received in; the filter and the window [from, end) apply, and a tie goes to the earlier second.
func TestPeakPerSecondCountsTheBusiestSecondInTheWindow(t *testing.T) {
	base := time.Unix(1_800_000_000, 0).UTC()
	ev := func(ns string, after time.Duration) auditEvent {
		e := auditEvent{Verb: "create", Received: base.Add(after)}
		e.ObjectRef.Namespace = ns
		return e
	}
	var events []auditEvent
	for _, ms := range []int{10, 400, 999} { // three in second 0
		events = append(events, ev("a", time.Duration(ms)*time.Millisecond))
	}
	for _, ms := range []int{1000, 1500, 1600, 1700} { // four in second 1, one of them in another namespace
		ns := "a"
		if ms == 1700 {
			ns = "b"
		}
		events = append(events, ev(ns, time.Duration(ms)*time.Millisecond))
	}
	for range 5 { // five in second 3, outside the window
		events = append(events, ev("a", 3*time.Second+time.Millisecond))
	}
	inA := func(e auditEvent) bool { return e.ObjectRef.Namespace == "a" }
	peak, at := peakPerSecond(events, inA, base, base.Add(3*time.Second))
	if peak != 3 || !at.Equal(base) {
		t.Fatalf("peak %d at %s; want 3 at %s (second 1 has 3 in namespace a too, second 0 is earlier)", peak, at, base)
	}
	all := func(auditEvent) bool { return true }
	if peak, at := peakPerSecond(events, all, base, base.Add(3*time.Second)); peak != 4 ||
		!at.Equal(base.Add(time.Second)) {
		t.Fatalf("peak %d at %s; want 4 at %s", peak, at, base.Add(time.Second))
	}
	if peak, _ := peakPerSecond(events, all, base, base.Add(4*time.Second)); peak != 5 {
		t.Fatalf("peak %d with second 3 in the window; want 5", peak)
	}
	if peak, at := peakPerSecond(nil, all, base, base.Add(time.Second)); peak != 0 || !at.IsZero() {
		t.Fatalf("peak %d at %s of no events; want 0 at the zero time", peak, at)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
