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

package standby

import "time"

// Discard is the observer the wiring gives every standby reconciler: a standby's decisions take no effect,
// so it measures nothing. It has the methods of each controller's Observer.
type Discard struct{}

// ScheduleLag discards a CronJob's schedule lag.
func (Discard) ScheduleLag(time.Duration) {}

// MissedSchedules discards a CronJob's missed times.
func (Discard) MissedSchedules(int) {}

// Failover discards a Guestbook's failover.
func (Discard) Failover(time.Duration) {}
