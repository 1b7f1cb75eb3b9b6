{{- define "lib.label" -}}
from-library-{{ .Chart.Name }}
{{- end -}}
