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
	"flag"
	"fmt"
	"strings"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/validate"
)

// validationFlags are the flags that say what rendered objects are checked against, as spec.validation and
// spec.policy do.
type validationFlags struct {
	mode     *string
	versions listFlag
	crds     listFlag
	policies listFlag
}

// checkOptions are what a checkout's rendered objects are checked against.
type checkOptions struct {
	validation gitops.ValidationOptions
	policy     gitops.PolicyOptions
}

// apply sets the checks of c.
func (o checkOptions) apply(c *gitops.Checkout) {
	c.Validation, c.Policy = o.validation, o.policy
}

// listFlag collects a repeated string flag.
type listFlag []string

func (f *listFlag) String() string     { return strings.Join(*f, ",") }
func (f *listFlag) Set(s string) error { *f = append(*f, s); return nil }

func addValidationFlags(fs *flag.FlagSet) *validationFlags {
	v := &validationFlags{}
	v.mode = fs.String("validation", string(gitops.ValidationEnforce),
		"Enforce (an invalid object fails its site), Warn or Off")
	fs.Var(&v.versions, "kubernetes-version", "Kubernetes version [SITE=]V whose schemas apply (default "+
		validate.DefaultKubernetesVersion()+"; repeatable)")
	fs.Var(&v.crds, "crds", "file or folder of the repository with CRDs, besides base/ (repeatable)")
	fs.Var(&v.policies, "policy", "file or folder of the repository with ValidatingAdmissionPolicies and "+
		"bindings every site must pass (repeatable)")
	return v
}

// options turns the flags into the checkout's checks.
func (v *validationFlags) options() (checkOptions, error) {
	o, err := v.validation()
	return checkOptions{validation: o, policy: gitops.PolicyOptions{Paths: v.policies}}, err
}

// validation turns the flags into the checkout's validation options.
func (v *validationFlags) validation() (gitops.ValidationOptions, error) {
	o := gitops.ValidationOptions{CRDPaths: v.crds}
	switch m := gitops.ValidationMode(*v.mode); strings.ToLower(string(m)) {
	case "enforce":
		o.Mode = gitops.ValidationEnforce
	case "warn":
		o.Mode = gitops.ValidationWarn
	case "off":
		o.Mode = gitops.ValidationOff
	default:
		return o, usageError{fmt.Sprintf("--validation %q: want Enforce, Warn or Off", m)}
	}
	for _, kv := range v.versions {
		site, version, perSite := strings.Cut(kv, "=")
		if !perSite {
			version = site
		}
		if _, err := validate.ParseKubernetesVersion(version); err != nil {
			return o, usageError{"--kubernetes-version: " + err.Error()}
		}
		if !perSite {
			o.KubernetesVersion = version
			continue
		}
		if o.SiteKubernetesVersions == nil {
			o.SiteKubernetesVersions = map[string]string{}
		}
		o.SiteKubernetesVersions[site] = version
	}
	return o, nil
}
