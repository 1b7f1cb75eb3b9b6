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

package managerproc

import (
	"testing"
	"time"
)

//nolint:lll // a zap JSON line is one line, however long
const sampleLog = `{"level":"info","ts":"2026-12-01T22:55:16.100000000Z","msg":"manager started"}
not json: "api write"
{"level":"debug","ts":"2026-12-01T22:55:16.200000000Z","logger":"writes","msg":"api write","kind":"Deployment","dryRun":true}
{"level":"info","ts":"2026-12-01T22:55:16.300000000Z","logger":"leader-election","msg":"started leading"}
{"level":"debug","ts":"2026-12-01T22:55:16.400000000Z","logger":"writes","msg":"api write","kind":"Pod","dryRun":false}
{"level":"debug","ts":"2026-12-01T22:55:16.500000000Z","msg":"reconciled","note":"api write"}
{"level":"debug","ts":"2026-12-01T22:55:16.600000000Z","logger":"writes","msg":"api write","kind":"Deployment","dryRun":false,"sent":"2026-12-01T22:55:16.550000000Z"}
{"level":"info","ts":"2026-12-01T22:55:16.700000000Z","logger":"leader-election","msg":"started leading"}
`

func at(ms int) time.Time {
	return time.Date(2026, 12, 1, 22, 55, 16, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
}

func TestFirstLogAtIsTheFirstLineWithThatMessage(t *testing.T) {
	if got := FirstLogAt(sampleLog, "started leading"); !got.Equal(at(300)) {
		t.Errorf("started leading: got %s, want %s", got, at(300))
	}
	if got := FirstLogAt(sampleLog, "stopped leading"); !got.IsZero() {
		t.Errorf("a message the log does not hold: got %s, want the zero time", got)
	}
}

func TestWriteSpanOfCountsPersistedWritesOnly(t *testing.T) {
	got := WriteSpanOf(sampleLog)
	want := WriteSpan{First: at(400), Last: at(550), Count: 2}
	if !got.First.Equal(want.First) || !got.Last.Equal(want.Last) || got.Count != want.Count {
		t.Errorf(
			"got %+v, want %+v (dry runs, other messages and lines that are not JSON do not count; a write is at the time it "+
				"was sent)", got, want)
	}
}
