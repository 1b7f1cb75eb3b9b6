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

package gitops

import (
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree/treetest"
)

func TestFailureReasonFollowsTheErrorChain(t *testing.T) {
	_, escape := guard.Site(&treetest.Map{}, "../x") // `"../x" leaves the checkout`
	_, remote := guard.Site(&treetest.Map{Files: map[string]string{
		"s/kustomization.yaml": "resources:\n- https://example.com/remote.yaml\n",
	}}, "s")
	cases := map[string]struct {
		err  error
		want FailureReason
	}{
		"plaintext, wrapped": {fmt.Errorf("site prod: %w", failed(FailurePlaintextSecret, errors.New("secret"))),
			FailurePlaintextSecret},
		"guard refusal":       {escape, FailureGuardRefused},
		"wrapped guard":       {fmt.Errorf("reading: %w", remote), FailureGuardRefused},
		"any other build err": {errors.New("kustomize build overlays/prod: no matches"), FailureKustomize},
		"explicit reason":     {failed(FailureNotPublished, errors.New("push failed")), FailureNotPublished},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			NewWithT(t).Expect(failureReason(tc.err)).To(Equal(tc.want))
		})
	}
}
