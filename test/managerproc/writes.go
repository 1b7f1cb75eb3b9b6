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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// WriteSpan is the first and last persisted API write (not a dry run) a manager process logged, and how many.
type WriteSpan struct {
	First, Last time.Time
	Count       int
}

// WriteSpanOf reads the JSON "api write" lines of a manager log (internal/standby logs them at V(1); the
// process needs --zap-log-level=1 and --zap-time-encoding=rfc3339nano), each at the time it says the write was
// sent (the line's own time when it does not say).
func WriteSpanOf(log string) WriteSpan {
	var s WriteSpan
	for t, raw := range logLines(log, "api write") {
		var line struct {
			DryRun bool   `json:"dryRun"`
			Sent   string `json:"sent"`
		}
		if json.Unmarshal(raw, &line) != nil || line.DryRun {
			continue
		}
		if sent, err := time.Parse(time.RFC3339Nano, line.Sent); err == nil {
			t = sent
		}
		if s.Count == 0 || t.Before(s.First) {
			s.First = t
		}
		if t.After(s.Last) {
			s.Last = t
		}
		s.Count++
	}
	return s
}

// StandbyMode reads GET /standby on 127.0.0.1:port: "standby" while the manager does not hold the lease,
// "leader" once it does, "" when nothing answers.
func StandbyMode(port int) string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/standby", port))
	if err != nil {
		return ""
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	var s struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(b, &s)
	return s.Mode
}
