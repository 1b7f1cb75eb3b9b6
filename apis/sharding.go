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

package apis

// ShardLabel assigns a CronJob, Guestbook or SiteSync to a shard of managers, by Flux's convention: a manager
// started with --watch-label-selector='sharding.fluxcd.io/key in (shard1)' owns the objects labelled
// sharding.fluxcd.io/key=shard1, and the main manager (--watch-label-selector='!sharding.fluxcd.io/key', the
// default) owns the objects without the label. The objects a controller creates carry their owner's value, so
// each manager caches only its shard's children too.
const ShardLabel = "sharding.fluxcd.io/key"
