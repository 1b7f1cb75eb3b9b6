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

package kit

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// TestOwnWritesBehind: a reconcile waits while the cache holds an older CronJob than the controller's last
// status write, and stops waiting once the cache shows that write or a newer one, after OwnWriteTimeout,
// or when a version does not compare; each of these forgets the write.
func TestOwnWritesBehind(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "cj"}
	at := time.Date(2035, 1, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		cached    string
		after     time.Duration
		behind    bool
		wait      time.Duration
		remembers bool
	}{
		{name: "older version in the cache", cached: "99", after: time.Second, behind: true,
			wait: OwnWriteTimeout - time.Second, remembers: true},
		{name: "shorter older version", cached: "9", after: 0, behind: true, wait: OwnWriteTimeout, remembers: true},
		{name: "the written version", cached: "100"},
		{name: "a newer version", cached: "101"},
		{name: "timed out", cached: "99", after: OwnWriteTimeout},
		{name: "version does not compare", cached: "x1"},
		{name: "clock went back", cached: "99", after: -time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w OwnWrites
			if _, behind := w.Behind(key, tc.cached, at); behind {
				t.Fatal("behind with nothing written")
			}
			w.Wrote(key, "100", at)
			wait, behind := w.Behind(key, tc.cached, at.Add(tc.after))
			if behind != tc.behind || wait != tc.wait {
				t.Fatalf("behind(%q) = %s, %v; want %s, %v", tc.cached, wait, behind, tc.wait, tc.behind)
			}
			if _, again := w.Behind(key, "99", at.Add(tc.after)); again != tc.remembers {
				t.Fatalf("still remembers the write: %v, want %v", again, tc.remembers)
			}
			if _, other := w.Behind(types.NamespacedName{Namespace: "ns", Name: "other"}, "1", at); other {
				t.Fatal("another CronJob is behind")
			}
			w.Forget(key)
			if _, after := w.Behind(key, "99", at); after {
				t.Fatal("behind after forget")
			}
		})
	}
}
