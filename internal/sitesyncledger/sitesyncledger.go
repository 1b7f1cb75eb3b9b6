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

// Package sitesyncledger is the delivery ledger of a SiteSync: gitops/ledger's metrics over the rendered
// commits read from Git and the delivery record in the SiteSync's status.history. The manager's metrics, the
// siteops CLI and the dashboard share it.
package sitesyncledger

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/ledger"
)

// DefaultWindow is the period the ledger covers unless told otherwise: thirty days.
const DefaultWindow = 30 * 24 * time.Hour

// Report is the ledger of ss over w, from the rendered commits pubs (gitops.Syncer.ReadPublishes).
func Report(ss *gitopsv1alpha1.SiteSync, pubs []ledger.Publish, w ledger.Window) ledger.Report {
	return ledger.Compute(pubs, Changes(ss.Status.History), w)
}

// Source says where Read fetches a SiteSync's rendered branch from.
type Source struct {
	// WorkDir is the clone cache folder (kept between calls, so a fetch brings only new commits).
	WorkDir string
	// Auth are the credentials for the target repository; nil fetches without.
	Auth *gitops.Auth
	// TargetURL, when set, replaces the SiteSync's target URL (a mirror, a clone reachable from here).
	TargetURL string
}

// Options are the options of a read of ss's rendered branch from src (gitops.Syncer.ReadPublishes,
// ReadSiteHistory).
func (src Source) Options(ss *gitopsv1alpha1.SiteSync) gitops.SyncOptions {
	url := ss.Spec.Target.URL
	if src.TargetURL != "" {
		url = src.TargetURL
	}
	return gitops.SyncOptions{Source: gitops.SourceSpec{URL: ss.Spec.Source.URL, Auth: src.Auth},
		Target: gitops.TargetSpec{URL: url, Branch: ss.Spec.Target.Branch, PathTemplate: ss.Spec.Target.PathTemplate,
			Auth: src.Auth},
		WorkDir: src.WorkDir}
}

// Read reads ss's rendered branch with sy, from head when the clone cache has it (say
// status.renderedRevision), else as fetched ("" always fetches), and returns the ledger of ss over w.
func Read(ctx context.Context, sy *gitops.Syncer, ss *gitopsv1alpha1.SiteSync, src Source, head string,
	w ledger.Window) (ledger.Report, error) {
	pubs, err := sy.ReadPublishes(ctx, src.Options(ss), head, w.From)
	if err != nil {
		return ledger.Report{}, err
	}
	return Report(ss, pubs, w), nil
}

// ParseWindow reads a ledger window: days ("30d") or a Go duration ("12h"), more than 0.
func ParseWindow(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n float64
		if n, err = strconv.ParseFloat(days, 64); err == nil {
			d = time.Duration(n * 24 * float64(time.Hour))
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("window %q: want days (30d) or a duration (12h), more than 0", s)
	}
	return d, nil
}

// Changes is status.history as the ledger reads it.
func Changes(history []gitopsv1alpha1.RevisionRecord) []ledger.Change {
	out := make([]ledger.Change, 0, len(history))
	for _, h := range history {
		out = append(out, ledger.Change{Revision: h.Revision, CommittedAt: at(h.CommittedAt),
			PublishedAt: at(h.PublishedAt), DeliveredAt: at(h.DeliveredAt), HaltedAt: at(h.HaltedAt),
			RestoredAt: at(h.RestoredAt), FailedSites: append([]string(nil), h.FailedSites...)})
	}
	return out
}

func at(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}
