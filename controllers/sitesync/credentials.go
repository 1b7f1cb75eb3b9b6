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
	"strings"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
)

// Keys of a Git credentials Secret.
const (
	secretKeyUsername   = "username"
	secretKeyPassword   = "password"
	secretKeyToken      = "token"
	secretKeyIdentity   = "identity"
	secretKeyKnownHosts = "known_hosts"
	secretKeyCA         = "ca.crt"
	// tokenUsername is sent with a token when the Secret has no username.
	tokenUsername = "git"
)

// readCredentials reads the source and target Secrets (same namespace) into gitops.Auth values. A missing
// Secret or key, or an SSH URL without a Secret, stalls the SiteSync; the message names the field, the Secret
// and the key, never a value.
func (r *Reconciler) readCredentials(ctx context.Context, run *scope) error {
	spec := run.obj.Spec
	if err := needSSHSecret("spec.source.secretRef", spec.Source.URL, spec.Source.SecretRef); err != nil {
		return err
	}
	var err error
	if run.source, err = r.auth(ctx, run.obj.Namespace, spec.Source.SecretRef, spec.Source.URL); err != nil {
		return err
	}
	targetURL := spec.Target.URL
	switch {
	case spec.Target.SecretRef != nil:
		if targetURL == "" {
			targetURL = spec.Source.URL
		}
		if run.target, err = r.auth(ctx, run.obj.Namespace, spec.Target.SecretRef, targetURL); err != nil {
			return err
		}
	case targetURL == "" || targetURL == spec.Source.URL:
		run.target = run.source
	default:
		if err := needSSHSecret("spec.target.secretRef", targetURL, nil); err != nil {
			return err
		}
	}
	run.redact = source.NewRedactor(run.source, run.target)
	return r.readTrust(ctx, run)
}

// needSSHSecret stalls an SSH url whose secretRef (the field named field) is not set: siteops never uses an
// SSH agent, so without a Secret there is no key to log in with.
func needSSHSecret(field, url string, ref *gitopsv1alpha1.LocalSecretReference) error {
	if ref != nil || !source.IsSSHURL(url) {
		return nil
	}
	return kit.Stall(gitopsv1alpha1.ReasonSecretRefMissing, fmt.Errorf("%s is not set, and the SSH URL needs a "+
		"Secret with keys %q (the private key) and %q; siteops never uses an SSH agent", field, secretKeyIdentity,
		secretKeyKnownHosts))
}

// auth reads one credentials Secret for url; a nil ref means anonymous access.
func (r *Reconciler) auth(ctx context.Context, namespace string, ref *gitopsv1alpha1.LocalSecretReference,
	url string) (*gitops.Auth, error) {
	if ref == nil {
		return nil, nil
	}
	data, err := r.secretData(ctx, namespace, ref.Name)
	if err != nil {
		return nil, err
	}
	auth, err := authFromSecret(url, data)
	if err != nil {
		return nil, kit.Stall(gitopsv1alpha1.ReasonSecretInvalid, fmt.Errorf("secret %q: %w", ref.Name, err))
	}
	return auth, nil
}

// authFromSecret builds the credentials for url from a Secret's data: `identity` and `known_hosts` for SSH
// URLs; `username` and `password`, or `token` (with an optional `username`), for HTTP(S). file:// URLs take
// whatever is there. `ca.crt` (PEM) adds a private CA for HTTPS, alone or with either. Errors name the missing
// key and never include a value.
func authFromSecret(url string, data map[string][]byte) (*gitops.Auth, error) {
	auth, err := credentialsFromSecret(url, data)
	if err != nil || len(data[secretKeyCA]) == 0 {
		return auth, err
	}
	if err := source.ValidateCABundle(data[secretKeyCA]); err != nil {
		return nil, fmt.Errorf("key %q: %w", secretKeyCA, err)
	}
	if auth == nil {
		auth = &gitops.Auth{}
	}
	auth.CABundle = data[secretKeyCA]
	return auth, nil
}

// credentialsFromSecret reads the user credentials of authFromSecret; a Secret with only `ca.crt` means
// anonymous access.
func credentialsFromSecret(url string, data map[string][]byte) (*gitops.Auth, error) {
	has := func(key string) bool { return len(data[key]) > 0 }
	if source.IsSSHURL(url) {
		if !has(secretKeyIdentity) {
			return nil, fmt.Errorf("missing key %q required for SSH URLs", secretKeyIdentity)
		}
		if !has(secretKeyKnownHosts) {
			return nil, fmt.Errorf("missing key %q required with %q", secretKeyKnownHosts, secretKeyIdentity)
		}
		return &gitops.Auth{
			Username:      string(data[secretKeyUsername]),
			SSHPrivateKey: data[secretKeyIdentity],
			SSHKnownHosts: data[secretKeyKnownHosts],
		}, nil
	}
	switch {
	case has(secretKeyToken):
		user := string(data[secretKeyUsername])
		if user == "" {
			user = tokenUsername
		}
		return &gitops.Auth{Username: user, Password: string(data[secretKeyToken])}, nil
	case has(secretKeyUsername) && !has(secretKeyPassword):
		return nil, fmt.Errorf("missing key %q (or %q) to go with %q", secretKeyPassword, secretKeyToken, secretKeyUsername)
	case has(secretKeyPassword) && !has(secretKeyUsername):
		return nil, fmt.Errorf("missing key %q to go with %q", secretKeyUsername, secretKeyPassword)
	case has(secretKeyUsername):
		return &gitops.Auth{Username: string(data[secretKeyUsername]), Password: string(data[secretKeyPassword])}, nil
	case strings.HasPrefix(url, "file://"), has(secretKeyCA):
		return nil, nil
	default:
		return nil, fmt.Errorf("missing keys: want %q and %q, or %q", secretKeyUsername, secretKeyPassword, secretKeyToken)
	}
}
