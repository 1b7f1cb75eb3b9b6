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

package manifests

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestGrafanaComponentShipsTheDashboardsForGrafanasSidecar: base ships no dashboard; the grafana component
// adds one ConfigMap in the manager's namespace, labelled for Grafana's dashboard sidecar, whose every key is
// a dashboard (JSON with a uid). cmd/manager's dashboard test checks their queries against the series.
func TestGrafanaComponentShipsTheDashboardsForGrafanasSidecar(t *testing.T) {
	for _, r := range render(t) {
		if r.GetLabels()["grafana_dashboard"] != "" {
			t.Errorf("base renders %s %s, a dashboard, without the grafana component", r.GetKind(), r.GetName())
		}
	}
	cm := find(t, render(t, "base/components/grafana"), "ConfigMap", "siteops-grafana-dashboards")
	if cm.GetNamespace() != "siteops-system" || cm.GetLabels()["grafana_dashboard"] != "1" {
		t.Errorf("dashboards ConfigMap in namespace %q with labels %v, want siteops-system and grafana_dashboard=1",
			cm.GetNamespace(), cm.GetLabels())
	}
	var keys []string
	for k, v := range cm.GetDataMap() {
		keys = append(keys, k)
		var d struct {
			UID string `json:"uid"`
		}
		if err := json.Unmarshal([]byte(v), &d); err != nil || d.UID == "" {
			t.Errorf("%s is not a dashboard with a uid (%v)", k, err)
		}
	}
	slices.Sort(keys)
	if want := []string{"siteops-fleet.json", "siteops-manager.json", "siteops-sync.json"}; !slices.Equal(keys, want) {
		t.Errorf("dashboards %v, want %v", keys, want)
	}
}
