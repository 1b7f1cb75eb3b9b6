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

package cronjob

// wakePriority is the work-queue priority of the reconcile that wakes a CronJob at its next scheduled time.
// controller-runtime's priority queue serves higher priorities first and, within one, the longest waiting
// first; watch events add at priority 0 (the initial list at -100). A CronJob that a watch event makes
// ready while it waits for its wake-up keeps wakePriority but queues from when it asked for that wake-up,
// so the reconcile a Job's create event brings comes after the CronJobs that fell due with it.
const wakePriority = 100
