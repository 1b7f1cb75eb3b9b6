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
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// Bounds and defaults of the fields siteops adds to the tutorial's CronJob (spread, catchUp,
// lagObjectiveSeconds).
const (
	// DefaultCatchUpMaxRuns is spec.catchUp.maxRuns when catchUp is set without it: a catch-up never starts
	// more Jobs than Kubernetes' behaviour unless asked to.
	DefaultCatchUpMaxRuns int32 = 1
	// MaxCatchUpRuns bounds spec.catchUp.maxRuns.
	MaxCatchUpRuns int32 = 100
	// ScheduledTimeEnv is the environment variable that tells the containers of a Job started with spread or
	// catchUp the time it was scheduled for (RFC 3339, in the CronJob's time zone).
	ScheduledTimeEnv = "SITEOPS_SCHEDULED_TIME"
)

// setExtensionDefaults fills spec.catchUp.maxRuns when catchUp is set without it.
func setExtensionDefaults(s *CronJobSpec) {
	if s.CatchUp != nil && s.CatchUp.MaxRuns == nil {
		s.CatchUp.MaxRuns = ptr.To(DefaultCatchUpMaxRuns)
	}
}

// validateExtensions checks spread (not negative, at most the schedule's shortest interval), catchUp.maxRuns
// (1 to MaxCatchUpRuns) and lagObjectiveSeconds (at least 1) of the spec at specPath.
func validateExtensions(s *CronJobSpec, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Spread != nil {
		path := specPath.Child("spread")
		switch spread := s.Spread.Duration; {
		case spread < 0:
			errs = append(errs, field.Invalid(path, s.Spread.String(), "must not be negative"))
		default:
			if sched, err := ParseSchedule(s.Schedule, nil); err == nil {
				if shortest := ShortestInterval(sched); spread > shortest {
					errs = append(errs, field.Invalid(path, s.Spread.String(), fmt.Sprintf(
						"must not exceed the shortest interval of spec.schedule (%s), or runs would overtake each other",
						shortest)))
				}
			}
		}
	}
	if s.CatchUp != nil && s.CatchUp.MaxRuns != nil {
		if n := *s.CatchUp.MaxRuns; n < 1 || n > MaxCatchUpRuns {
			errs = append(errs, field.Invalid(specPath.Child("catchUp", "maxRuns"), n,
				fmt.Sprintf("must be between 1 and %d", MaxCatchUpRuns)))
		}
	}
	if l := s.LagObjectiveSeconds; l != nil && *l < 1 {
		errs = append(errs, field.Invalid(specPath.Child("lagObjectiveSeconds"), *l, "must be at least 1"))
	}
	return errs
}

// shortestIntervalWalk bounds ShortestInterval: at most this many scheduled times, within this window.
const (
	shortestIntervalSteps  = 1000
	shortestIntervalWindow = 8 * 366 * 24 * time.Hour
)

// ShortestInterval returns the shortest time between two consecutive scheduled times of sched, read in UTC
// (so a daylight-saving change does not shorten it): the delay of "@every", otherwise the shortest gap among
// the first 1000 times after 2001-01-01 within eight years, which covers every day of the week and month
// and leap days. A schedule that fires at most once in that window returns the window.
func ShortestInterval(sched cron.Schedule) time.Duration {
	switch s := sched.(type) {
	case cron.ConstantDelaySchedule:
		return s.Delay
	case *cron.SpecSchedule:
		utc := *s
		utc.Location = time.UTC
		sched = &utc
	}
	start := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(shortestIntervalWindow)
	shortest := shortestIntervalWindow
	prev := sched.Next(start)
	for i := 0; i < shortestIntervalSteps && !prev.IsZero() && prev.Before(end); i++ {
		next := sched.Next(prev)
		if next.IsZero() || !next.Before(end) {
			break
		}
		shortest = min(shortest, next.Sub(prev))
		prev = next
	}
	return shortest
}
