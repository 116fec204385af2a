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

{{/*
The gateway's container, but for its name (and restartPolicy as a native sidecar): the same in
either layout.
*/}}
{{- define "v2gw.container" -}}
{{- $postgres := eq .Values.store.type "postgres" -}}
image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
imagePullPolicy: {{ .Values.image.pullPolicy }}
env:
  - name: V2GW_MODE
    value: {{ .Values.mode }}
  {{- if eq .Values.mode "translate" }}
  - name: V2GW_V1_URL
    value: {{ .Values.v1.url | quote }}
  {{- end }}
  {{- if include "v2gw.apiOnLoopback" . }}
  # The sidecar layout: the API on loopback, for this pod's own containers alone (whoever reaches it
  # acts as the workload identity); probes and metrics on the admin listener, open to the pod network.
  - name: V2GW_HOST
    value: 127.0.0.1
  - name: V2GW_ADMIN_HOST
    value: 0.0.0.0
  {{- else }}
  - name: V2GW_HOST
    value: 0.0.0.0
  {{- end }}
  - name: V2GW_PORT
    value: {{ .Values.ports.api | quote }}
  - name: V2GW_ADMIN_PORT
    value: {{ .Values.ports.admin | quote }}
  {{- if $postgres }}
  - name: V2GW_STORE
    valueFrom:
      secretKeyRef:
        name: {{ .Values.store.postgres.secretName }}
        key: {{ .Values.store.postgres.secretKey }}
  # The image sets V2GW_DATA_DIR=/data; a gateway has one store, so clear it.
  - name: V2GW_DATA_DIR
    value: ""
  {{- else }}
  - name: V2GW_DATA_DIR
    value: /data
  {{- end }}
  {{- if and (eq .Values.mode "native") .Values.auth.issuers }}
  - name: V2GW_AUTH_ISSUER
    value: {{ join "," .Values.auth.issuers | quote }}
  - name: V2GW_AUTH_AUDIENCE
    value: {{ .Values.auth.audience | quote }}
  {{- else if and (eq .Values.mode "native") .Values.auth.disabled }}
  - name: V2GW_AUTH_DISABLED
    value: "true"
  {{- end }}
  {{- if and (eq .Values.mode "translate") .Values.identity.uid }}
  - name: V2GW_IDENTITY
    value: {{ .Values.identity.uid | quote }}
  - name: V2GW_IDENTITY_TOKEN_FILE
    value: /var/run/secrets/v2gw-identity/token
  - name: V2GW_ISSUER_URL
    value: {{ .Values.identity.issuerUrl | quote }}
  {{- if .Values.identity.allowRemote }}
  # identity.allowRemote: every caller that reaches the Service acts as the workload identity.
  - name: V2GW_IDENTITY_ALLOW_REMOTE
    value: "true"
  {{- end }}
  {{- end }}
  {{- if .Values.pageTokenKey.secretName }}
  - name: V2GW_PAGE_TOKEN_KEY_FILE
    value: /var/run/secrets/v2gw/page-token-key
  {{- end }}
  {{- if .Values.tls.secretName }}
  - name: V2GW_TLS_CERT
    value: /var/run/secrets/v2gw-tls/tls.crt
  - name: V2GW_TLS_KEY
    value: /var/run/secrets/v2gw-tls/tls.key
  {{- end }}
  - name: V2GW_SHED_MAX_RSS_BYTES
    value: {{ div (mul (include "v2gw.memoryLimitBytes" . | atoi) .Values.shedding.memoryPercent) 100 | quote }}
  {{- range $key, $value := .Values.config }}
  - name: V2GW_{{ snakecase $key | upper }}
    value: {{ include "v2gw.envValue" $value | quote }}
  {{- end }}
  {{- with .Values.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
ports:
  - name: api
    containerPort: {{ .Values.ports.api }}
  - name: admin
    containerPort: {{ .Values.ports.admin }}
startupProbe:
  httpGet:
    path: /healthz
    port: admin
  periodSeconds: {{ .Values.probes.startup.periodSeconds }}
  failureThreshold: {{ .Values.probes.startup.failureThreshold }}
readinessProbe:
  httpGet:
    path: /readyz
    port: admin
  periodSeconds: {{ .Values.probes.readiness.periodSeconds }}
  failureThreshold: {{ .Values.probes.readiness.failureThreshold }}
livenessProbe:
  httpGet:
    path: /healthz
    port: admin
  periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
  failureThreshold: {{ .Values.probes.liveness.failureThreshold }}
lifecycle:
  preStop:
    exec:
      command: ["sleep", "{{ .Values.preStopSleepSeconds }}"]
resources:
  {{- toYaml .Values.resources | nindent 2 }}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: ["ALL"]
volumeMounts:
  - name: tmp
    mountPath: /tmp
  {{- if not $postgres }}
  - name: data
    mountPath: /data
  {{- end }}
  {{- if .Values.pageTokenKey.secretName }}
  - name: page-token
    mountPath: /var/run/secrets/v2gw
    readOnly: true
  {{- end }}
  {{- if .Values.tls.secretName }}
  - name: tls
    mountPath: /var/run/secrets/v2gw-tls
    readOnly: true
  {{- end }}
  {{- if and (eq .Values.mode "translate") .Values.identity.uid }}
  - name: identity-token
    mountPath: /var/run/secrets/v2gw-identity
    readOnly: true
  {{- end }}
{{- end }}

{{/*
"true" in the sidecar layout: an identity is assumed (translate mode, identity.uid) and not opened
beyond the pod (identity.allowRemote), so the API binds loopback and no Service points at it.
*/}}
{{- define "v2gw.apiOnLoopback" -}}
{{- if and (eq .Values.mode "translate") .Values.identity.uid (not .Values.identity.allowRemote) }}true{{ end }}
{{- end }}
