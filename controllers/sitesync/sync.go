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
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
)

// runSync calls gitops.Sync with the SiteSync's spec, the credentials and the per-site state of the last sync,
// bounded by spec.timeout. Errors the library calls permanent stall the SiteSync.
func (r *Reconciler) runSync(ctx context.Context, run *scope) error {
	ctx, cancel := context.WithTimeout(ctx, timeout(run.obj))
	defer cancel()
	key := client.ObjectKeyFromObject(run.obj)
	opts := syncOptions(run, r.workDir(key))
	opts.Logger = logf.FromContext(ctx).WithName("gitops")
	opts.Gate = r.gate(run)

	start := r.Clock.Now()
	result, err := r.sync(ctx, opts)
	r.Metrics.synced(key, r.Clock.Since(start))
	if err != nil {
		if errors.Is(err, source.ErrSourceNotVerified) {
			return kit.Stall(gitopsv1alpha1.ReasonSourceNotVerified, err)
		}
		if gitops.IsPermanent(err) {
			return kit.Stall(gitopsv1alpha1.ReasonPermanentError, fmt.Errorf("syncing: %w", err))
		}
		return fmt.Errorf("syncing: %w", err)
	}
	run.result = result
	return nil
}

// syncOptions maps the spec to gitops.SyncOptions. Previous is the per-site state from status, used only
// when that status describes the current spec (a changed spec re-renders every site).
func syncOptions(run *scope, workDir string) gitops.SyncOptions {
	spec := run.obj.Spec
	opts := gitops.SyncOptions{
		Source: gitops.SourceSpec{URL: spec.Source.URL, Ref: spec.Source.Ref, Auth: run.source, Verify: run.trusted},
		Target: gitops.TargetSpec{URL: spec.Target.URL, Branch: spec.Target.Branch, PathTemplate: spec.Target.PathTemplate,
			Auth: run.target, SigningKey: run.signingKey},
		OverlaysDir: spec.Source.OverlaysDir,
		Sites:       append([]string(nil), spec.Sites...),
		WorkDir:     workDir,
	}
	if v := spec.Validation; v != nil {
		opts.Validation = gitops.ValidationOptions{Mode: gitops.ValidationMode(v.Mode),
			KubernetesVersion: string(v.KubernetesVersion), CRDPaths: append([]string(nil), v.CRDs...)}
		for site, version := range v.SiteKubernetesVersions {
			if opts.Validation.SiteKubernetesVersions == nil {
				opts.Validation.SiteKubernetesVersions = map[string]string{}
			}
			opts.Validation.SiteKubernetesVersions[site] = string(version)
		}
	}

	if run.before.ObservedGeneration == run.obj.Generation && len(run.before.Sites) > 0 {
		opts.Previous = make(map[string]gitops.SiteState, len(run.before.Sites))
		opts.PreviousHead = run.before.RenderedRevision
		for _, s := range run.before.Sites {
			opts.Previous[s.Name] = gitops.SiteState{
				Name:                 s.Name,
				InputDigest:          s.InputDigest,
				Ready:                s.Ready,
				Reason:               gitops.FailureReason(s.Reason),
				Message:              s.Message,
				Warnings:             append([]string(nil), s.Warnings...),
				LastRenderedRevision: s.LastRenderedRevision,
				RenderedCommit:       s.RenderedCommit,
			}
		}
	}
	return opts
}
