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

package guestbook

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// configHashesLimit bounds how many ConfigMaps ConfigHashes remembers; past it, it starts again empty (each
// ConfigMap is then read once more).
const configHashesLimit = 10000

// ConfigHashes remembers the data hash of Guestbook ConfigMaps by object and version. It is safe for concurrent
// use; the zero value is ready.
type ConfigHashes struct {
	mu     sync.Mutex
	byName map[types.NamespacedName]configVersion
}

// configVersion is one ConfigMap's identity, version and data hash.
type configVersion struct {
	uid  types.UID
	rv   string
	hash string
}

// lookup is the hash remembered for ConfigMap key at uid and resource version rv.
func (c *ConfigHashes) lookup(key types.NamespacedName, uid types.UID, rv string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.byName[key]
	if !ok || v.uid != uid || v.rv != rv || rv == "" {
		return "", false
	}
	return v.hash, true
}

// remember records hash for ConfigMap key at uid and rv; a nil ConfigHashes remembers nothing.
func (c *ConfigHashes) remember(key types.NamespacedName, uid types.UID, rv, hash string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byName == nil || len(c.byName) >= configHashesLimit {
		c.byName = map[types.NamespacedName]configVersion{}
	}
	c.byName[key] = configVersion{uid: uid, rv: rv, hash: hash}
}
