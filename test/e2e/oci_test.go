//go:build e2e

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

package e2e

import (
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/siteops/siteops/gitops/ociartifact"
	"github.com/siteops/siteops/test/gitserver"
)

// ociNamespace is where the Application of the OCI source puts the site's objects on the site cluster; the
// ApplicationSet's Application of the rendered branch puts the same objects in namespace <site>, so the two
// never manage the same object.
const ociNamespace = "from-oci"

// TestArgoCDSyncsASiteFromItsOCIArtifact runs docs/oci.md on the local fleet: a SiteSync with target.oci (an
// in-process registry on 127.0.0.1, plain HTTP) and a signing key publishes its site as an OCI artifact with
// its provenance as a referrer; Argo CD, with a repository Secret of type oci and an Application whose source is
// `oci://<registry>/sites`, revision `<site>` (the tag that follows the site's newest output) and path `.`,
// syncs it to a site cluster, Synced and Healthy at the artifact's digest. A source change then reaches the
// cluster through a new artifact under the same tag.
//
// It runs beside other tests. Its site is a namespace of the site cluster the waves tests share (siteHost).
func TestArgoCDSyncsASiteFromItsOCIArtifact(t *testing.T) {
	t.Parallel()
	site, host := "oci-a", siteHost(t)
	repo := ociRegistry(t) + "/sites"
	// Suspended until target.oci and the signing key are set, so that the first render already publishes them.
	f := newFleetOn(t, "oci", host, fleetSource([]string{site}), "suspend: true\n")
	key := gitserver.NewOpenPGPKey(t, "siteops e2e", "e2e@siteops.invalid", "")
	keyFile := filepath.Join(t.TempDir(), "git.asc")
	if err := os.WriteFile(keyFile, key.PrivateArmored, 0o600); err != nil {
		t.Fatal(err)
	}
	kubectl(t, "-n", f.namespace, "create", "secret", "generic", "signing", "--from-file=git.asc="+keyFile)
	kubectl(t, "-n", f.namespace, "patch", "sitesync", "sites", "--type=merge", "-p", fmt.Sprintf(
		`{"spec":{"suspend":false,"target":{"oci":{"repository":%q},"signingKey":{"secretRef":{"name":"signing"}}}}}`,
		repo))
	waitFor(t, time.Minute, "manager Ready", func() (bool, string) { return f.mgr.Ready(), "" })

	// The artifact: tagged <site>-<commit> and <site>, with the provenance as a referrer.
	first := f.waitArtifact(site, "")
	commit := f.site(site, "oci.renderedCommit")
	if want := f.site(site, "renderedCommit"); commit != want {
		t.Fatalf("%s's artifact holds rendered commit %s, its folder was last changed by %s", site, commit, want)
	}
	checkArtifact(t, repo, site, commit, first)

	app := argoCDFromOCI(t, repo, site, host)
	f.waitSyncedFromOCI(app, first)
	checkOnCluster(t, host, site, "one")
	f.ociTranscript(app, repo, "synced from the artifact")

	// A source change: a new artifact under the moving tag, and Argo CD follows it.
	writeFile(t, f.work, "overlays/"+site+"/site-values.yaml", siteValues(site, "two"))
	f.push(site + ": greeting two")
	second := f.waitArtifact(site, first)
	checkArtifact(t, repo, site, f.site(site, "oci.renderedCommit"), second)
	f.waitSyncedFromOCI(app, second)
	checkOnCluster(t, host, site, "two")
	f.ociTranscript(app, repo, "after a source change")
}

// ociRegistry serves go-containerregistry's in-process registry, with the OCI referrers API, on 127.0.0.1 over
// plain HTTP until the test ends, and returns its host:port.
func ociRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.WithReferrersSupport(true),
		registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// argoCDFromOCI registers repo in Argo CD as an OCI repository over plain HTTP (a repository Secret) and
// creates an Application that syncs the tag site of repo to the site cluster named cluster, namespace
// ociNamespace, as docs/oci.md shows; it returns the Application's name. Both go when the test ends.
func argoCDFromOCI(t *testing.T, repo, site, cluster string) string {
	t.Helper()
	app := site + "-from-oci"
	apply(t, "argocd", fmt.Sprintf(`
apiVersion: v1
kind: Secret
metadata:
  name: %[1]s-registry
  labels: {argocd.argoproj.io/secret-type: repository}
stringData:
  type: oci
  url: oci://%[2]s
  insecureOCIForceHttp: "true"
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %[1]s}
spec:
  project: default
  source: {repoURL: "oci://%[2]s", targetRevision: %[3]s, path: .}
  destination: {name: %[5]s, namespace: %[4]s}
  syncPolicy:
    automated: {prune: true, selfHeal: true}
    syncOptions: [CreateNamespace=true]
`, app, repo, site, ociNamespace, cluster))
	t.Cleanup(func() {
		_, _ = tryKubectl("-n", "argocd", "delete", "application", app, "--ignore-not-found")
		_, _ = tryKubectl("-n", "argocd", "delete", "secret", app+"-registry", "--ignore-not-found")
	})
	return app
}

