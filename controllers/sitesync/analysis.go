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
	"fmt"
	"slices"
	"strings"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	analysisutil "github.com/argoproj/argo-rollouts/utils/analysis"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/sitesync/waves"
	"github.com/siteops/siteops/internal/kit"
)

// +kubebuilder:rbac:groups=argoproj.io,resources=analysisruns,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=argoproj.io,resources=analysistemplates;clusteranalysistemplates,verbs=get

// maxMeasurements is how many of a metric's last measurements status.rollout.analysis keeps.
const maxMeasurements = 5

// analysisWanted reports whether a wave of obj is verified by analysis, and the cluster runs AnalysisRuns.
func (r *Reconciler) analysisWanted(obj *gitopsv1alpha1.SiteSync) bool {
	return r.analysisObserved && slices.ContainsFunc(obj.Spec.Waves, func(w gitopsv1alpha1.Wave) bool {
		return w.Analysis != nil
	})
}

// loadAnalysisRuns reads, once per reconcile, the AnalysisRuns the SiteSync created (the manager's cache).
func (r *Reconciler) loadAnalysisRuns(ctx context.Context, run *scope) error {
	if run.analysisRuns != nil || !r.analysisWanted(run.obj) {
		return nil
	}
	list := &rolloutsv1alpha1.AnalysisRunList{}
	if err := r.List(ctx, list, client.InNamespace(run.obj.Namespace),
		client.MatchingLabels{gitopsv1alpha1.LabelSiteSync: run.obj.Name}); err != nil {
		return fmt.Errorf("listing AnalysisRuns: %w", err)
	}
	run.analysisRuns = list.Items
	if run.analysisRuns == nil {
		run.analysisRuns = []rolloutsv1alpha1.AnalysisRun{}
	}
	return nil
}

// analysesOf are the runs of revision by wave, as the planner reads them.
func analysesOf(runs []rolloutsv1alpha1.AnalysisRun, revision string) map[string]*gitopsv1alpha1.WaveAnalysisStatus {
	out := map[string]*gitopsv1alpha1.WaveAnalysisStatus{}
	for i := range runs {
		ar := &runs[i]
		if ar.Labels[gitopsv1alpha1.LabelRevision] != revisionLabel(revision) || ar.DeletionTimestamp != nil {
			continue
		}
		out[ar.Labels[gitopsv1alpha1.LabelWave]] = analysisStatus(ar)
	}
	return out
}

// analysisStatus is what status.rollout.analysis says of a run: its phase and message, and each metric that
// did not succeed with its last measurements.
func analysisStatus(ar *rolloutsv1alpha1.AnalysisRun) *gitopsv1alpha1.WaveAnalysisStatus {
	a := &gitopsv1alpha1.WaveAnalysisStatus{Wave: ar.Labels[gitopsv1alpha1.LabelWave], Run: ar.Name,
		Phase: string(ar.Status.Phase), Message: kit.Truncate(ar.Status.Message, 1024)}
	created := ar.CreationTimestamp
	a.StartedAt = &created
	if a.Phase == "" {
		a.Phase = string(rolloutsv1alpha1.AnalysisPhasePending)
	}
	for _, m := range ar.Status.MetricResults {
		if !m.Phase.Completed() || m.Phase == rolloutsv1alpha1.AnalysisPhaseSuccessful || len(a.Metrics) == 20 {
			continue
		}
		ms := gitopsv1alpha1.AnalysisMetricStatus{Name: m.Name, Phase: string(m.Phase),
			Message: kit.Truncate(m.Message, 1024)}
		for _, v := range m.Measurements[max(0, len(m.Measurements)-maxMeasurements):] {
			ms.Measurements = append(ms.Measurements, gitopsv1alpha1.AnalysisMeasurement{Phase: string(v.Phase),
				Value: kit.Truncate(v.Value, 256), FinishedAt: v.FinishedAt})
		}
		a.Metrics = append(a.Metrics, ms)
	}
	return a
}

