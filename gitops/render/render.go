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

// Package render builds a site's kustomization in process with krusty, from exactly the files the guard
// passed, in memory: plugins, functions and the helm binary off (charts render in process), remote resources
// unreachable, panics recovered.
package render

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/helmchart"
)

// openAPIMu serializes builds that set kustomize's process-wide OpenAPI schema (`openapi:`) against all other
// builds, and resets the schema after them so no site sees another's. It is the one package-level variable of
// the library on purpose: the schema it guards belongs to the process, not to a Syncer, so two Syncers in one
// process must share the lock.
var openAPIMu sync.RWMutex

// DefaultWorkers is the number of builds Pool runs at a time when it is given none.
const DefaultWorkers = 2

// imagesDir is the synthetic folder of the kustomization that applies --image overrides.
const imagesDir = ".siteops-images"

// Options are what a build takes besides its files.
type Options struct {
	// Images are image overrides applied over the kustomization.
	Images []kusttypes.Image
	// OnBuild, when set, is called as the build starts.
	OnBuild func()
	// Charts renders the helmCharts; nil renders them with a Renderer of this build alone.
	Charts *helmchart.Renderer
	// KubeVersion is the site's Kubernetes version, the charts' .Capabilities.KubeVersion.
	KubeVersion string
}

// Build builds the kustomization in folder dir from exactly the guarded files, in memory: kustomize can
// read nothing else, runs no plugin, function or helm binary, and fetches nothing; Helm charts render in
// process. Output is kustomize's YAML stream in krusty's resource order (no reorder), deterministic for the
// same inputs.
func Build(in *guard.Inputs, dir string, o Options) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("kustomize panicked: %v", r)
		}
	}()
	hv, err := findHelmValues(in)
	if err != nil {
		return nil, err
	}
	staged := func(kf string) []byte {
		if b, ok := hv.kusts[kf]; ok {
			return b
		}
		return in.Files[kf]
	}
	if o.Charts == nil && (len(in.Charts) > 0 || len(in.ReleaseCharts) > 0) {
		o.Charts = helmchart.New() // a memo of this build alone
	}
	charts, err := inflateCharts(in, staged, o.Charts, o.KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", guard.DisplayDir(dir), err)
	}
	fs := filesys.MakeFsInMemory()
	kust := map[string]bool{}
	for _, k := range in.KustFiles {
		kust[k] = true
	}
	stage := func(p string, b []byte) error {
		if err := fs.MkdirAll(path.Dir("/" + p)); err != nil {
			return fmt.Errorf("staging %s: %w", p, err)
		}
		if err := fs.WriteFile("/"+p, b); err != nil {
			return fmt.Errorf("staging %s: %w", p, err)
		}
		return nil
	}
	for p, b := range in.Files {
		if kust[p] {
			b = staged(p)
			if rewritten, ok := charts.kusts[p]; ok {
				b = rewritten
			}
			b = compatKustomization(b)
		}
		if err := stage(p, b); err != nil {
			return nil, err
		}
	}
	for p, b := range charts.files {
		if err := stage(p, b); err != nil {
			return nil, err
		}
	}
	target := "/" + dir
	if len(o.Images) > 0 {
		if target, err = stageImages(fs, in, dir, o.Images); err != nil {
			return nil, err
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = kusttypes.LoadRestrictionsRootOnly
	opts.PluginConfig = kusttypes.DisabledPluginConfig()
	opts.PluginConfig.HelmConfig.Enabled = false

	if in.OpenAPI {
		openAPIMu.Lock()
		defer func() { openapi.ResetOpenAPI(); openAPIMu.Unlock() }()
	} else {
		openAPIMu.RLock()
		defer openAPIMu.RUnlock()
	}
	if o.OnBuild != nil {
		o.OnBuild()
	}
	m, err := krusty.MakeKustomizer(opts).Run(fs, target)
	if err != nil {
		// kustomize names neither the file nor the line of a YAML mistake ("unable to parse SM or JSON
		// patch"): when one of the YAML files it read does not parse, that is the error to report.
		if yerr := in.CheckYAML(); yerr != nil {
			err = yerr
		}
		return nil, fmt.Errorf("kustomize build %s: %w", guard.DisplayDir(dir), err)
	}
	if err := hv.apply(m); err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", guard.DisplayDir(dir), err)
	}
	if err := inflateReleases(m, in, o.Charts, o.KubeVersion); err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", guard.DisplayDir(dir), err)
	}
	if err := refusePlaintextSecrets(m); err != nil {
		return nil, err
	}
	out, err = asYAML(m)
	if err != nil {
		return nil, fmt.Errorf("serializing %s: %w", guard.DisplayDir(dir), err)
	}
	return out, nil
}