// waitArtifact waits until the SiteSync reports site's artifact published with a digest other than not, and
// returns the digest.
func (f *fleet) waitArtifact(site, not string) string {
	f.t.Helper()
	var digest string
	waitFor(f.t, 3*time.Minute, site+"'s OCI artifact published", func() (bool, string) {
		got := f.site(site, "oci.digest", "oci.tag", "oci.message")
		digest, _, _ = strings.Cut(got, "|")
		return strings.HasPrefix(digest, "sha256:") && digest != not, got
	})
	return digest
}

// waitSyncedFromOCI waits until Argo CD's Application app is Synced and Healthy at the artifact's digest.
func (f *fleet) waitSyncedFromOCI(app, digest string) {
	f.t.Helper()
	waitFor(f.t, 4*time.Minute, app+" Synced and Healthy at "+digest, func() (bool, string) {
		got := jsonpath("-n", "argocd", "get", "application", app, "-o",
			"jsonpath={.status.sync.status}|{.status.health.status}|{.status.sync.revision}")
		return got == "Synced|Healthy|"+digest, got + " " + jsonpath("-n", "argocd", "get", "application", app,
			"-o", "jsonpath={.status.conditions}{.status.operationState.message}")
	})
}

// checkArtifact checks that the registry resolves both of site's tags to digest and lists the site's
// provenance among the artifact's referrers.
func checkArtifact(t *testing.T, repo, site, commit, digest string) {
	t.Helper()
	for _, tag := range []string{ociartifact.Tag(site, commit), site} {
		ref, err := name.NewTag(repo + ":" + tag)
		if err != nil {
			t.Fatal(err)
		}
		d, err := remote.Head(ref)
		if err != nil {
			t.Fatalf("tag %s: %v", tag, err)
		}
		if d.Digest.String() != digest {
			t.Fatalf("tag %s is %s, want the artifact %s", tag, d.Digest, digest)
		}
	}
	ref, err := name.NewDigest(repo + "@" + digest)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Referrers(ref)
	if err != nil {
		t.Fatalf("referrers of %s: %v", digest, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, d := range m.Manifests {
		types = append(types, d.ArtifactType)
	}
	if !slices.Contains(types, ociartifact.ProvenanceArtifactType) {
		t.Fatalf("the referrers of %s are %v, want the provenance (%s)", digest, types,
			ociartifact.ProvenanceArtifactType)
	}
}

// checkOnCluster checks that the site cluster named cluster holds site's objects in ociNamespace, with the
// greeting and two available replicas of web.
func checkOnCluster(t *testing.T, cluster, site, greeting string) {
	t.Helper()
	if got := onSite(cluster, "-n", ociNamespace, "get", "cm", "site-info", "-o",
		"jsonpath={.data.site} {.data.greeting}"); got != site+" "+greeting {
		t.Fatalf("cluster %s: site-info in %s holds %q, want %q", cluster, ociNamespace, got, site+" "+greeting)
	}
	waitFor(t, 2*time.Minute, "web available on "+cluster, func() (bool, string) {
		got := onSite(cluster, "-n", ociNamespace, "get", "deploy", "web", "-o", "jsonpath={.status.availableReplicas}")
		return got == "2", got
	})
}

// ociTranscript logs the site's artifact as the SiteSync and the registry show it and the Application's state,
// for docs/oci.md.
func (f *fleet) ociTranscript(app, repo, when string) {
	f.t.Helper()
	r, err := name.NewRepository(repo)
	if err != nil {
		f.t.Fatal(err)
	}
	tags, err := remote.List(r)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Logf("%s:\n$ kubectl get sitesync sites -n %s -o jsonpath='{.status.sites[*].oci}'\n%s\n"+
		"tags of %s: %v\n$ kubectl -n argocd get application %s -o wide\n%s", when, f.namespace,
		jsonpath("-n", f.namespace, "get", "sitesync", "sites", "-o", "jsonpath={.status.sites[*].oci}"),
		repo, tags, app, kubectl(f.t, "-n", "argocd", "get", "application", app, "-o", "wide"))
}
