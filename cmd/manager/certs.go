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
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/internal/webhookcerts"
)

// Webhook certificate sources (--cert-source).
const (
	// certSourceFiles reads tls.crt/tls.key from --webhook-cert-dir, written by someone else (cert-manager).
	certSourceFiles = "files"
	// certSourceSelf has the manager keep its own CA and serving certificate (internal/webhookcerts).
	certSourceSelf = "self"
)

// selfCertRetry is how often the manager tries again to obtain its certificate before serving webhooks.
const selfCertRetry = 2 * time.Second

// setupCerts returns the webhook server's certificate folder and, with --cert-source=self, the Rotator that
// keeps it (to be added to the manager). With self it first makes sure the certificate is there, retrying until
// ctx ends: the webhook server reads its files when it starts.
func setupCerts(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme,
	o options, logger logr.Logger) (string, *webhookcerts.Rotator, error) {
	if !o.enableWebhooks {
		return o.webhookCertDir, nil, nil
	}
	switch o.certSource {
	case certSourceFiles:
		return o.webhookCertDir, nil, nil
	case certSourceSelf:
	default:
		return "", nil, fmt.Errorf("--cert-source=%q: want %s or %s", o.certSource, certSourceSelf, certSourceFiles)
	}
	dir := o.webhookCertDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "siteops-webhook-certs")
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return "", nil, fmt.Errorf("creating the webhook certificate client: %w", err)
	}
	svc, ns := o.certService, o.certNamespace
	r := &webhookcerts.Rotator{
		Client: c,
		Secret: types.NamespacedName{Namespace: ns, Name: o.certSecret},
		Hosts: append([]string{svc + "." + ns + ".svc", svc + "." + ns + ".svc.cluster.local", svc + "." + ns,
			svc}, extraHosts(o.certHosts)...),
		CertDir:            dir,
		MutatingWebhooks:   []string{o.mutatingWebhook},
		ValidatingWebhooks: []string{o.validatingWebhook},
	}
	log := logger.WithName("webhook-certs")
	for {
		err := r.Ensure(ctx)
		if err == nil {
			return dir, r, nil
		}
		log.Error(err, "webhook certificate not ready; the webhook server waits", "retryIn", selfCertRetry)
		select {
		case <-ctx.Done():
			return "", nil, fmt.Errorf("waiting for the webhook certificate: %w", ctx.Err())
		case <-time.After(selfCertRetry):
		}
	}
}

// extraHosts splits --cert-hosts.
func extraHosts(list string) []string {
	var out []string
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}
