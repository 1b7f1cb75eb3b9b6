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
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/intstr"

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
	// share is the percentage of the sites no wave names that the wave takes; 0 when it names its sites.
	share int
	// maxFailures is the wave's failure budget (nil: none); maxConcurrent how many of its sites are
	// published at a time (0: all).
	maxFailures   *intstr.IntOrString
	maxConcurrent int
	// canary is true for the first wave: any failure there halts the rollout.
	canary bool
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
		cw := wave{name: w.Name, approval: w.RequireApproval, analysis: w.Analysis != nil, canary: i == 0,
			maxFailures: w.MaxFailures}
		if w.Soak != nil {
			cw.soak = w.Soak.Duration
		}
		if w.MaxConcurrent != nil {
			cw.maxConcurrent = int(*w.MaxConcurrent)
		}
		for j, p := range w.Sites {
			if share, ok, err := parseShare(p); ok {
				if err != nil || len(w.Sites) > 1 {
					errs = append(errs, fmt.Errorf("spec.waves[%d].sites[%d]: %q: a percentage from 1%% to 100%% "+
						"stands alone in a wave's sites", i, j, p))
				}
				cw.share = share
				continue
			}
			if _, err := path.Match(p, ""); err != nil {
				errs = append(errs, fmt.Errorf("spec.waves[%d].sites[%d]: pattern %q: %w", i, j, p, err))
			}
			cw.patterns = append(cw.patterns, p)
		}
		if _, err := intstr.GetScaledValueFromIntOrPercent(w.MaxFailures, 1, false); w.MaxFailures != nil &&
			err != nil {
			errs = append(errs, fmt.Errorf("spec.waves[%d].maxFailures: %w", i, err))
		}
		r.waves = append(r.waves, cw)
	}
	r.waves = append(r.waves, wave{name: gitopsv1alpha1.ImplicitWave, patterns: []string{"*"},
		canary: len(spec.Waves) == 0})
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

// parseShare reads a wave's percentage entry, "25%"; ok is false for a name or pattern.
func parseShare(entry string) (share int, ok bool, err error) {
	digits, ok := strings.CutSuffix(entry, "%")
	if !ok {
		return 0, false, nil
	}
	share, err = strconv.Atoi(digits)
	if err == nil && (share < 1 || share > 100) {
		err = fmt.Errorf("%d%% is not from 1%% to 100%%", share)
	}
	return share, true, err
}

// Assign puts each site of the fleet in its wave. A site goes to the first wave whose names or patterns
// match it. The sites no wave names are then shared out in the order of their names: each wave given as a
// percentage takes that share of those still left, rounded up, and the implicit last wave takes the rest.
// The same fleet always gives the same waves.
func (r *Rollout) Assign(fleet []string) map[string]string {
	out := make(map[string]string, len(fleet))
	var rest []string
	for _, site := range slices.Sorted(slices.Values(fleet)) {
		if w := r.named(site); w != "" {
			out[site] = w
		} else {
			rest = append(rest, site)
		}
	}
	for _, w := range r.waves {
		if w.share == 0 {
			continue
		}
		n := min(len(rest), (len(rest)*w.share+99)/100)
		for _, site := range rest[:n] {
			out[site] = w.name
		}
		rest = rest[n:]
	}
	for _, site := range rest {
		out[site] = gitopsv1alpha1.ImplicitWave
	}
	return out
}

// named is the first wave before the implicit one whose names or patterns match site, or "".
func (r *Rollout) named(site string) string {
	for _, w := range r.waves[:len(r.waves)-1] {
		for _, p := range w.patterns {
			if ok, _ := path.Match(p, site); ok {
				return w.name
			}
		}
	}
	return ""
}

// budget is how many of the wave's n changed sites may fail while the rollout goes on: none in the canary.
func (w wave) budget(n int) int {
	if w.canary || w.maxFailures == nil {
		return 0
	}
	b, err := intstr.GetScaledValueFromIntOrPercent(w.maxFailures, n, false)
	if err != nil || b < 0 {
		return 0
	}
	return b
}

// Waves are the names of the waves in order, the implicit last wave included.
func (r *Rollout) Waves() []string {
	out := make([]string, len(r.waves))
	for i, w := range r.waves {
		out[i] = w.name
	}
	return out
}
