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

// Package waves plans the rollout of a source revision across the sites of a SiteSync, wave by wave. Plan is
// a pure function of the spec, the newest revision, each site's delivery state, the annotations and the time:
// it says which sites to publish now, which to revert, the phase, what each site waits for, and when to look
// again, and it keeps the rollout history (history.go). It reads no clock, no Git and no API server; the SiteSync
// controller feeds it and carries it out, and answers Input.Actor (who set an annotation) for the history.
package waves
