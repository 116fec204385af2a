{{/* The chart's name, at most 63 characters (a label value's limit). */}}
{{- define "v2gw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The objects' name: the release's, unless it already contains the chart's name. */}}
{{- define "v2gw.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "v2gw.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels that pick this release's pods; they never change once installed. */}}
{{- define "v2gw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "v2gw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "v2gw.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "v2gw.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "v2gw.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "v2gw.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* resources.limits.memory in bytes; the schema allows only Mi and Gi, so this is exact. */}}
{{- define "v2gw.memoryLimitBytes" -}}
{{- $limit := .Values.resources.limits.memory }}
{{- if hasSuffix "Gi" $limit }}
{{- mul (trimSuffix "Gi" $limit | atoi) 1073741824 }}
{{- else }}
{{- mul (trimSuffix "Mi" $limit | atoi) 1048576 }}
{{- end }}
{{- end }}

{{/*
An environment variable's value as the gateway reads it. Numbers from values files reach templates
as floats, which print as 1.6777216e+07; JSON prints them as the digits the gateway accepts.
*/}}
{{- define "v2gw.envValue" -}}
{{- if kindIs "string" . }}{{ . }}{{ else }}{{ toJson . }}{{ end }}
{{- end }}
