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

package v1

import (
	"fmt"
	"strings"
	"time"

	// tzdata is embedded so spec.timeZone resolves the same on a distroless image as on a workstation.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxScheduleLength bounds spec.schedule, in the CRD schema and in the webhook.
const MaxScheduleLength = 256

// ParseSchedule parses a CronJob's schedule in its time zone (UTC when timeZone is nil). It accepts what
// ValidateSchedule accepts and returns an error for the rest; the error does not say which field is wrong, so
// callers that need that use ValidateSchedule.
func ParseSchedule(schedule string, timeZone *string) (cron.Schedule, error) {
	if errs := ValidateSchedule(schedule, timeZone, field.NewPath("spec")); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return parse(schedule, timeZone)
}

// ValidateSchedule checks spec.schedule and spec.timeZone of a CronJob whose spec is at specPath: the schedule
// is a standard five-field cron expression or a descriptor (robfig/cron/v3 ParseStandard) that fires at least
// once, carries no CRON_TZ=/TZ= prefix, and uses "@every" only with whole minutes; the time zone, when set, is
// an IANA name that loads. Every error names its field path. It is pure: the webhook, the controller and the
// fuzz test share it.
func ValidateSchedule(schedule string, timeZone *string, specPath *field.Path) field.ErrorList {
	schedPath, tzPath := specPath.Child("schedule"), specPath.Child("timeZone")
	errs := validateTimeZone(timeZone, tzPath)
	switch {
	case strings.TrimSpace(schedule) == "":
		return append(errs, field.Required(schedPath, "a cron schedule such as \"*/5 * * * *\" or @hourly is required"))
	case len(schedule) > MaxScheduleLength:
		return append(errs, field.TooLong(schedPath, "", MaxScheduleLength))
	case strings.Contains(schedule, "TZ="):
		return append(errs, field.Invalid(schedPath, schedule,
			"CRON_TZ= and TZ= are not supported in spec.schedule: set spec.timeZone instead"))
	}
	if len(errs) > 0 {
		// The schedule is parsed in the zone, so a bad zone hides whether the schedule itself is fine:
		// check it in UTC.
		timeZone = nil
	}
	sched, err := parse(schedule, timeZone)
	if err != nil {
		return append(errs, field.Invalid(schedPath, schedule, err.Error()))
	}
	switch s := sched.(type) {
	case cron.ConstantDelaySchedule:
		if s.Delay < time.Minute || s.Delay%time.Minute != 0 {
			errs = append(errs, field.Invalid(schedPath, schedule,
				"@every needs a whole number of minutes, at least 1m: Job names carry the scheduled minute"))
		}
	case *cron.SpecSchedule:
		if s.Next(time.Now()).IsZero() {
			errs = append(errs, field.Invalid(schedPath, schedule, "schedule never fires (no matching date)"))
		}
	}
	return errs
}

// validateTimeZone checks spec.timeZone: nil, or a non-empty IANA name other than Local that loads.
func validateTimeZone(timeZone *string, path *field.Path) field.ErrorList {
	if timeZone == nil {
		return nil
	}
	tz := *timeZone
	switch {
	case tz == "":
		return field.ErrorList{field.Invalid(path, tz, "must be unset or an IANA time zone name such as Europe/Berlin")}
	case strings.EqualFold(tz, "Local"):
		return field.ErrorList{field.Invalid(path, tz, "must be an explicit IANA time zone name, not Local")}
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return field.ErrorList{field.Invalid(path, tz, fmt.Sprintf("unknown time zone: %v", err))}
	}
	return nil
}

// parse runs robfig's standard parser in the given zone, turning a parser panic into an error.
func parse(schedule string, timeZone *string) (s cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("unparseable schedule: %v", r)
		}
	}()
	s, err = cron.ParseStandard(schedule)
	if err != nil {
		return nil, err
	}
	if spec, ok := s.(*cron.SpecSchedule); ok {
		loc := time.UTC
		if timeZone != nil {
			if loc, err = time.LoadLocation(*timeZone); err != nil {
				return nil, err
			}
		}
		spec.Location = loc
	}
	return s, nil
}
