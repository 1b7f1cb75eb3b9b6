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
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestRolloutPauseAndResumeAnnotateTheSiteSync: `siteops rollout pause --reason R NAME` sets the annotation
// siteops.dev/pause-rollout to R on the SiteSync and keeps its other annotations; `siteops rollout resume NAME`
// removes it; a missing verb or NAME is a usage error.
func TestRolloutPauseAndResumeAnnotateTheSiteSync(t *testing.T) {
	g := NewWithT(t)
	k8s, kubeconfigFile := startCluster(t)
	ctx := t.Context()
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "sites",
		Annotations: map[string]string{"team": "platform"}},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: "https://git.example/config.git"}}}
	g.Expect(k8s.Create(ctx, ss)).To(Succeed())
	siteops := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	annotations := func() map[string]string {
		got := &gitopsv1alpha1.SiteSync{}
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(ss), got)).To(Succeed())
		return got.Annotations
	}

	code, out := siteops("rollout", "pause", "--kubeconfig", kubeconfigFile, "-n", "hub", "--reason", "INC-9", "sites")
	g.Expect(code).To(Equal(exitOK), out)
	g.Expect(out).To(Equal("SiteSync hub/sites: rollout paused\n"))
	g.Expect(annotations()).To(Equal(map[string]string{"team": "platform",
		gitopsv1alpha1.PauseRolloutAnnotation: "INC-9"}))

	code, out = siteops("rollout", "resume", "--kubeconfig", kubeconfigFile, "-n", "hub", "sites")
	g.Expect(code).To(Equal(exitOK), out)
	g.Expect(annotations()).To(Equal(map[string]string{"team": "platform"}))

	for _, args := range [][]string{{"rollout"}, {"rollout", "stop", "sites"}, {"rollout", "pause"},
		{"rollout", "resume", "--reason", "x", "sites"}} {
		code, out := siteops(args...)
		g.Expect(code).To(Equal(exitUsage), "siteops %v: %s", args, out)
	}
}
