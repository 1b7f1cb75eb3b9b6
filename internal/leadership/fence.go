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

package leadership

import (
	"errors"
	"sync"
)

// ErrNotLeading is the error of a write refused because the manager does not lead at the moment of the write.
var ErrNotLeading = errors.New(
	"this manager does not lead: write refused (another manager, or none, holds the leader lease)")

// Fence is the manager's leadership as the rest of the process sees it: whether it leads now, news of each time
// it starts leading, and admission of writes. A write is admitted only while the manager leads, and Revoke
// waits for the writes it admitted before, so whoever revokes (the elector, before it releases the Lease)
// knows that no write of this leadership is still on its way to the apiserver.
type Fence struct {
	mu       sync.Mutex
	leading  bool
	inflight int
	idle     chan struct{}
	subs     []chan struct{}
	gained   chan struct{}
}

// Leading reports whether the manager leads now.
func (f *Fence) Leading() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leading
}

// Subscribe returns a channel that receives a value each time the manager starts leading. It holds one value:
// a subscriber that is slow to read sees several gains as one, which is all a resync needs.
func (f *Fence) Subscribe() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan struct{}, 1)
	f.subs = append(f.subs, ch)
	if f.leading {
		ch <- struct{}{}
	}
	return ch
}

// Gained returns a channel that is closed the next time the manager starts leading. Work done only while the
// manager does not lead (the standby's dry runs) selects on it to give way at once.
func (f *Fence) Gained() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gained == nil {
		f.gained = make(chan struct{})
	}
	return f.gained
}

// Grant opens the fence: the manager leads, writes are admitted, and every subscriber is told. It reports
// whether the manager did not lead before.
func (f *Fence) Grant() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leading {
		return false
	}
	f.leading = true
	if f.gained != nil {
		close(f.gained)
		f.gained = nil
	}
	for _, ch := range f.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return true
}

// Revoke closes the fence: from now on every write is refused with ErrNotLeading. The returned channel is
// closed once the writes admitted before have returned. changed reports whether the manager led before.
func (f *Fence) Revoke() (drained <-chan struct{}, changed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	changed, f.leading = f.leading, false
	done := make(chan struct{})
	if f.inflight == 0 {
		close(done)
		return done, changed
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	return f.idle, changed
}

// Enter admits one write: it returns ErrNotLeading when the manager does not lead, else a function to call once
// the write has returned.
func (f *Fence) Enter() (exit func(), err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.leading {
		return nil, ErrNotLeading
	}
	f.inflight++
	return f.exit, nil
}

// exit ends one admitted write.
func (f *Fence) exit() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inflight--
	if f.inflight == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}
