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

// Package sitesynctest holds the SiteSync part of the admission matrix, shared by the controller tests and
// the reliability test that counts the whole matrix: a valid SiteSync and the invalid changes to it, each with
// the field path it must be rejected with.
package sitesynctest

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// Valid returns a SiteSync the apiserver accepts: an https source at main, everything else defaulted.
func Valid(ns string) *gitopsv1alpha1.SiteSync {
	return &gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "valid"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{
			URL: "https://git.example/acme/config.git", Ref: "main",
		}},
	}
}

// Invalid is one row of the admission matrix.
type Invalid struct {
	// Name describes what is wrong.
	Name string
	// Mutate breaks a Valid SiteSync.
	Mutate func(*gitopsv1alpha1.SiteSync)
	// Field is the field path the rejection must name.
	Field string
}

// InvalidSiteSyncs returns the SiteSync rows. SiteSync has no webhook: the CRD's schema and CEL rules reject
// every row on their own. (A Secret that lacks the keys a secretRef needs cannot be judged at admission; the
// controller stalls on it, see controllers/sitesync's credentials tests.)
func InvalidSiteSyncs() []Invalid {
	d := func(s string) *metav1.Duration {
		v, err := time.ParseDuration(s)
		if err != nil {
			panic(err)
		}
		return &metav1.Duration{Duration: v}
	}
	type S = gitopsv1alpha1.SiteSync
	return []Invalid{
		{"ftp url", func(s *S) { s.Spec.Source.URL = "ftp://git.example/r.git" }, "spec.source.url"},
		{"git protocol url", func(s *S) { s.Spec.Source.URL = "git://git.example/r.git" }, "spec.source.url"},
		{"relative path url", func(s *S) { s.Spec.Source.URL = "../config" }, "spec.source.url"},
		{"url with space", func(s *S) { s.Spec.Source.URL = "https://git.example/a b.git" }, "spec.source.url"},
		{"empty url", func(s *S) { s.Spec.Source.URL = "" }, "spec.source.url"},
		{"target url scheme", func(s *S) { s.Spec.Target.URL = "javascript:alert(1)" }, "spec.target.url"},
		{"interval below 10s", func(s *S) { s.Spec.Interval = d("5s") }, "spec.interval"},
		{"interval zero", func(s *S) { s.Spec.Interval = d("0s") }, "spec.interval"},
		{"timeout below 1s", func(s *S) { s.Spec.Timeout = d("500ms") }, "spec.timeout"},
		{"site with upper case", func(s *S) { s.Spec.Sites = []string{"dev", "Prod"} }, "spec.sites[1]"},
		{"site with underscore", func(s *S) { s.Spec.Sites = []string{"eu_west"} }, "spec.sites[0]"},
		{"site path escape", func(s *S) { s.Spec.Sites = []string{"../x"} }, "spec.sites[0]"},
		{"site too long", func(s *S) { s.Spec.Sites = []string{strings.Repeat("a", 64)} }, "spec.sites[0]"},
		{"duplicate sites", func(s *S) { s.Spec.Sites = []string{"dev", "dev"} }, "spec.sites[1]"},
		{"overlays dir escapes", func(s *S) { s.Spec.Source.OverlaysDir = "x/../../etc" }, "spec.source.overlaysDir"},
		{"overlays dir absolute", func(s *S) { s.Spec.Source.OverlaysDir = "/proc" }, "spec.source.overlaysDir"},
		{"ref with space", func(s *S) { s.Spec.Source.Ref = "my branch" }, "spec.source.ref"},
		{"ref with dot dot", func(s *S) { s.Spec.Source.Ref = "a..b" }, "spec.source.ref"},
		{"branch option injection", func(s *S) { s.Spec.Target.Branch = "--force" }, "spec.target.branch"},
		{"branch lock suffix", func(s *S) { s.Spec.Target.Branch = "rendered.lock" }, "spec.target.branch"},
		{"target branch is the source ref", func(s *S) { s.Spec.Target.Branch = "main" }, "spec.target.branch"},
		{"path template without site", func(s *S) { s.Spec.Target.PathTemplate = "all" }, "spec.target.pathTemplate"},
		{"path template escapes", func(s *S) { s.Spec.Target.PathTemplate = "../{{.Site}}" }, "spec.target.pathTemplate"},
		{"empty secret name", func(s *S) {
			s.Spec.Source.SecretRef = &gitopsv1alpha1.LocalSecretReference{}
		}, "spec.source.secretRef.name"},
		{"bad secret name", func(s *S) {
			s.Spec.Target.SecretRef = &gitopsv1alpha1.LocalSecretReference{Name: "Git_Creds"}
		}, "spec.target.secretRef.name"},
		{"receiver without secret", func(s *S) { s.Spec.Receiver = &gitopsv1alpha1.Receiver{} },
			"spec.receiver.secretRef.name"},
		{"site in two waves", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"}},
				{Name: "two", Sites: []string{"prod", "dev"}}}
		}, "spec.waves"},
		{"wave named like the implicit wave", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: gitopsv1alpha1.ImplicitWave, Sites: []string{"dev"}}}
		}, "spec.waves[0].name"},
		{"duplicate wave names", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"}}, {Name: "one", Sites: []string{"prod"}}}
		}, "spec.waves[1]"},
		{"wave without sites", func(s *S) { s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one"}} }, "spec.waves[0].sites"},
		{"wave pattern with open bracket", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"eu-[ab"}}}
		}, "spec.waves[0].sites[0]"},
		{"wave pattern with a path", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"edge/*"}}}
		}, "spec.waves[0].sites[0]"},
		{"wave soak not a duration", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"}, Soak: d("-1m")}}
		}, "spec.waves[0].soak"},
		{"wave share above 100%", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"120%"}}}
		}, "spec.waves[0].sites[0]"},
		{"wave share of 0%", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"0%"}}}
		}, "spec.waves[0].sites[0]"},
		{"wave share next to a name", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"10%", "dev"}}}
		}, "spec.waves[0].sites"},
		{"wave maxFailures above 100%", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"},
				MaxFailures: ptr.To(intstr.FromString("150%"))}}
		}, "spec.waves[0].maxFailures"},
		{"wave maxFailures negative", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"},
				MaxFailures: ptr.To(intstr.FromInt32(-1))}}
		}, "spec.waves[0].maxFailures"},
		{"wave maxFailures neither count nor percentage", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"},
				MaxFailures: ptr.To(intstr.FromString("two"))}}
		}, "spec.waves[0].maxFailures"},
		{"wave maxConcurrent zero", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"}, MaxConcurrent: new(int32)}}
		}, "spec.waves[0].maxConcurrent"},
		{"progress deadline below 10s", func(s *S) { s.Spec.ProgressDeadline = d("5s") }, "spec.progressDeadline"},
		{"unknown onFailure", func(s *S) { s.Spec.OnFailure = "Rollback" }, "spec.onFailure"},
		{"unknown validation mode", func(s *S) { s.Spec.Validation = &gitopsv1alpha1.Validation{Mode: "Strict"} },
			"spec.validation.mode"},
		{"kubernetes version latest", func(s *S) {
			s.Spec.Validation = &gitopsv1alpha1.Validation{KubernetesVersion: "latest"}
		}, "spec.validation.kubernetesVersion"},
		{"site kubernetes version 1", func(s *S) {
			s.Spec.Validation = &gitopsv1alpha1.Validation{
				SiteKubernetesVersions: map[string]gitopsv1alpha1.KubernetesVersion{"dev": "1"}}
		}, "spec.validation.siteKubernetesVersions.dev"},
		{"freeze schedule with four fields", func(s *S) {
			s.Spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "0 18 * *", Duration: *d("1h")}}
		}, "spec.freeze[0].schedule"},
		{"freeze schedule with TZ", func(s *S) {
			s.Spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "CRON_TZ=UTC 0 18 * * 5", Duration: *d("1h")}}
		}, "spec.freeze[0].schedule"},
		{"freeze time zone Local", func(s *S) {
			s.Spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "0 18 * * 5", Duration: *d("1h"), TimeZone: "Local"}}
		}, "spec.freeze[0].timeZone"},
		{"freeze time zone not a name", func(s *S) {
			s.Spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "0 18 * * 5", Duration: *d("1h"), TimeZone: "+02:00"}}
		}, "spec.freeze[0].timeZone"},
		{"freeze shorter than a minute", func(s *S) {
			s.Spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "0 18 * * 5", Duration: *d("30s")}}
		}, "spec.freeze[0].duration"},
		{"wave analysis without templates", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"},
				Analysis: &gitopsv1alpha1.WaveAnalysis{}}}
		}, "spec.waves[0].analysis.templates"},
		{"wave analysis template name with upper case", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"}, Analysis: &gitopsv1alpha1.WaveAnalysis{
				Templates: []gitopsv1alpha1.AnalysisTemplateRef{{TemplateName: "Error-Rate"}}}}}
		}, "spec.waves[0].analysis.templates[0].templateName"},
		{"wave analysis arg siteops sets", func(s *S) {
			s.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"}, Analysis: &gitopsv1alpha1.WaveAnalysis{
				Templates: []gitopsv1alpha1.AnalysisTemplateRef{{TemplateName: "error-rate"}},
				Args:      []gitopsv1alpha1.AnalysisArgument{{Name: "threshold", Value: "1"}, {Name: "site", Value: "x"}}}}}
		}, "spec.waves[0].analysis.args[1].name"},
		{"analysis run history limit zero", func(s *S) { s.Spec.AnalysisRunHistoryLimit = new(int32) },
			"spec.analysisRunHistoryLimit"},
	}
}
