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
	"bufio"
	"encoding/json"
	"iter"
	"strings"
	"time"
)

// FirstLogAt is the time of the first JSON log line whose message is msg, or the zero time when there is none
// (the process needs --zap-time-encoding=rfc3339nano).
func FirstLogAt(log, msg string) time.Time {
	for t := range logLines(log, msg) {
		return t
	}
	return time.Time{}
}

// logLines yields the time and the text of each JSON log line whose message is msg, in order.
func logLines(log, msg string) iter.Seq2[time.Time, []byte] {
	return func(yield func(time.Time, []byte) bool) {
		quoted, _ := json.Marshal(msg)
		sc := bufio.NewScanner(strings.NewReader(log))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if !strings.Contains(sc.Text(), string(quoted)) {
				continue
			}
			var line struct {
				TS  string `json:"ts"`
				Msg string `json:"msg"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != msg {
				continue
			}
			t, err := time.Parse(time.RFC3339Nano, line.TS)
			if err != nil {
				continue
			}
			if !yield(t, sc.Bytes()) {
				return
			}
		}
	}
}
