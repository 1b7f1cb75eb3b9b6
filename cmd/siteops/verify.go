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

package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/provenance"
)

// signingKeySecretKey is the key of a SiteSync's signing key Secret that holds the OpenPGP key.
const signingKeySecretKey = "git.asc"

// verifyFlags are the flags of siteops verify.
type verifyFlags struct {
	commit, repo, branch, keyFile, siteSync, kubeconfig, namespace string
}

// runVerify checks that a site's folder on the rendered branch is the output siteops attested, under a
// signature of the SiteSync's key, and prints the source commit and inputs it was rendered from.
func runVerify(ctx context.Context, sy *gitops.Syncer, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", "SITE --key FILE|--sitesync NAME [-n NAMESPACE] [--commit C] [--repo URL] "+
		"[--branch B]", stderr)
	var f verifyFlags
	fs.StringVar(&f.commit, "commit", "", "rendered commit to check (default: the head of the branch)")
	fs.StringVar(&f.repo, "repo", "", "repository of the rendered branch, a URL or a folder "+
		"(default: the SiteSync's target, else the current folder's origin)")
	fs.StringVar(&f.branch, "branch", "", "rendered branch (default: the SiteSync's, else rendered)")
	fs.StringVar(&f.keyFile, "key", "", "file with the ASCII-armored OpenPGP public key of the SiteSync's signing key")
	fs.StringVar(&f.siteSync, "sitesync", "", "SiteSync whose target and signing key Secret to use")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file, with --sitesync (default: $KUBECONFIG)")
	fs.StringVar(&f.namespace, "n", "", "namespace of the SiteSync (default: the kubeconfig context's)")
	site, err := parseWithSite(fs, args)
	if err != nil {
		return err
	}
	if f.keyFile == "" && f.siteSync == "" {
		return usageError{"give the public key with --key FILE, or --sitesync NAME to read the SiteSync's Secret"}
	}
	o, err := f.options(ctx, site)
	if err != nil {
		return err
	}
	if o.WorkDir, err = cacheDir(); err != nil {
		return err
	}
	if o.Auth, err = authFromEnv(); err != nil {
		return err
	}
	v, err := sy.VerifySite(ctx, o)
	if err != nil {
		return sshKeyHint(err)
	}
	_, err = io.WriteString(stdout, verifiedText(v, cmp.Or(o.Branch, gitops.DefaultTargetBranch), o.Key))
	return err
}

