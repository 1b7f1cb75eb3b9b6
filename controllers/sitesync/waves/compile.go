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

package waves

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/robfig/cron/v3"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// Rollout is a SiteSync's rollout spec, read once: waves in order (the implicit last wave included), freeze
// windows with their schedules parsed, the progress deadline and what to do on failure.
type Rollout struct {
	waves     []wave
	freeze    []window
	deadline  time.Duration
	onFailure gitopsv1alpha1.OnFailure
	// historyLimit is how many revisions status.rollout.history keeps.
	historyLimit int
}

type wave struct {
	name     string
	patterns []string
	soak     time.Duration
	approval bool
	// analysis is true when the wave is verified by an AnalysisRun (spec.waves[].analysis).
	analysis bool
}

type window struct {
	schedule cron.Schedule
	duration time.Duration
}

// Enabled reports whether spec asks for a rollout at all: without waves, freeze windows and a progress
// deadline every changed site is published at once, as without this package.
func Enabled(spec gitopsv1alpha1.RolloutSpec) bool {
	return len(spec.Waves) > 0 || len(spec.Freeze) > 0 || spec.ProgressDeadline != nil
}

// Compile reads spec; an error names the field that cannot be read (a schedule, a time zone, a site pattern)
// and retrying does not fix it.
func Compile(spec gitopsv1alpha1.RolloutSpec) (*Rollout, error) {
	r := &Rollout{onFailure: spec.OnFailure, historyLimit: gitopsv1alpha1.DefaultRolloutHistoryLimit}
	if spec.RolloutHistoryLimit != nil {
		r.historyLimit = int(*spec.RolloutHistoryLimit)
	}
	if r.onFailure == "" {
		r.onFailure = gitopsv1alpha1.OnFailureHalt
	}
	if spec.ProgressDeadline != nil {
		r.deadline = spec.ProgressDeadline.Duration
	}
	var errs []error
	for i, w := range spec.Waves {
		cw := wave{name: w.Name, patterns: slices.Clone(w.Sites), approval: w.RequireApproval,
			analysis: w.Analysis != nil}
		if w.Soak != nil {
			cw.soak = w.Soak.Duration
		}
		for j, p := range w.Sites {
			if _, err := path.Match(p, ""); err != nil {
				errs = append(errs, fmt.Errorf("spec.waves[%d].sites[%d]: pattern %q: %w", i, j, p, err))
			}
		}
		r.waves = append(r.waves, cw)
	}
	r.waves = append(r.waves, wave{name: gitopsv1alpha1.ImplicitWave, patterns: []string{"*"}})
	for i, f := range spec.Freeze {
		s, err := parseSchedule(f.Schedule, f.TimeZone)
		if err != nil {
			errs = append(errs, fmt.Errorf("spec.freeze[%d]: %w", i, err))
			continue
		}
		r.freeze = append(r.freeze, window{schedule: s, duration: f.Duration.Duration})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r, nil
}

// parseSchedule reads a cron schedule (robfig/cron's standard parser, as the CronJob controller) in the
// named IANA time zone; empty means UTC.
func parseSchedule(schedule, timeZone string) (cron.Schedule, error) {
	loc := time.UTC
	if timeZone != "" {
		if timeZone == "Local" {
			return nil, fmt.Errorf("timeZone: Local is not accepted, name the zone")
		}
		l, err := time.LoadLocation(timeZone)
		if err != nil {
			return nil, fmt.Errorf("timeZone %q: %w", timeZone, err)
		}
		loc = l
	}
	s, err := cron.ParseStandard(schedule)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", schedule, err)
	}
	if spec, ok := s.(*cron.SpecSchedule); ok {
		spec.Location = loc
	}
	return s, nil
}

// WaveOf is the wave site belongs to: the first whose names or patterns match it, else the implicit last
// wave.
func (r *Rollout) WaveOf(site string) string {
	for _, w := range r.waves {
		for _, p := range w.patterns {
			if ok, _ := path.Match(p, site); ok {
				return w.name
			}
		}
	}
	return gitopsv1alpha1.ImplicitWave
}

// Waves are the names of the waves in order, the implicit last wave included.
func (r *Rollout) Waves() []string {
	out := make([]string, len(r.waves))
	for i, w := range r.waves {
		out[i] = w.name
	}
	return out
}