// stageImages writes a kustomization that applies images over dir and returns its folder.
func stageImages(fs filesys.FileSystem, in *guard.Inputs, dir string, images []kusttypes.Image) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("image overrides need a kustomization below the checkout root")
	}
	if _, clash := in.Files[imagesDir+"/kustomization.yaml"]; clash {
		return "", fmt.Errorf("the checkout already has %s", imagesDir)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "resources:\n- %q\nimages:\n", "../"+dir)
	for _, im := range images {
		fmt.Fprintf(&b, "- name: %q\n", im.Name)
		if im.NewName != "" {
			fmt.Fprintf(&b, "  newName: %q\n", im.NewName)
		}
		if im.NewTag != "" {
			fmt.Fprintf(&b, "  newTag: %q\n", im.NewTag)
		}
		if im.Digest != "" {
			fmt.Fprintf(&b, "  digest: %q\n", im.Digest)
		}
	}
	if err := fs.MkdirAll("/" + imagesDir); err != nil {
		return "", fmt.Errorf("staging image overrides: %w", err)
	}
	if err := fs.WriteFile("/"+imagesDir+"/kustomization.yaml", []byte(b.String())); err != nil {
		return "", fmt.Errorf("staging image overrides: %w", err)
	}
	return "/" + imagesDir, nil
}

// ParseImage parses an image override as `name=newName[:tag][@digest]` or `name:tag`.
func ParseImage(s string) (kusttypes.Image, error) {
	name, repl, hasEq := strings.Cut(s, "=")
	if name == "" || (hasEq && repl == "") {
		return kusttypes.Image{}, fmt.Errorf("image override %q: want name=newName[:tag][@digest]", s)
	}
	im := kusttypes.Image{Name: name}
	if !hasEq {
		n, tag, ok := strings.Cut(name, ":")
		if !ok || tag == "" {
			return kusttypes.Image{}, fmt.Errorf("image override %q: want name=newName[:tag][@digest]", s)
		}
		return kusttypes.Image{Name: n, NewTag: tag}, nil
	}
	if r, digest, ok := strings.Cut(repl, "@"); ok {
		repl, im.Digest = r, digest
	}
	if i := strings.LastIndex(repl, ":"); i > strings.LastIndex(repl, "/") {
		repl, im.NewTag = repl[:i], repl[i+1:]
	}
	im.NewName = repl
	return im, nil
}

// PlaintextSecretError is the failure of a build that renders a core Secret with data or stringData.
type PlaintextSecretError struct{ err error }

func (e *PlaintextSecretError) Error() string { return e.err.Error() }
func (e *PlaintextSecretError) Unwrap() error { return e.err }

// refusePlaintextSecrets fails a build that renders a core Secret with data or stringData.
func refusePlaintextSecrets(m resmap.ResMap) error {
	for _, r := range m.Resources() {
		if r.GetKind() != "Secret" || r.GetApiVersion() != "v1" {
			continue
		}
		for _, field := range []string{"data", "stringData"} {
			if f := r.Field(field); f != nil && !f.Value.IsNilOrEmpty() {
				id := r.GetName()
				if ns := r.GetNamespace(); ns != "" {
					id = ns + "/" + id
				}
				return &PlaintextSecretError{fmt.Errorf("secret %q carries plaintext %s: keep secrets out of Git "+
					"(use SealedSecrets or ExternalSecrets)", id, field)}
			}
		}
	}
	return nil
}

// Job is one site to build.
type Job struct {
	Name        string
	Dir         string // kustomization folder, relative to the checkout's root
	In          *guard.Inputs
	KubeVersion string // the site's Kubernetes version (Options.KubeVersion)
}

// PoolOptions are what every build of a Pool shares.
type PoolOptions struct {
	Workers int               // builds at a time; < 1 means DefaultWorkers
	Images  []kusttypes.Image // Options.Images
	Charts  *helmchart.Renderer
	// OnRender, when set, is called with the site's name as each build starts.
	OnRender func(site string)
}

// Result is the outcome of a Job.
type Result struct {
	YAML []byte
	Err  error
	Took time.Duration // wall time of the build (0 when the job never started)
}

// Pool builds jobs with at most o.Workers builds at a time; results are in job order. A cancelled ctx
// stops jobs that have not started. done, when set, is called (from the worker) as each job finishes and
// takes the output: the returned results then hold no YAML, so the pool never keeps every site's bytes.
func Pool(ctx context.Context, jobs []Job, o PoolOptions, done func(i int, r Result)) []Result {
	workers := o.Workers
	if workers < 1 {
		workers = DefaultWorkers
	}
	results := make([]Result, len(jobs))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, j := range jobs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			results[i].Err = fmt.Errorf("rendering %s: %w", j.Name, ctx.Err())
			if done != nil {
				done(i, results[i])
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := ctx.Err(); err != nil {
				results[i].Err = fmt.Errorf("rendering %s: %w", j.Name, err)
			} else {
				start := time.Now()
				bo := Options{Images: o.Images, Charts: o.Charts, KubeVersion: j.KubeVersion}
				if o.OnRender != nil {
					bo.OnBuild = func() { o.OnRender(j.Name) }
				}
				results[i].YAML, results[i].Err = Build(j.In, j.Dir, bo)
				results[i].Took = time.Since(start)
			}
			if done != nil {
				done(i, results[i])
				results[i].YAML = nil
			}
		}()
	}
	wg.Wait()
	return results
}
