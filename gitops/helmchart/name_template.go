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

package helmchart

import (
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/kustomize/api/types"
)

// templateName is the release name a helmCharts entry's nameTemplate gives, as `helm template --name-template`
// makes it: the template run without data, with Sprig's functions. The random and clock functions are refused,
// as in charts, since they would name the release anew at every render. With releaseName set too, Helm refuses
// the pair, and so does this.
func templateName(c types.HelmChart) (string, error) {
	if c.ReleaseName != "" {
		return "", errors.New("nameTemplate and releaseName are both set: Helm takes one (set releaseName)")
	}
	funcs := sprig.TxtFuncMap()
	for name, f := range refusingFuncs() {
		funcs[name] = f
	}
	t, err := template.New("name-template").Funcs(funcs).Parse(c.NameTemplate)
	if err != nil {
		return "", fmt.Errorf("nameTemplate: %w", err)
	}
	var b strings.Builder
	if err := t.Execute(&b, nil); err != nil {
		return "", fmt.Errorf("nameTemplate: %w", err)
	}
	if b.Len() == 0 {
		return "", errors.New("nameTemplate gives an empty release name")
	}
	return b.String(), nil
}
