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
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestStatusPrintsRevisionsAndConditions: `siteops status` shows each SiteSync's revisions and one line per
// condition, messages on one line; a SiteSync without status still gets its header.
func TestStatusPrintsRevisionsAndConditions(t *testing.T) {
	items := []gitopsv1alpha1.SiteSync{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "sites"}, Status: gitopsv1alpha1.SiteSyncStatus{
			SourceRevision: "0123456789abcdef0123", RenderedRevision: "fedcba9876543210fedc", Delivered: "1/2",
			Conditions: []metav1.Condition{
				{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Synced", Message: "rendered\n2 sites"},
			},
		}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "other"}},
	}
	var out bytes.Buffer
	if err := writeStatus(&out, items, time.Now()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"SiteSync hub/sites  source 0123456789ab  rendered fedcba987654  Delivered 1/2\n",
		"  condition Ready=True (Synced) rendered 2 sites\n",
		"\nSiteSync hub/other  source -  rendered -\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestStatusTakesOneSiteSyncName: `siteops status -n hub sites` accepts the NAME its usage names (it gets as
// far as loading the kubeconfig), and two names are a usage error.
func TestStatusTakesOneSiteSyncName(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-kubeconfig")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"status", "--kubeconfig", missing, "-n", "hub", "sites"}, &stdout, &stderr)
	if code != exitFailed || !strings.Contains(stderr.String(), "loading kubeconfig") {
		t.Fatalf("status -n hub sites: exit %d, stderr %q; want exit %d loading the kubeconfig",
			code, stderr.String(), exitFailed)
	}
	stderr.Reset()
	args := []string{"status", "--kubeconfig", missing, "a", "b"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage {
		t.Fatalf("status a b: exit %d, want %d", code, exitUsage)
	}
}