// verifyWave creates the AnalysisRun the plan asks for, records it in status.rollout.analysis with an event,
// and prunes the SiteSync's older runs.
func (r *Reconciler) verifyWave(ctx context.Context, run *scope, plan *waves.Plan) error {
	if !r.analysisWanted(run.obj) {
		return nil
	}
	if req := plan.Analyze; req != nil {
		ar, created, err := r.createAnalysisRun(ctx, run, *req)
		if err != nil {
			return err
		}
		run.analysisRuns = append(run.analysisRuns, *ar)
		run.obj.Status.Rollout.Analysis = analysisStatus(ar)
		if created {
			r.events().Normal(run.obj, gitopsv1alpha1.EventAnalysisStarted, "wave %s: analysis run %s of %s for %s",
				req.Wave, ar.Name, short(plan.Status.Revision), strings.Join(req.Sites, ", "))
		}
	}
	return r.pruneAnalysisRuns(ctx, run, plan.Status.Revision)
}

// createAnalysisRun builds the wave's run from its templates and arguments, owned by the SiteSync, and
// creates it (created); a run of the same name (the same wave and revision, not yet in the cache) is taken as
// it is. A template that is missing or does not merge stalls the SiteSync until the next interval.
func (r *Reconciler) createAnalysisRun(ctx context.Context, run *scope, req waves.AnalysisRequest) (
	ar *rolloutsv1alpha1.AnalysisRun, created bool, err error) {
	obj := run.obj
	spec := waveAnalysis(obj, req.Wave)
	var templates []*rolloutsv1alpha1.AnalysisTemplate
	var clusterTemplates []*rolloutsv1alpha1.ClusterAnalysisTemplate
	for _, ref := range spec.Templates {
		if ref.ClusterScope {
			t := &rolloutsv1alpha1.ClusterAnalysisTemplate{}
			err = r.APIReader.Get(ctx, client.ObjectKey{Name: ref.TemplateName}, t)
			clusterTemplates = append(clusterTemplates, t)
		} else {
			t := &rolloutsv1alpha1.AnalysisTemplate{}
			err = r.APIReader.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: ref.TemplateName}, t)
			templates = append(templates, t)
		}
		if apierrors.IsNotFound(err) {
			return nil, false, kit.Stall(gitopsv1alpha1.ReasonAnalysisNotCreated,
				fmt.Errorf("wave %s: analysis template %s not found", req.Wave, templateRef(ref)))
		}
		if err != nil {
			return nil, false, fmt.Errorf("reading analysis template %s: %w", templateRef(ref), err)
		}
	}
	revision := obj.Status.Rollout.Revision
	labels := kit.InheritShard(obj, map[string]string{gitopsv1alpha1.LabelSiteSync: obj.Name,
		gitopsv1alpha1.LabelWave: req.Wave, gitopsv1alpha1.LabelRevision: revisionLabel(revision)})
	ar, err = analysisutil.NewAnalysisRunFromTemplates(templates, clusterTemplates,
		analysisArgs(obj, spec, req, revision), nil, nil, labels, nil, analysisRunName(obj.Name, req.Wave, revision), "",
		obj.Namespace)
	if err != nil {
		return nil, false, kit.Stall(gitopsv1alpha1.ReasonAnalysisNotCreated,
			fmt.Errorf("wave %s: building the AnalysisRun: %w", req.Wave, err))
	}
	if err := controllerutil.SetControllerReference(obj, ar, r.Scheme); err != nil {
		return nil, false, fmt.Errorf("owning AnalysisRun %s: %w", ar.Name, err)
	}
	err = r.Create(ctx, ar)
	created = err == nil
	if apierrors.IsAlreadyExists(err) {
		err = r.APIReader.Get(ctx, client.ObjectKeyFromObject(ar), ar)
	}
	if err != nil {
		return nil, false, fmt.Errorf("creating AnalysisRun %s: %w", ar.Name, err)
	}
	return ar, created, nil
}

// waveAnalysis is spec.waves[].analysis of the wave named name.
func waveAnalysis(obj *gitopsv1alpha1.SiteSync, name string) gitopsv1alpha1.WaveAnalysis {
	for _, w := range obj.Spec.Waves {
		if w.Name == name && w.Analysis != nil {
			return *w.Analysis
		}
	}
	return gitopsv1alpha1.WaveAnalysis{}
}

