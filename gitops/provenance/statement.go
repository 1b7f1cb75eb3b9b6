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

// Package provenance describes how siteops made a site's rendered output, in a form supply-chain tools read: an
// in-toto Statement (v1) whose subject is the site's folder on the rendered branch and whose predicate is SLSA
// provenance (v1) naming the source repository and commit, the digests of the input files the guard passed,
// the renderer's version and module digest, and the policy results. Statements travel signed, as DSSE
// envelopes, on the rendered branch itself (AttestationPath), in the commit that writes the folder.
package provenance

import (
	"slices"
	"strings"

	"github.com/siteops/siteops/internal/version"
)

// The types and URIs of what siteops writes.
const (
	// StatementType is the in-toto Statement's _type.
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType is SLSA provenance v1.
	PredicateType = "https://slsa.dev/provenance/v1"
	// PayloadType is the DSSE payload type of an in-toto Statement.
	PayloadType = "application/vnd.in-toto+json"
	// BuildType names how siteops renders a site; docs/trust.md#provenance describes its parameters.
	BuildType = "https://github.com/siteops/siteops/blob/main/docs/trust.md#provenance"
	// BuilderID names the siteops SiteSync renderer as the builder.
	BuilderID = "https://github.com/siteops/siteops/gitops#sitesync"
)

// Statement is an in-toto Statement (v1) with an SLSA provenance (v1) predicate.
type Statement struct {
	Type          string               `json:"_type"`
	Subject       []ResourceDescriptor `json:"subject"`
	PredicateType string               `json:"predicateType"`
	Predicate     Provenance           `json:"predicate"`
}

