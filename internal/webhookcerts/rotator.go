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

// Package webhookcerts gives the admission webhooks serving certificates without cert-manager: the manager
// keeps its own CA and a serving certificate in a Secret, writes them where the webhook server reads them, and
// injects the CA into its Mutating- and ValidatingWebhookConfigurations. Both colours of a blue/green upgrade run
// it and share the Secret: a certificate is only issued when the Secret holds none that is fresh, and written
// with an optimistic lock, so concurrent managers agree on one without a leader.
package webhookcerts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultInterval is how often a running Rotator checks the Secret, the files and the caBundles.
const DefaultInterval = time.Minute

// Rotator maintains the webhook serving certificate.
type Rotator struct {
	// Client reads and writes the Secret and the webhook configurations; an uncached client, as Ensure runs
	// before the manager's cache starts.
	Client client.Client
	// Secret holds the CA and the serving certificate (keys ca.crt, tls.crt, tls.key and ca.key).
	Secret types.NamespacedName
	// Hosts are the serving certificate's names: the webhook Service's DNS names, or IP addresses.
	Hosts []string
	// CertDir receives tls.crt and tls.key for the webhook server (which reloads them when they change).
	CertDir string
	// MutatingWebhooks and ValidatingWebhooks name the configurations whose every webhook gets the CA.
	MutatingWebhooks, ValidatingWebhooks []string
	// Clock decides when a certificate is due; nil means the real clock.
	Clock clock.PassiveClock
	// Interval between checks when running as a manager Runnable; zero means DefaultInterval.
	Interval time.Duration
}

// RBAC: base/rbac/webhook_certs_role.yaml grants the Secret's create, get and update and the webhook
// configurations' get and update by name (siteops' own objects only), which markers cannot express.

// NeedLeaderElection is false: both colours serve webhooks with the shared certificate.
func (r *Rotator) NeedLeaderElection() bool { return false }

// Start checks every Interval until ctx ends; a failed check is logged and tried again at the next one.
func (r *Rotator) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("webhook-certs")
	interval := r.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := r.Ensure(ctx); err != nil {
				log.Error(err, "checking the webhook certificate")
			}
		}
	}
}

// Ensure makes the Secret hold a fresh CA and serving certificate (issuing them only when it does not),
// writes the serving pair to CertDir and the CA into every webhook of the configurations.
func (r *Rotator) Ensure(ctx context.Context) error {
	b, err := r.ensureSecret(ctx)
	if err != nil {
		return err
	}
	if err := r.writeFiles(b); err != nil {
		return err
	}
	return r.injectCA(ctx, b.caCert)
}

func (r *Rotator) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

// ensureSecret returns the Secret's bundle, first creating or renewing it. When another manager wrote the
// Secret in between (AlreadyExists, Conflict), its bundle is read and used instead.
func (r *Rotator) ensureSecret(ctx context.Context) (bundle, error) {
	for attempt := 0; attempt < 3; attempt++ {
		sec := &corev1.Secret{}
		err := r.Client.Get(ctx, r.Secret, sec)
		if err != nil && !apierrors.IsNotFound(err) {
			return bundle{}, fmt.Errorf("getting webhook certificate Secret %s: %w", r.Secret, err)
		}
		found := err == nil
		if found && fresh(bundleOf(sec.Data), r.Hosts, r.now()) {
			return bundleOf(sec.Data), nil
		}
		b, err := issue(bundleOf(sec.Data), r.Hosts, r.now())
		if err != nil {
			return bundle{}, err
		}
		if !found {
			sec = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.Secret.Namespace, Name: r.Secret.Name,
				Labels: map[string]string{"app.kubernetes.io/name": "siteops", "app.kubernetes.io/component": "webhook-certs"}},
				Type: corev1.SecretTypeOpaque, Data: b.data()}
			err = r.Client.Create(ctx, sec)
		} else {
			sec.Data = b.data() // the update carries the resourceVersion read: an optimistic lock
			err = r.Client.Update(ctx, sec)
		}
		switch {
		case err == nil:
			return b, nil
		case apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err):
			continue // another manager issued one first: use it
		default:
			return bundle{}, fmt.Errorf("writing webhook certificate Secret %s: %w", r.Secret, err)
		}
	}
	return bundle{}, fmt.Errorf("webhook certificate Secret %s kept changing under us", r.Secret)
}

// writeFiles writes tls.crt and tls.key to CertDir when they differ from what is there.
func (r *Rotator) writeFiles(b bundle) error {
	if err := os.MkdirAll(r.CertDir, 0o700); err != nil {
		return fmt.Errorf("creating webhook cert dir: %w", err)
	}
	for name, data := range map[string][]byte{KeyCert: b.cert, KeyKey: b.key} {
		path := filepath.Join(r.CertDir, name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			continue
		}
		// Write then rename, so the webhook server's file watcher never reads half a file.
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

// injectCA sets caBundle of every webhook of the configurations to ca, updating only those that differ.
func (r *Rotator) injectCA(ctx context.Context, ca []byte) error {
	var errs []error
	for _, name := range r.MutatingWebhooks {
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		errs = append(errs, r.inject(ctx, name, cfg, func() bool {
			changed := false
			for i := range cfg.Webhooks {
				changed = setCA(&cfg.Webhooks[i].ClientConfig, ca) || changed
			}
			return changed
		}))
	}
	for _, name := range r.ValidatingWebhooks {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		errs = append(errs, r.inject(ctx, name, cfg, func() bool {
			changed := false
			for i := range cfg.Webhooks {
				changed = setCA(&cfg.Webhooks[i].ClientConfig, ca) || changed
			}
			return changed
		}))
	}
	return errors.Join(errs...)
}

// inject reads the configuration name into obj, applies set and updates it when set changed something.
func (r *Rotator) inject(ctx context.Context, name string, obj client.Object, set func() bool) error {
	if err := r.Client.Get(ctx, types.NamespacedName{Name: name}, obj); err != nil {
		return fmt.Errorf("getting webhook configuration %s: %w", name, err)
	}
	if !set() {
		return nil
	}
	if err := r.Client.Update(ctx, obj); err != nil {
		return fmt.Errorf("injecting the CA into webhook configuration %s: %w", name, err)
	}
	return nil
}

// setCA sets cc.CABundle to ca and reports whether it changed.
func setCA(cc *admissionregistrationv1.WebhookClientConfig, ca []byte) bool {
	if bytes.Equal(cc.CABundle, ca) {
		return false
	}
	cc.CABundle = ca
	return true
}