// parseWithSite parses args holding exactly one positional SITE, before or among the flags.
func parseWithSite(fs *flag.FlagSet, args []string) (string, error) {
	var sites []string
	for {
		if err := parseOnly(fs, args); err != nil {
			return "", err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		sites, args = append(sites, rest[0]), rest[1:]
	}
	if len(sites) != 1 {
		return "", usageError{fmt.Sprintf("give one SITE, not %d", len(sites))}
	}
	return sites[0], nil
}

// options resolves the flags into what VerifySite needs: the repository, branch and key, from the flags
// first and the SiteSync (and its signing key Secret) for what they leave out.
func (f verifyFlags) options(ctx context.Context, site string) (gitops.VerifyOptions, error) {
	o := gitops.VerifyOptions{Site: site, Commit: f.commit, URL: f.repo, Branch: f.branch}
	var armored []byte
	if f.keyFile != "" {
		b, err := os.ReadFile(f.keyFile)
		if err != nil {
			return o, fmt.Errorf("reading --key: %w", err)
		}
		armored = b
	}
	if f.siteSync != "" {
		var err error
		if armored, err = f.fromSiteSync(ctx, &o, armored); err != nil {
			return o, err
		}
	}
	key, err := provenance.ParsePublicKey(armored)
	if err != nil {
		return o, err
	}
	o.Key = key
	switch {
	case o.URL == "":
		if o.URL, err = originURL("."); err != nil {
			return o, fmt.Errorf("no --repo: %w", err)
		}
	case !isURL(o.URL):
		abs, err := filepath.Abs(o.URL)
		if err != nil {
			return o, fmt.Errorf("resolving --repo: %w", err)
		}
		o.URL = "file://" + filepath.ToSlash(abs)
	}
	return o, nil
}

// fromSiteSync fills what the flags left out of o from the SiteSync: its target's URL and branch, and, when
// armored is empty, the key of its signing key Secret (only its public part is used, nothing of it printed).
func (f verifyFlags) fromSiteSync(ctx context.Context, o *gitops.VerifyOptions, armored []byte) ([]byte, error) {
	c, ns, err := connect(f.kubeconfig, f.namespace, false)
	if err != nil {
		return nil, err
	}
	ss := &gitopsv1alpha1.SiteSync{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: f.siteSync}, ss); err != nil {
		return nil, fmt.Errorf("getting SiteSync %s/%s: %w", ns, f.siteSync, err)
	}
	t := ss.Spec.Target
	if o.URL == "" {
		o.URL = cmp.Or(t.URL, ss.Spec.Source.URL)
	}
	if o.Branch == "" {
		o.Branch = t.Branch
	}
	if len(armored) > 0 {
		return armored, nil
	}
	if t.SigningKey == nil {
		return nil, fmt.Errorf("SiteSync %s/%s has no target.signingKey: its sites carry no attestation", ns, ss.Name)
	}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: t.SigningKey.SecretRef.Name}, secret); err != nil {
		return nil, fmt.Errorf("getting the signing key Secret %s/%s: %w", ns, t.SigningKey.SecretRef.Name, err)
	}
	if len(secret.Data[signingKeySecretKey]) == 0 {
		return nil, errors.New("the signing key Secret " + ns + "/" + secret.Name + " has no key " + signingKeySecretKey)
	}
	return secret.Data[signingKeySecretKey], nil
}

// verifiedText reports a verified site: where its output is, what it was rendered from and by, and the key.
func verifiedText(v gitops.VerifyResult, branch string, key *provenance.PublicKey) string {
	st := v.Statement
	bd := st.Predicate.BuildDefinition
	var b strings.Builder
	fmt.Fprintf(&b, "site %s: verified at rendered commit %s (branch %s)\n", bd.ExternalParameters.Site,
		v.Commit, branch)
	for _, s := range st.Subject {
		fmt.Fprintf(&b, "  output    %s sha256:%s\n", s.Name, s.Digest["sha256"])
	}
	src := bd.ExternalParameters.Source
	fmt.Fprintf(&b, "  source    %s", src.URL)
	if src.Ref != "" {
		fmt.Fprintf(&b, " %s", src.Ref)
	}
	fmt.Fprintf(&b, ", commit %s\n", st.SourceCommit())
	for _, d := range bd.ResolvedDependencies[min(1, len(bd.ResolvedDependencies)):] {
		files, _ := d.Annotations["files"].([]any)
		fmt.Fprintf(&b, "  inputs    %s: %s, sha256:%s\n", strings.TrimPrefix(d.Name, "inputs/"),
			countFiles(len(files)), d.Digest["sha256"])
	}
	if ss := bd.ExternalParameters.SiteSync; ss != "" {
		fmt.Fprintf(&b, "  sitesync  %s\n", ss)
	}
	bv := st.Predicate.RunDetails.Builder.Version
	fmt.Fprintf(&b, "  renderer  siteops %s", bv["siteops"])
	if m := bv["goModuleVersion"]; m != "" {
		fmt.Fprintf(&b, " (%s)", strings.Join(slices.DeleteFunc([]string{bv["goModule"], m, bv["goModuleSum"],
			bv["vcsRevision"]}, func(s string) bool { return s == "" }), " "))
	}
	fmt.Fprintf(&b, "\n  signed by %s\n", key)
	return b.String()
}

func countFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
