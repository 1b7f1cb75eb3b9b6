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
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// runRollout pauses or resumes a SiteSync's rollout of waves by setting or removing the annotation
// siteops.dev/pause-rollout; the SiteSync keeps rendering and reporting either way. `rollout history` prints
// what status.rollout.history recorded (rollout_history.go).
func runRollout(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "history" {
		return runRolloutHistory(ctx, args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "pause" && args[0] != "resume") {
		return usageError{"want pause, resume or history, as in: siteops rollout pause NAME"}
	}
	verb := args[0]
	fs := newFlagSet("rollout "+verb, "[--kubeconfig FILE] [-n NAMESPACE] [--reason TEXT] NAME", stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	namespace := fs.String("n", "", "namespace of the SiteSync (default: the kubeconfig context's)")
	reason := fs.String("reason", "", "why the rollout is paused, for the RolloutPaused event (pause only)")
	if err := parseOnly(fs, args[1:]); err != nil { // NAME is positional
		return err
	}
	if fs.NArg() != 1 || (verb == "resume" && *reason != "") {
		fs.Usage()
		return errUsage
	}
	c, ns, err := connect(*kubeconfig, *namespace, false)
	if err != nil {
		return err
	}
	var value any // nil removes the annotation
	if verb == "pause" {
		value = *reason
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		gitopsv1alpha1.PauseRolloutAnnotation: value}}})
	if err != nil {
		return fmt.Errorf("building the patch: %w", err)
	}
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Namespace, ss.Name = ns, fs.Arg(0)
	if err := c.Patch(ctx, ss, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		return fmt.Errorf("annotating SiteSync %s/%s: %w", ns, fs.Arg(0), err)
	}
	if _, err := fmt.Fprintf(stdout, "SiteSync %s/%s: rollout %sd\n", ns, ss.Name, verb); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}
