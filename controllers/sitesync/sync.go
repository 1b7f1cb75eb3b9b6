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

// errCacheBehind is returned when the manager's cache holds an older spec than the apiserver: the update
// event that brings the newer one reconciles again.
var errCacheBehind = errors.New("the manager's cache holds an older SiteSync than the apiserver; waiting for it")

// freshStatus makes a sync plan on the status as stored, not as the manager's cache holds it. The cache can
// lag behind this controller's own last write: an Application's change may trigger the reconcile right after
// the one that published a wave, before the cache shows that wave's status. A rollout planned on the older
// status would count the wave's sites, whose folders already hold the revision, as unchanged by it, and
// publish the next wave before the first one was healthy. One uncached read per sync, which fetches from Git
// anyway, closes that window.
func (r *Reconciler) freshStatus(ctx context.Context, run *scope) error {
	stored := &gitopsv1alpha1.SiteSync{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(run.obj), stored); err != nil {
		return fmt.Errorf("reading the stored SiteSync: %w", err)
	}
	if stored.ResourceVersion == run.obj.ResourceVersion {
		return nil
	}
	if stored.Generation != run.obj.Generation {
		return errCacheBehind
	}
	logf.FromContext(ctx).V(1).Info("planning on the stored status: the cache is behind",
		"cached", run.obj.ResourceVersion, "stored", stored.ResourceVersion)
	run.obj.ResourceVersion, run.obj.Annotations = stored.ResourceVersion, stored.Annotations
	run.obj.Status = *stored.Status.DeepCopy()
	run.base, run.before, run.beforeSites = stored, *stored.Status.DeepCopy(), nil
	return nil
}

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
			Auth: run.target, SigningKey: run.signingKey, OCI: ociTarget(run)},
		OverlaysDir: spec.Source.OverlaysDir,
		Sites:       append([]string(nil), spec.Sites...),
		WorkDir:     workDir,
		Provenance:  gitops.ProvenanceOptions{SiteSync: run.obj.Namespace + "/" + run.obj.Name},
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
	if p := spec.Policy; p != nil {
		opts.Policy = gitops.PolicyOptions{Paths: append([]string(nil), p.Paths...)}
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
				Policy:               previousPolicy(s.Policy),
				OCI:                  previousOCI(s.OCI),
			}
		}
	}
	return opts
}
