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
	"time"

	"github.com/go-logr/logr"

	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/gitops/render"
	"github.com/siteops/siteops/gitops/source"
)

// Defaults of the options.
const (
	DefaultTargetBranch = "rendered"
	DefaultPathTemplate = "{{.Site}}"
	DefaultOverlaysDir  = "overlays"
	DefaultWorkers      = render.DefaultWorkers
	DefaultCommitAuthor = publish.DefaultCommitAuthor
	// ManifestFile is the file holding a site's rendered objects under its path on the target branch.
	ManifestFile = publish.ManifestFile
)

// Commit trailers: on every rendered commit, and of a gated publish.
const (
	TrailerSourceRevision = publish.TrailerSourceRevision
	TrailerSites          = publish.TrailerSites
	TrailerVersion        = publish.TrailerVersion
	TrailerRevertOf       = publish.TrailerRevertOf
	TrailerFreezeOverride = publish.TrailerFreezeOverride
	// TrailerPolicy carries, once per site the commit publishes, what the admission policies made of the
	// site's output: "Siteops-Policy: dev: 4 passed, 1 warned".
	TrailerPolicy = "Siteops-Policy"
)

// Trailer is a commit trailer line "Key: Value".
type Trailer = publish.Trailer

// Auth holds Git credentials, always read by the caller from a Kubernetes Secret (never logged).
type Auth = source.Auth

// SourceSpec names the source repository and revision.
type SourceSpec = source.Spec

// TargetSpec names where rendered output goes. Branch defaults to "rendered", PathTemplate (a text/template
// over {{.Site}}) to "{{.Site}}".
type TargetSpec struct {
	URL, Branch, PathTemplate string
	Auth                      *Auth
	// SigningKey, when set, signs every commit pushed to the target branch.
	SigningKey *publish.SigningKey
	// OCI, when set, also publishes each site's folder as an OCI artifact once the rendered commit is pushed.
	OCI *OCITarget
}

// SyncOptions configures one Sync call.
type SyncOptions struct {
	Source      SourceSpec
	Target      TargetSpec // URL "" = same as Source.URL
	OverlaysDir string     // default "overlays"
	Sites       []string   // empty = every folder under OverlaysDir with a kustomization
	WorkDir     string     // cache dir for clones (reused across calls for incremental fetch)
	// Previous is the last known per-site state (from status), so a restart does not re-render everything.
	Previous map[string]SiteState
	// PreviousHead is the target branch's head when Previous was recorded (status.renderedRevision). When the
	// branch has moved since, Previous can predate commits that changed sites' folders (a status read from a
	// cache that lags this manager's own last sync), so each site's rendered commit is read from the branch.
	PreviousHead string
	Workers      int // render pool size, default 2
	Logger       logr.Logger
	CommitAuthor string // default "siteops <siteops@localhost>"
	// Gate, when set, chooses after rendering which sites are published and which get older output back
	// (waves, freeze windows, reverts); nil publishes every rendered site.
	Gate PublishGate
	// Validation says what each site's rendered objects are checked against before they are published.
	Validation ValidationOptions
	// Provenance says what the sites' attestations record besides the source, inputs and output; they are
	// written when Target.SigningKey is set.
	Provenance ProvenanceOptions
	// Policy names the admission policies each site's rendered objects must pass before they are published.
	Policy PolicyOptions

	// beforePush, when set (tests only), runs before each push attempt with the attempt number (0-based).
	beforePush func(attempt int)
}

// SiteState is the outcome of one site in a Sync.
type SiteState struct {
	Name                 string
	InputDigest          string        // digest of every file the site's kustomization graph reaches
	Ready                bool          // the site's current inputs are rendered and on the target branch
	Reason               FailureReason // why the site failed, "" when Ready
	Message              string        // kustomize or guard error, or "" ; never contains credentials
	Warnings             []string      // e.g. deprecated `bases:` / `patchesStrategicMerge:`
	Rendered             bool          // re-rendered in this call (false = skipped, inputs unchanged)
	RenderDuration       time.Duration // wall time of this call's kustomize build of the site (0 when not rendered)
	LastRenderedRevision string        // source SHA whose output is on the target branch for this site
	// RenderedCommit is the target-branch commit that last changed the site's folder: this call's pushed
	// commit when it changed the folder, else Previous[site].RenderedCommit ("" when unknown).
	RenderedCommit string
	// Held is true when the site's new output differs from its folder but the gate held it back: the folder
	// keeps its previous output, and InputDigest its previous digest.
	Held bool
	// Policy is what the admission policies made of the site's output, nil when none were checked.
	Policy *PolicyResult
	// OCI is the site's artifact in Target.OCI's repository, nil without one or before the site's folder was
	// first published.
	OCI *OCIState
}

// SyncResult is the outcome of a Sync.
type SyncResult struct {
	SourceRevision   string    // source commit SHA that was rendered
	SourceTime       time.Time // its committer time
	RenderedRevision string    // head of the target branch after the call
	Pushed           bool      // a new commit was pushed
	// ChangedSites are the sites whose folders the pushed commit changed (rendered, restored or removed),
	// sorted by name; empty when nothing was pushed.
	ChangedSites   []string
	Sites          []SiteState // sorted by name
	ForeignCommits []string    // commits on the target branch not made by siteops since the last siteops commit
	PushRetries    int
	// OCIError joins the failures to publish sites to Target.OCI (each site's OCI.Message has its own), nil
	// when every site is published; IsPermanent reports whether retrying is pointless. The Git output is
	// published either way.
	OCIError error
}
