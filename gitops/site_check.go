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
	"context"

	"github.com/siteops/siteops/gitops/internal/objects"
)

// checkOutput validates a site's rendered output (b.check) and checks it against the admission policies
// (b.policy), decoding it once for both. Validation runs first and leaves the objects as rendered (it prunes
// and defaults a custom resource on a copy), so the policies read the objects as rendered, before the site's
// defaulting and mutating admission, as docs/policy.md says. It records the warnings and the policies'
// verdict in r; the error fails the site.
func (b builder) checkOutput(ctx context.Context, r *siteRun, yaml []byte) error {
	if b.check == nil && b.policy == nil {
		return nil
	}
	objs, err := objects.Decode(yaml)
	if err != nil {
		if b.check != nil {
			return failed(FailureValidation, err)
		}
		return failed(FailurePolicyDenied, err)
	}
	if b.check != nil {
		if r.checked, err = b.check.check(ctx, r.name, objs); err != nil {
			return err
		}
	}
	if b.policy != nil {
		var warnings []string
		r.policy, warnings, err = b.policy.check(ctx, objs)
		r.checked = append(r.checked, warnings...)
	}
	return err
}
