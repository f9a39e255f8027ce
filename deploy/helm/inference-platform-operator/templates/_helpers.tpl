{{- define "ipo.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ipo.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ipo.labels" -}}
{{ include "ipo.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ipo.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ipo.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Whether a monitor kind is rendered: "auto" follows the cluster's API versions. */}}
{{- define "ipo.monitor" -}}
{{- $enabled := index . 0 -}}
{{- $kind := index . 1 -}}
{{- $caps := index . 2 -}}
{{- if or (eq (toString $enabled) "true") (and (eq (toString $enabled) "auto") ($caps.APIVersions.Has (printf "monitoring.coreos.com/v1/%s" $kind))) -}}
true
{{- end -}}
{{- end -}}
