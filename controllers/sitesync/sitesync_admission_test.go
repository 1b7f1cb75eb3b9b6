package sitesync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/testenv"
)

func validSiteSync(ns string) *gitopsv1alpha1.SiteSync {
	return &gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "valid"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{
			URL: "https://git.example/acme/config.git", Ref: "main",
		}},
	}
}

func TestSiteSyncAdmissionAppliesDefaults(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ss := validSiteSync(newNamespace(t))
	ss.Spec.Source.URL = "git@git.example:acme/config.git"
	ss.Spec.Suspend = true // nothing to sync here
	g.Expect(suite.k8s.Create(t.Context(), ss)).To(Succeed())
	g.Expect(ss.Spec.Interval.Duration).To(Equal(time.Minute))
	g.Expect(ss.Spec.Timeout.Duration).To(Equal(2 * time.Minute))
	g.Expect(ss.Spec.Source.OverlaysDir).To(Equal("overlays"))
	g.Expect(ss.Spec.Target.Branch).To(Equal("rendered"))
	g.Expect(ss.Spec.Target.PathTemplate).To(Equal("{{.Site}}"))
}

func TestSiteSyncAdmissionRejectsInvalidSpecsWithFieldPaths(t *testing.T) {
	useSuite(t)
	ns := newNamespace(t)
	d := func(s string) *metav1.Duration {
		v, err := time.ParseDuration(s)
		if err != nil {
			panic(err)
		}
		return &metav1.Duration{Duration: v}
	}
	cases := []struct {
		name   string
		mutate func(*gitopsv1alpha1.SiteSync)
		path   string
	}{
		{"ftp url", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.URL = "ftp://git.example/r.git" }, "spec.source.url"},
		{"git protocol url", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.URL = "git://git.example/r.git" }, "spec.source.url"},
		{"relative path url", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.URL = "../config" }, "spec.source.url"},
		{"url with space", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.URL = "https://git.example/a b.git" }, "spec.source.url"},
		{"empty url", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.URL = "" }, "spec.source.url"},
		{"target url scheme", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Target.URL = "javascript:alert(1)" }, "spec.target.url"},
		{"interval below 10s", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Interval = d("5s") }, "spec.interval"},
		{"interval zero", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Interval = d("0s") }, "spec.interval"},
		{"timeout below 1s", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Timeout = d("500ms") }, "spec.timeout"},
		{"site with upper case", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Sites = []string{"dev", "Prod"} }, "spec.sites[1]"},
		{"site with underscore", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Sites = []string{"eu_west"} }, "spec.sites[0]"},
		{"site path escape", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Sites = []string{"../x"} }, "spec.sites[0]"},
		{"site too long", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Sites = []string{strings.Repeat("a", 64)} }, "spec.sites[0]"},
		{"duplicate sites", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Sites = []string{"dev", "dev"} }, "spec.sites[1]"},
		{"overlays dir escapes", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.OverlaysDir = "x/../../etc" }, "spec.source.overlaysDir"},
		{"overlays dir absolute", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.OverlaysDir = "/proc" }, "spec.source.overlaysDir"},
		{"ref with space", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.Ref = "my branch" }, "spec.source.ref"},
		{"ref with dot dot", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Source.Ref = "a..b" }, "spec.source.ref"},
		{"branch option injection", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Target.Branch = "--force" }, "spec.target.branch"},
		{"branch lock suffix", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Target.Branch = "rendered.lock" }, "spec.target.branch"},
		{"target branch is the source ref", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Target.Branch = "main" }, "spec.target.branch"},
		{"path template without site", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Target.PathTemplate = "all" }, "spec.target.pathTemplate"},
		{"path template escapes", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Target.PathTemplate = "../{{.Site}}" }, "spec.target.pathTemplate"},
		{"empty secret name", func(s *gitopsv1alpha1.SiteSync) {
			s.Spec.Source.SecretRef = &gitopsv1alpha1.LocalSecretReference{}
		}, "spec.source.secretRef.name"},
		{"bad secret name", func(s *gitopsv1alpha1.SiteSync) {
			s.Spec.Target.SecretRef = &gitopsv1alpha1.LocalSecretReference{Name: "Git_Creds"}
		}, "spec.target.secretRef.name"},
		{"receiver without secret", func(s *gitopsv1alpha1.SiteSync) { s.Spec.Receiver = &gitopsv1alpha1.Receiver{} }, "spec.receiver.secretRef.name"},
	}
	accepted := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			ss := validSiteSync(ns)
			ss.Name = strings.ReplaceAll(tc.name, " ", "-")
			tc.mutate(ss)
			err := suite.k8s.Create(t.Context(), ss, client.DryRunAll)
			if err == nil {
				accepted++
			}
			g.Expect(err).To(HaveOccurred(), "an invalid SiteSync was accepted")
			g.Expect(err.Error()).To(ContainSubstring(tc.path), "the error names the field path")
		})
	}
	NewWithT(t).Expect(accepted).To(BeZero())
	NewWithT(t).Expect(len(cases)).To(BeNumerically(">=", 10))

	// The valid base object passes, so each rejection is due to its one change.
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), validSiteSync(ns), client.DryRunAll)).To(Succeed())
}

func TestSiteSyncSampleIsAccepted(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "samples", "gitops_v1alpha1_sitesync.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	sample := &gitopsv1alpha1.SiteSync{}
	g.Expect(yaml.UnmarshalStrict(raw, sample)).To(Succeed())
	sample.Namespace = newNamespace(t)
	g.Expect(suite.k8s.Create(t.Context(), sample, client.DryRunAll)).To(Succeed())
	g.Expect(sample.Spec.Receiver).NotTo(BeNil())
}
