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

package bench

import (
	"fmt"
	"strings"
)

// helmShape is the repository of P18: charts/ holds three charts the project wrote (web; cache, with a vendored
// subchart; guard), and every site renders all three from its overlay: web with the site's own values file, the
// other two with values every site shares.
type helmShape struct{ Sites int }

func (s helmShape) siteNames() []string {
	names := make([]string, s.Sites)
	for i := range names {
		names[i] = siteName(i)
	}
	return names
}

// files is the repository's content.
func (s helmShape) files() map[string]string {
	files := helmCharts()
	for i := range s.Sites {
		dir := "overlays/" + siteName(i) + "/"
		files[dir+"kustomization.yaml"] = helmOverlay()
		files[dir+"site-values.yaml"] = fmt.Sprintf("site: %s\nreplicas: %d\nimage:\n  tag: \"1.%d\"\n",
			siteName(i), 1+i%3, i%7)
	}
	return files
}

// helmOverlay is every site's kustomization: the three charts, in the site's namespace.
func helmOverlay() string {
	return `namespace: apps
helmGlobals:
  chartHome: ../../charts
helmCharts:
- name: web
  releaseName: web
  valuesFile: site-values.yaml
- name: cache
  releaseName: cache
  valuesInline:
    size: 2Gi
- name: guard
  releaseName: guard
`
}

// helmCharts are the three charts, by path.
func helmCharts() map[string]string {
	return map[string]string{
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 1.2.0\nappVersion: \"1.0\"\n",
		"charts/web/values.yaml": "site: none\nreplicas: 1\nimage:\n  repository: registry.example/web\n  tag: \"\"\n",
		"charts/web/templates/_helpers.tpl": `{{- define "web.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
site: {{ .Values.site }}
{{- end -}}
`,
		"charts/web/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "web.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      labels:
        {{- include "web.labels" . | nindent 8 }}
    spec:
      containers:
      - name: web
        image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
        ports:
        - containerPort: 8080
`,
		"charts/web/templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  selector:
    app.kubernetes.io/instance: {{ .Release.Name }}
  ports:
  - port: 80
    targetPort: 8080
`,
		"charts/web/templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  namespace: {{ .Release.Namespace }}
data:
  greeting: {{ tpl "hello from {{ .Values.site }}" . | quote }}
`,
		"charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 0.4.0\ndependencies:\n" +
			"- name: exporter\n  version: 0.1.0\n",
		"charts/cache/values.yaml": "size: 1Gi\nexporter:\n  port: 9121\n",
		"charts/cache/templates/statefulset.yaml": `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  serviceName: {{ .Release.Name }}
  replicas: 1
  selector:
    matchLabels: {app: cache}
  template:
    metadata:
      labels: {app: cache}
    spec:
      containers:
      - name: cache
        image: registry.example/cache:7
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: {{ .Values.size }}
`,
		"charts/cache/charts/exporter/Chart.yaml":  "apiVersion: v2\nname: exporter\nversion: 0.1.0\n",
		"charts/cache/charts/exporter/values.yaml": "port: 9000\n",
		"charts/cache/charts/exporter/templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-exporter
  namespace: {{ .Release.Namespace }}
spec:
  selector: {app: cache}
  ports:
  - port: {{ .Values.port }}
`,
		"charts/guard/Chart.yaml":  "apiVersion: v2\nname: guard\nversion: 2.0.1\n",
		"charts/guard/values.yaml": "ingress: true\n",
		"charts/guard/templates/policy.yaml": `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ .Release.Name }}-default-deny
  namespace: {{ .Release.Namespace }}
spec:
  podSelector: {}
  policyTypes: [Ingress]
`,
		"charts/guard/templates/rbac.yaml": strings.TrimLeft(`
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ .Release.Name }}-read
  namespace: {{ .Release.Namespace }}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
`, "\n"),
	}
}
