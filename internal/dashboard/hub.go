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

import "sync"

// hub tells the open pages' event streams that a SiteSync changed. A stream's wake channel holds at most one
// pending wake-up, so a burst of changes costs a slow page one render of the newest state, never a queue.
type hub struct {
	mu   sync.Mutex
	subs map[*subscription]struct{}
}

// subscription is one event stream's interest: the SiteSync it shows (namespace/name), or every SiteSync.
type subscription struct {
	key  string // "" for every SiteSync
	wake chan struct{}
}

// subscribe registers a stream for the changes of key ("" for all).
func (h *hub) subscribe(key string) *subscription {
	s := &subscription{key: key, wake: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[*subscription]struct{}{}
	}
	h.subs[s] = struct{}{}
	return s
}

// unsubscribe forgets a stream that ended.
func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
}

// changed wakes the streams that show the SiteSync key.
func (h *hub) changed(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.key != "" && s.key != key {
			continue
		}
		select {
		case s.wake <- struct{}{}:
		default: // a wake-up is already pending: the stream renders the newest state anyway
		}
	}
}