// analysisArgs are the spec's arguments and the ones siteops sets: site, sites, wave, revision and
// renderedCommit (the rendered commit of the wave's first site).
func analysisArgs(obj *gitopsv1alpha1.SiteSync, spec gitopsv1alpha1.WaveAnalysis, req waves.AnalysisRequest,
	revision string) []rolloutsv1alpha1.Argument {
	var args []rolloutsv1alpha1.Argument
	for _, a := range spec.Args {
		args = append(args, rolloutsv1alpha1.Argument{Name: a.Name, Value: ptr.To(a.Value)})
	}
	first, commit := "", ""
	if len(req.Sites) > 0 {
		first = req.Sites[0]
		commit = renderedCommitOf(obj, first)
	}
	for name, value := range map[string]string{
		gitopsv1alpha1.AnalysisArgSite: first, gitopsv1alpha1.AnalysisArgSites: strings.Join(req.Sites, ","),
		gitopsv1alpha1.AnalysisArgWave: req.Wave, gitopsv1alpha1.AnalysisArgRevision: revision,
		gitopsv1alpha1.AnalysisArgRenderedCommit: commit,
	} {
		args = append(args, rolloutsv1alpha1.Argument{Name: name, Value: ptr.To(value)})
	}
	return args
}

// renderedCommitOf is the rendered commit the site named name runs.
func renderedCommitOf(obj *gitopsv1alpha1.SiteSync, name string) string {
	for _, s := range obj.Status.Sites {
		if s.Name == name {
			return s.RenderedCommit
		}
	}
	return ""
}

// revisionLabel is the value of LabelRevision for revision: a label value holds at most 63 characters.
func revisionLabel(revision string) string { return revision[:min(len(revision), 40)] }

// analysisRunName is the run of one wave and revision: <sitesync>-<wave>-<revision's first 10 characters>,
// the SiteSync's name shortened so the whole stays a valid object name.
func analysisRunName(siteSync, wave, revision string) string {
	suffix := "-" + wave + "-" + revision[:min(10, len(revision))]
	return siteSync[:min(len(siteSync), 253-len(suffix))] + suffix
}

// templateRef names a template reference for messages.
func templateRef(ref gitopsv1alpha1.AnalysisTemplateRef) string {
	if ref.ClusterScope {
		return "ClusterAnalysisTemplate " + ref.TemplateName
	}
	return "AnalysisTemplate " + ref.TemplateName
}

// pruneAnalysisRuns stops the unfinished runs of older revisions (a newer revision supersedes them) and
// deletes the oldest runs past spec.analysisRunHistoryLimit, keeping every run of the current revision.
func (r *Reconciler) pruneAnalysisRuns(ctx context.Context, run *scope, revision string) error {
	limit := gitopsv1alpha1.DefaultAnalysisRunHistoryLimit
	if l := run.obj.Spec.AnalysisRunHistoryLimit; l != nil {
		limit = int(*l)
	}
	isCurrent := func(ar *rolloutsv1alpha1.AnalysisRun) bool {
		return ar.Labels[gitopsv1alpha1.LabelRevision] == revisionLabel(revision)
	}
	// The current revision's runs first (always kept), then the others newest first. Creation times have
	// one-second resolution: the name breaks ties, so an older run never takes a current run's place.
	runs := slices.Clone(run.analysisRuns)
	slices.SortFunc(runs, func(a, b rolloutsv1alpha1.AnalysisRun) int {
		if ca, cb := isCurrent(&a), isCurrent(&b); ca != cb {
			if ca {
				return -1
			}
			return 1
		}
		if c := b.CreationTimestamp.Compare(a.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name)
	})
	kept := 0
	for i := range runs {
		ar := &runs[i]
		if ar.DeletionTimestamp != nil {
			continue
		}
		current := isCurrent(ar)
		if current || kept < limit {
			kept++
			if !current && !ar.Status.Phase.Completed() && !ar.Spec.Terminate {
				if err := r.terminate(ctx, ar); err != nil {
					return err
				}
			}
			continue
		}
		err := r.Delete(ctx, ar, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting AnalysisRun %s past the history limit: %w", ar.Name, err)
		}
	}
	return nil
}

// terminate asks Argo Rollouts to stop a run of a superseded revision.
func (r *Reconciler) terminate(ctx context.Context, ar *rolloutsv1alpha1.AnalysisRun) error {
	patch := client.MergeFrom(ar.DeepCopy())
	ar.Spec.Terminate = true
	if err := r.Patch(ctx, ar, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("terminating superseded AnalysisRun %s: %w", ar.Name, err)
	}
	return nil
}