// ResourceDescriptor is an in-toto ResourceDescriptor: a file, a file set or a repository and its digests.
type ResourceDescriptor struct {
	Name        string            `json:"name,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Digest      map[string]string `json:"digest,omitempty"`
	Annotations map[string]any    `json:"annotations,omitempty"`
}

// Provenance is the SLSA provenance (v1) predicate.
type Provenance struct {
	BuildDefinition BuildDefinition `json:"buildDefinition"`
	RunDetails      RunDetails      `json:"runDetails"`
}

// BuildDefinition is what was built from what.
type BuildDefinition struct {
	BuildType            string               `json:"buildType"`
	ExternalParameters   ExternalParameters   `json:"externalParameters"`
	InternalParameters   InternalParameters   `json:"internalParameters"`
	ResolvedDependencies []ResourceDescriptor `json:"resolvedDependencies"`
}

// ExternalParameters are the inputs a user controls: the site, the SiteSync and the source it names.
type ExternalParameters struct {
	Site string `json:"site"`
	// SiteSync is "namespace/name" of the SiteSync that published the site ("" outside the controller).
	SiteSync string `json:"siteSync,omitempty"`
	Source   Source `json:"source"`
}

// Source is the source repository as the SiteSync names it (without credentials).
type Source struct {
	URL         string `json:"url"`
	Ref         string `json:"ref,omitempty"`
	OverlaysDir string `json:"overlaysDir"`
}

// InternalParameters are what siteops derived: the site's input digest, as its status shows it.
type InternalParameters struct {
	InputDigest string `json:"inputDigest,omitempty"`
}

// RunDetails names the builder, and carries the policy results as a byproduct.
type RunDetails struct {
	Builder    Builder              `json:"builder"`
	Byproducts []ResourceDescriptor `json:"byproducts,omitempty"`
}

// Builder is siteops: its version, the Go module's version and go.sum digest, and the VCS revision.
type Builder struct {
	ID      string            `json:"id"`
	Version map[string]string `json:"version,omitempty"`
}

// PolicyByproduct is the name of the byproduct that carries a site's policy results.
const PolicyByproduct = "siteops.dev/policy-results"

// PolicyResults are the outcome of the admission policies evaluated against a site's rendered objects before
// publish, as the rendered commit's Siteops-Policy trailer and the site's status give them.
type PolicyResults struct {
	// Digest identifies the policy documents the objects were checked against.
	Digest string
	// Summary counts the verdicts, e.g. "4 passed, 1 warned".
	Summary string
	// Findings are the verdicts other than passed (warned, audited, skipped), each naming the object, the
	// policy and the binding.
	Findings []string
}

// Input is what a site's statement is made of.
type Input struct {
	Site, SiteSync string
	Source         Source
	SourceCommit   string
	// Folder is the site's folder on the rendered branch; Files its files (relative path → bytes).
	Folder string
	Files  map[string][]byte
	// OverlayDir is the site's overlay folder; Inputs are the files the guard passed (path → bytes), the
	// overlay's and the shared ones (bases, components) alike.
	OverlayDir  string
	Inputs      map[string][]byte
	InputDigest string
	Builder     version.Build
	// Policy is nil when no policy was evaluated; the statement then has no policy byproduct.
	Policy *PolicyResults
}

// NewStatement is the statement of in. The same input gives the same statement.
func NewStatement(in Input) Statement {
	overlay, shared := map[string][]byte{}, map[string][]byte{}
	prefix := strings.TrimSuffix(in.OverlayDir, "/") + "/"
	for p, b := range in.Inputs {
		if strings.HasPrefix(p, prefix) {
			overlay[p] = b
		} else {
			shared[p] = b
		}
	}
	deps := []ResourceDescriptor{{
		Name: "source", URI: sourceURI(in.Source),
		Digest: map[string]string{"gitCommit": in.SourceCommit},
	}, fileSet("inputs/overlay", overlay, map[string]any{"path": in.OverlayDir}),
		fileSet("inputs/shared", shared, nil)}
	st := Statement{
		Type: StatementType, Subject: Subjects(in.Folder, in.Files), PredicateType: PredicateType,
		Predicate: Provenance{
			BuildDefinition: BuildDefinition{
				BuildType:            BuildType,
				ExternalParameters:   ExternalParameters{Site: in.Site, SiteSync: in.SiteSync, Source: in.Source},
				InternalParameters:   InternalParameters{InputDigest: in.InputDigest},
				ResolvedDependencies: deps,
			},
			RunDetails: RunDetails{Builder: builder(in.Builder)},
		},
	}
	if in.Policy != nil {
		st.Predicate.RunDetails.Byproducts = []ResourceDescriptor{in.Policy.descriptor()}
	}
	return st
}

// SourceCommit is the source commit the statement names, or "".
func (s Statement) SourceCommit() string {
	for _, d := range s.Predicate.BuildDefinition.ResolvedDependencies {
		if d.Name == "source" {
			return d.Digest["gitCommit"]
		}
	}
	return ""
}

// sourceURI is the SLSA-style URI of the source: git+URL@REF.
func sourceURI(s Source) string {
	u := s.URL
	if !strings.Contains(u, "://") {
		u = "ssh://" + u
	}
	if s.Ref == "" {
		return "git+" + u
	}
	return "git+" + u + "@" + s.Ref
}

// fileSet describes a set of input files: their paths and the digest of the set (SetDigest).
func fileSet(name string, files map[string][]byte, annotations map[string]any) ResourceDescriptor {
	if annotations == nil {
		annotations = map[string]any{}
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	annotations["files"] = paths
	return ResourceDescriptor{Name: name, Digest: map[string]string{"sha256": SetDigest(files)},
		Annotations: annotations}
}

// builder is the Builder of b, with the version fields it knows.
func builder(b version.Build) Builder {
	v := map[string]string{"siteops": b.Version}
	for k, s := range map[string]string{"goModule": version.Module, "goModuleVersion": b.ModuleVersion,
		"goModuleSum": b.ModuleSum, "vcsRevision": b.Revision} {
		if s != "" {
			v[k] = s
		}
	}
	return Builder{ID: BuilderID, Version: v}
}

// descriptor is the policy byproduct.
func (p *PolicyResults) descriptor() ResourceDescriptor {
	findings := p.Findings
	if findings == nil {
		findings = []string{}
	}
	digest := map[string]string{"sha256": strings.TrimPrefix(p.Digest, "sha256:")}
	return ResourceDescriptor{Name: PolicyByproduct, Digest: digest,
		Annotations: map[string]any{"summary": p.Summary, "findings": findings}}
}
