{{- define "common.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .name }}
  labels:
    chart: {{ .root.Chart.Name }}-{{ .root.Chart.Version }}
data:
  owner: {{ .root.Values.global.owner }}
  cacheSize: {{ .root.Values.cache.size }}
{{- end -}}
