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

package guard

import (
	"reflect"
	"testing"

	"github.com/siteops/siteops/gitops/internal/tree/treetest"
)

// TestDiscoverSitesSkipsADecapodBase: in Decapod's layout <group>/base sits beside the sites and is not one.
func TestDiscoverSitesSkipsADecapodBase(t *testing.T) {
	fs := &treetest.Map{Files: map[string]string{
		"lab/base/kustomization.yaml":    "resources: []\n",
		"lab/paris/kustomization.yaml":   "resources:\n- ../base\n",
		"lab/tokyo/kustomization.yaml":   "resources:\n- ../base\n",
		"lab/.hidden/kustomization.yaml": "resources: []\n",
		"lab/notes/README.md":            "not a site\n",
	}}
	got, err := DiscoverSites(fs, "lab")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"paris", "tokyo"}; !reflect.DeepEqual(got, want) {
		t.Errorf("DiscoverSites = %q, want %q", got, want)
	}
}
