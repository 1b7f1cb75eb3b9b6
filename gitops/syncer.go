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

package gitops

import (
	"os"
	"path/filepath"

	"github.com/siteops/siteops/gitops/helmchart"
	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/gitops/validate"
)

// Syncer renders and publishes sites. It owns what a process keeps between calls: a lock per cache folder,
// the trees and guard results of the last Sync of each cache (so the next one reads only what changed), the
// compiled schemas rendered objects are validated against, the compiled admission policies, the rendered
// commits read for the ledger, the Git HTTP(S) client with its open connections, and the push capabilities of
// the remotes. Make one per process (the manager and the CLI each make theirs) and share it; it is safe for
// concurrent use.
type Syncer struct {
	caches   *source.Caches
	guards   *guardMemos
	schemas  *validate.Schemas
	policies *policyMemo
	charts   *helmchart.Renderer
	onRender func(site string)
	ledger   *ledger.Log
}

// SyncerOptions configures a Syncer.
type SyncerOptions struct {
	// OnRender, when set, is called with the site's name as each kustomize build starts (a count of builds,
	// a metric); it may be called from several goroutines at once.
	OnRender func(site string)
	// OnChartRender, when set, is called each time a Helm chart is rendered rather than answered from the
	// Syncer's memo of chart renders; it may be called from several goroutines at once.
	OnChartRender func()
}

// NewSyncer makes a Syncer with nothing remembered yet.
func NewSyncer(o SyncerOptions) *Syncer {
	return &Syncer{caches: source.NewCaches(), guards: newGuardMemos(), schemas: validate.NewSchemas(),
		policies: newPolicyMemo(), charts: helmchart.New(helmchart.OnRender(o.OnChartRender)),
		onRender: o.OnRender, ledger: ledger.NewLog()}
}

// RemoveWorkDir removes workDir, the cache folder of Syncs that will not run again (say, of a deleted
// SiteSync), and drops what the Syncer remembers about the caches in it. The error is os.RemoveAll's (it
// names the path).
func (sy *Syncer) RemoveWorkDir(workDir string) error {
	prefix := filepath.Clean(workDir) + string(filepath.Separator)
	sy.guards.forget(prefix)
	sy.caches.Forget(prefix)
	sy.ledger.ForgetPrefix(prefix)
	return os.RemoveAll(workDir)
}
