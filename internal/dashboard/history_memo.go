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

package dashboard

import (
	"sync"
	"time"
)

// How many sites' histories a Server keeps, and how long it keeps a failed read: a page open on a rendered
// branch that cannot be read renders again at every status change, and must not fetch at each one.
const (
	historyMemoMax = 64
	historyRetry   = 30 * time.Second
)

// historyMemo keeps the histories the Server read, by SiteSync, site, rendered head and where they were read
// from: the rendered branch's history does not change while the head stays, and a page renders again at
// every status change.
type historyMemo struct {
	mu      sync.Mutex
	entries map[string]memoEntry
}

// memoEntry is one read of a site's history: what it read, or why it could not, and when.
type memoEntry struct {
	history siteHistory
	err     error
	at      time.Time
}

// get is the entry of key; ok is false when there is none, or a failed read older than historyRetry.
func (m *historyMemo) get(key string, now time.Time) (memoEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if ok && e.err != nil && now.Sub(e.at) >= historyRetry {
		delete(m.entries, key)
		return memoEntry{}, false
	}
	return e, ok
}

// put keeps e for key, forgetting another entry when the memo is full.
func (m *historyMemo) put(key string, e memoEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[string]memoEntry{}
	}
	for k := range m.entries {
		if len(m.entries) < historyMemoMax {
			break
		}
		delete(m.entries, k)
	}
	m.entries[key] = e
}
