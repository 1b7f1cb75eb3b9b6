//go:build e2e

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

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// shadowReportRouting is overlays/local/analysis-standby-report.yaml pointing the pre-promotion analysis at the
// shadow report of a manager on the host at 127.0.0.1:port.
func shadowReportRouting(port int) string {
	return fmt.Sprintf(
		`# The local cluster's kwok pods run no binary, so the pre-promotion analysis reads the shadow report of the
# standby manager running on the host at 127.0.0.1:%[1]d.
- op: replace
  path: /spec/metrics/0/provider/web/url
  value: http://127.0.0.1:%[1]d/standby
- op: replace
  path: /spec/metrics/0/interval
  value: 3s
`, port)
}

// shadowBody returns GET /shadow of the manager whose shadow report listens on port, or the error.
func shadowBody(port int) string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/standby", port))
	if err != nil {
		return err.Error()
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return string(b)
}

// shadowReport is the start of GET /shadow, for failure messages.
func shadowReport(port int) string {
	b := shadowBody(port)
	return b[:min(len(b), 4096)]
}

// unexpectedWrites reads unexpectedWrites from GET /shadow (the whole report: its recent list can be long);
// -1 when the report does not answer.
func unexpectedWrites(port int) int {
	var s struct {
		UnexpectedWrites int `json:"unexpectedWrites"`
	}
	if json.Unmarshal([]byte(shadowBody(port)), &s) != nil {
		return -1
	}
	return s.UnexpectedWrites
}

// disagree creates, in a new namespace ns, a Guestbook whose Deployment a ResourceQuota forbids: every
// reconcile wants to create it again, so a standby's shadow report counts it as an unexpected write (the
// leader's attempts fail the same way). The namespace is deleted on cleanup.
func disagree(t *testing.T, ns string) {
	t.Helper()
	kubectl(t, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = tryKubectl("delete", "namespace", ns, "--wait=false") })
	apply(t, ns, `
apiVersion: v1
kind: ResourceQuota
metadata: {name: no-deployments}
spec:
  hard: {count/deployments.apps: "0"}
`)
	// The quota counts once kube-controller-manager has written its status; only then is the Guestbook created.
	waitFor(t, time.Minute, "ResourceQuota status", func() (bool, string) {
		hard := jsonpath("-n", ns, "get", "resourcequota", "no-deployments", "-o", "jsonpath={.status.hard}")
		return hard != "", hard
	})
	apply(t, ns, `
apiVersion: v1
kind: ConfigMap
metadata: {name: gbconfig}
data: {title: disagree}
---
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata: {name: gb}
spec: {size: 1, configMapName: gbconfig}
`)
}
