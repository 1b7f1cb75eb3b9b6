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
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/kit"
)

// Metrics are the SiteSync controller's Prometheus series; the manager registers them with its metrics
// registry and gives the Reconciler a Metrics. A nil *Metrics records nothing.
type Metrics struct {
	syncDuration    *prometheus.HistogramVec
	renderDuration  *prometheus.HistogramVec
	renderFailures  *prometheus.CounterVec
	syncLag         prometheus.Histogram
	siteConvergence *prometheus.HistogramVec
	pushRetries     prometheus.Counter
}

// NewMetrics defines the SiteSync controller's series and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{}
	var err error
	if m.syncDuration, err = kit.Register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "siteops_sync_duration_seconds",
		Help:    "Duration of one SiteSync sync (gitops.Sync: fetch, render of the affected sites, push), by SiteSync.",
		Buckets: prometheus.ExponentialBuckets(0.05, 2, 14),
	}, []string{"namespace", "name"})); err != nil {
		return nil, err
	}
	if m.renderDuration, err = kit.Register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "siteops_render_duration_seconds",
		Help:    "Duration of one site's kustomize build in a SiteSync sync (failed builds included), by site.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
	}, []string{"site"})); err != nil {
		return nil, err
	}
	if m.renderFailures, err = kit.Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "siteops_render_failures_total",
		Help: "Sites that failed, by site and reason (InvalidSiteName, GuardRefused, KustomizeError, " +
			"PlaintextSecret, NotPublished).",
	}, []string{"site", "reason"})); err != nil {
		return nil, err
	}
	if m.syncLag, err = kit.Register(reg, prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "siteops_sync_lag_seconds",
		Help:    "Time from a source commit being seen (push notification or fetch) to its rendered commit being pushed.",
		Buckets: prometheus.ExponentialBuckets(0.1, 2, 14),
	})); err != nil {
		return nil, err
	}
	if m.siteConvergence, err = kit.Register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "siteops_site_convergence_seconds",
		Help: "Time from a source commit being seen to a site's Argo CD Application being Synced and Healthy at the " +
			"rendered commit siteops pushed for it, by site; once per source commit and site.",
		Buckets: prometheus.ExponentialBuckets(0.25, 2, 14),
	}, []string{"site"})); err != nil {
		return nil, err
	}
	if m.pushRetries, err = kit.Register(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "siteops_git_push_retries_total",
		Help: "Pushes of the rendered branch retried after the remote moved.",
	})); err != nil {
		return nil, err
	}
	return m, nil
}

// synced observes one sync of key that took d in siteops_sync_duration_seconds.
func (m *Metrics) synced(key types.NamespacedName, d time.Duration) {
	if m != nil {
		m.syncDuration.WithLabelValues(key.Namespace, key.Name).Observe(d.Seconds())
	}
}

// forget drops the series of key, a deleted SiteSync.
func (m *Metrics) forget(key types.NamespacedName) {
	if m != nil {
		m.syncDuration.DeleteLabelValues(key.Namespace, key.Name)
	}
}

// rendered adds one sample per site that this sync built to siteops_render_duration_seconds, and the push
// retries to siteops_git_push_retries_total.
func (m *Metrics) rendered(sites []gitops.SiteState, pushRetries int) {
	if m == nil {
		return
	}
	m.pushRetries.Add(float64(pushRetries))
	for _, s := range sites {
		if s.Rendered {
			m.renderDuration.WithLabelValues(s.Name).Observe(s.RenderDuration.Seconds())
		}
	}
}

// lagged observes a source commit's lag to its push in siteops_sync_lag_seconds.
func (m *Metrics) lagged(d time.Duration) {
	if m != nil {
		m.syncLag.Observe(d.Seconds())
	}
}

// siteFailed counts site's failure for reason in siteops_render_failures_total.
func (m *Metrics) siteFailed(site, reason string) {
	if m != nil {
		m.renderFailures.WithLabelValues(site, reason).Inc()
	}
}

// converged observes site's time from source commit to delivery in siteops_site_convergence_seconds.
func (m *Metrics) converged(site string, d time.Duration) {
	if m != nil {
		m.siteConvergence.WithLabelValues(site).Observe(d.Seconds())
	}
}

// lagTracker remembers, per SiteSync, when its current source revision was first seen and whether its
// rendered commit has been pushed, so each revision's lag is observed once.
type lagTracker struct {
	mu   sync.Mutex
	seen map[types.NamespacedName]seenRevision
}

type seenRevision struct {
	revision string
	at       time.Time
	pushed   bool
	// converging are the sites whose folder the pushed commit changed and that are not yet delivered.
	converging map[string]bool
}

func newLagTracker() *lagTracker {
	return &lagTracker{seen: map[types.NamespacedName]seenRevision{}}
}

// observe records that key synced revision, first known at seenAt, and returns the lag to now when this sync
// pushed its rendered commit and no earlier sync of the same revision had. changed are the sites whose folder
// the push changed: each is then converging until converged reports it delivered.
func (l *lagTracker) observe(key types.NamespacedName, revision string, seenAt time.Time, pushed bool,
	changed []string, now time.Time) (time.Duration, bool) {
	if revision == "" {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.seen[key]
	if !ok || s.revision != revision {
		s = seenRevision{revision: revision, at: seenAt}
	}
	defer func() { l.seen[key] = s }()
	if !pushed || s.pushed {
		return 0, false
	}
	s.pushed = true
	s.converging = map[string]bool{}
	for _, site := range changed {
		s.converging[site] = true
	}
	return now.Sub(s.at), true
}

// converged returns, once, the time from key's current revision being seen to now, when site's folder was
// changed by the push of that revision (the site's rendered source revision is it).
func (l *lagTracker) converged(key types.NamespacedName, site, revision string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.seen[key]
	if !ok || s.revision != revision || !s.converging[site] {
		return 0, false
	}
	delete(s.converging, site)
	return now.Sub(s.at), true
}

// forget drops key's record.
func (l *lagTracker) forget(key types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.seen, key)
}
