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

package receiver

import (
	"container/list"
	"sync"
)

// defaultSeenDeliveries bounds the replay cache: the most recent delivery ids kept.
const defaultSeenDeliveries = 4096

// deliveryCache is a bounded LRU set of delivery ids already accepted.
type deliveryCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recent; values are ids
	index map[string]*list.Element
}

func newDeliveryCache(maxEntries int) *deliveryCache {
	if maxEntries <= 0 {
		maxEntries = defaultSeenDeliveries
	}
	return &deliveryCache{max: maxEntries, order: list.New(), index: map[string]*list.Element{}}
}

// reserve adds id and reports true, or reports false when id is already there (a replay). The oldest id is
// evicted when the cache is full.
func (c *deliveryCache) reserve(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[id]; ok {
		c.order.MoveToFront(e)
		return false
	}
	c.index[id] = c.order.PushFront(id)
	if c.order.Len() > c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.index, oldest.Value.(string))
	}
	return true
}

// release forgets id, so a delivery whose handling failed can be sent again.
func (c *deliveryCache) release(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[id]; ok {
		c.order.Remove(e)
		delete(c.index, id)
	}
}
