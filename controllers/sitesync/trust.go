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

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
)

// Keys of a signing key Secret (as Flux's image-automation-controller names them).
const (
	secretKeySigningKey = "git.asc"
	secretKeyPassphrase = "passphrase"
)

// readTrust reads the OpenPGP material of the spec: the signing key of target.signingKey and the trusted keys
// of source.verify. A key that cannot be read stalls the SiteSync before anything is fetched or pushed, so no
// commit goes out unsigned; messages name the Secret, the key and the problem, never a value.
func (r *Reconciler) readTrust(ctx context.Context, run *scope) error {
	spec := run.obj.Spec
	if sk := spec.Target.SigningKey; sk != nil {
		data, err := r.secretData(ctx, run.obj.Namespace, sk.SecretRef.Name)
		if err != nil {
			return err
		}
		if len(data[secretKeySigningKey]) == 0 {
			return kit.Stall(gitopsv1alpha1.ReasonSigningKeyInvalid,
				fmt.Errorf("signing key secret %q: missing key %q", sk.SecretRef.Name, secretKeySigningKey))
		}
		if run.signingKey, err = publish.ParseSigningKey(data[secretKeySigningKey], data[secretKeyPassphrase]); err != nil {
			return kit.Stall(gitopsv1alpha1.ReasonSigningKeyInvalid,
				fmt.Errorf("signing key secret %q, key %q: %w", sk.SecretRef.Name, secretKeySigningKey, err))
		}
	}
	if v := spec.Source.Verify; v != nil {
		data, err := r.secretData(ctx, run.obj.Namespace, v.SecretRef.Name)
		if err != nil {
			return err
		}
		if run.trusted, err = source.ParseTrustedKeys(data); err != nil {
			return kit.Stall(gitopsv1alpha1.ReasonSecretInvalid,
				fmt.Errorf("trusted keys secret %q: %w", v.SecretRef.Name, err))
		}
	}
	return nil
}

// secretData reads a Secret's data through the APIReader (never cached); a missing Secret stalls the SiteSync.
// The read runs without the reconcile's logger: client-go prints whole response bodies, the Secret's data
// included, at verbosity 8 and above.
func (r *Reconciler) secretData(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	secret := &corev1.Secret{}
	quiet := logr.NewContext(ctx, logr.Discard())
	if err := r.APIReader.Get(quiet, types.NamespacedName{Namespace: namespace, Name: name}, secret); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, kit.Stall(gitopsv1alpha1.ReasonSecretNotFound,
				fmt.Errorf("secret %q not found in namespace %q", name, namespace))
		}
		return nil, fmt.Errorf("reading secret %q: %w", name, err)
	}
	return secret.Data, nil
}
