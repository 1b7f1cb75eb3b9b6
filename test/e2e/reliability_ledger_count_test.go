//go:build e2e

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

package e2e

import (
	"testing"
	"time"
)

// TestLedgerCountsMissedRunsByMinute checks the ledger's arithmetic on a made-up cluster state: the runs due
// after each CronJob's creation, the minutes without a Job (also by minute), and a second Job for a minute.
func TestLedgerCountsMissedRunsByMinute(t *testing.T) {
	t.Parallel()
	at := func(hhmm string) time.Time {
		t.Helper()
		v, err := time.Parse("2006-01-02 15:04:05", "2026-12-02 "+hhmm)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	minute := func(hhmm string) int64 { return at(hhmm+":00").Unix() / 60 }
	l := jobLedger{
		created: map[string]time.Time{"a": at("10:00:30"), "b": at("10:01:30")},
		runs: map[string]map[int64]int{
			"a": {minute("10:01"): 1, minute("10:02"): 2},
			"b": {minute("10:03"): 1},
		},
	}
	expected, missed, duplicates, detail := l.check(time.Time{}, at("10:03:00"))
	if expected != 5 || missed != 2 || duplicates != 1 {
		t.Errorf("check: %d due, %d missed, %d duplicates (%v); want 5, 2, 1", expected, missed, duplicates, detail)
	}
	if got, want := l.missedByMinute(at("10:03:00")), "10:02 1, 10:03 1"; got != want {
		t.Errorf("missedByMinute = %q, want %q", got, want)
	}
	if _, missed, _, _ := l.check(at("10:03:00"), at("10:03:00")); missed != 1 {
		t.Errorf("check from 10:03: %d missed, want 1 (a's)", missed)
	}
}
