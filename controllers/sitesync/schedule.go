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

package sitesync

import (
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

const (
	// defaultInterval applies when spec.interval is unset (the CRD defaults it too).
	defaultInterval = time.Minute
	// defaultTimeout applies when spec.timeout is unset (the CRD defaults it too).
	defaultTimeout = 2 * time.Minute
	// jitterFraction spreads requeues by ±10% so SiteSyncs created together do not fetch together.
	jitterFraction = 0.1
)

// interval is the SiteSync's sync interval.
func interval(obj *gitopsv1alpha1.SiteSync) time.Duration {
	if obj.Spec.Interval == nil || obj.Spec.Interval.Duration <= 0 {
		return defaultInterval
	}
	return obj.Spec.Interval.Duration
}

// timeout bounds one sync of the SiteSync.
func timeout(obj *gitopsv1alpha1.SiteSync) time.Duration {
	if obj.Spec.Timeout == nil || obj.Spec.Timeout.Duration <= 0 {
		return defaultTimeout
	}
	return obj.Spec.Timeout.Duration
}

// jittered spreads d over [0.9d, 1.1d]; r is a random number in [0, 1).
func jittered(d time.Duration, r float64) time.Duration {
	return d + time.Duration((2*r-1)*jitterFraction*float64(d))
}
