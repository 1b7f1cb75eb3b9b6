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

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// FuzzValidateSchedule feeds schedules and time zones to the validator the webhook and the controller share,
// then runs the controller's schedule maths on whatever it accepts. Properties: nothing panics; every error
// names spec.schedule or spec.timeZone; ParseSchedule agrees with ValidateSchedule; for an accepted schedule
// the most recent due time is in (earliest, now], nothing due lies between it and now, the previous one is
// earlier, and the next time is after now. Seeds: testdata/fuzz/FuzzValidateSchedule.
func FuzzValidateSchedule(f *testing.F) {
	f.Add("*/1 * * * *", "", false, uint32(90))
	f.Add("30 6-16/4 * * 1-5", "America/New_York", true, uint32(100000))
	f.Add("@every 5m", "", false, uint32(17))
	f.Add("CRON_TZ=UTC 0 * * * *", "", false, uint32(1))
	f.Add("0 0 30 2 *", "Mars/Olympus", true, uint32(0))
	earliest := time.Date(2026, 1, 1, 0, 0, 30, 0, time.UTC)
	f.Fuzz(func(t *testing.T, schedule, tz string, hasTZ bool, offsetMinutes uint32) {
		var zone *string
		if hasTZ {
			zone = &tz
		}
		errs := batchv1.ValidateSchedule(schedule, zone, field.NewPath("spec"))
		for _, e := range errs {
			if e.Field != "spec.schedule" && e.Field != "spec.timeZone" {
				t.Fatalf("error without the field path: %v", e)
			}
		}
		sched, err := batchv1.ParseSchedule(schedule, zone)
		if (err == nil) != (len(errs) == 0) {
			t.Fatalf("ParseSchedule error %v but ValidateSchedule %v", err, errs)
		}
		if err != nil {
			return
		}
		// Up to about two years after earliest, with a few seconds so now is rarely on a scheduled time.
		now := earliest.Add(time.Duration(offsetMinutes%(2*366*24*60))*time.Minute + 7*time.Second)
		d := dueTimes(sched, earliest, now)
		next := nextScheduleTime(sched, earliest, now)
		if !next.IsZero() && !next.After(now) {
			t.Fatalf("next %s is not after now %s", next, now)
		}
		if d.Count == 0 {
			if !d.Latest.IsZero() {
				t.Fatalf("nothing due but latest %s", d.Latest)
			}
			return
		}
		if !d.Latest.After(earliest) || d.Latest.After(now) {
			t.Fatalf("latest %s outside (%s, %s]", d.Latest, earliest, now)
		}
		if after := sched.Next(d.Latest); !after.IsZero() && !after.After(now) {
			t.Fatalf("latest %s is not the most recent: %s is also due before %s", d.Latest, after, now)
		}
		if d.Count >= 2 && !d.Previous.Before(d.Latest) {
			t.Fatalf("previous %s not before latest %s", d.Previous, d.Latest)
		}
	})
}
