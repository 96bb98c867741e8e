{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "crm.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified name; a release named like the chart is not repeated. */}}
{{- define "crm.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of one service's objects: (dict "root" $ "service" "crm"). */}}
{{- define "crm.serviceName" -}}
{{- printf "%s-%s" (include "crm.fullname" .root | trunc 50 | trimSuffix "-") .service }}
{{- end }}

{{- define "crm.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object, less the identifying ones. */}}
{{- define "crm.commonLabels" -}}
helm.sh/chart: {{ include "crm.chart" . }}
app.kubernetes.io/part-of: {{ include "crm.name" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels of the chart-wide objects (ConfigMap, Secret, ServiceAccount). */}}
{{- define "crm.labels" -}}
{{ include "crm.commonLabels" . }}
app.kubernetes.io/name: {{ include "crm.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one service's objects: (dict "root" $ "service" "crm"). */}}
{{- define "crm.serviceLabels" -}}
{{ include "crm.commonLabels" .root }}
{{ include "crm.selectorLabels" . }}
{{- end }}

{{- define "crm.selectorLabels" -}}
app.kubernetes.io/name: {{ include "crm.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .service }}
{{- end }}

{{- define "crm.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "crm.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Name of the Secret holding MONGODB_URI, CURSOR_SECRET, PROVIDER_CALLBACK_SECRET and PROVIDER_TOKEN. */}}
{{- define "crm.secretName" -}}
{{- default (include "crm.fullname" .) .Values.secret.existingSecret }}
{{- end }}

{{/*
The ClusterIP Service of the messaging service's provider-callback listener (HTTP). Named "<release>-callbacks"
rather than "<release>-messaging-callbacks" so that it stays within the 63 characters of a DNS label.
*/}}
{{- define "crm.callbacksServiceName" -}}
{{- include "crm.serviceName" (dict "root" . "service" "callbacks") }}
{{- end }}

{{- define "crm.configMapName" -}}
{{- include "crm.fullname" . }}
{{- end }}

{{/* Image of one service: (dict "root" $ "values" .Values.crm). */}}
{{- define "crm.image" -}}
{{- $image := .values.image | default dict }}
{{- $repository := $image.repository | default .root.Values.image.repository }}
{{- $tag := $image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- printf "%s:%s" $repository (toString $tag) }}
{{- end }}

{{/* In-cluster gRPC address of a service: (dict "root" $ "service" "crm" "port" 50051). */}}
{{- define "crm.grpcUrl" -}}
{{- printf "dns:///%s:%v" (include "crm.serviceName" .) .port }}
{{- end }}

{{/*
A service's `env:` map as container env entries, sorted by name. Empty values are left out, so the
process's own default applies (an empty string is not the same as unset for every variable).
*/}}
{{- define "crm.envList" -}}
{{- range $name, $value := . }}
{{- if ne (toString $value) "" }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* Hardened container security context, shared by every container. */}}
{{- define "crm.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
runAsNonRoot: true
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/*
What every service's pod shares: env from the ConfigMap and the Secret, /tmp as an emptyDir.
*/}}
{{- define "crm.sharedEnvFrom" -}}
- configMapRef:
    name: {{ include "crm.configMapName" . }}
{{- end }}

{{- define "crm.secretEnv" -}}
- name: MONGODB_URI
  valueFrom:
    secretKeyRef:
      name: {{ include "crm.secretName" . }}
      key: MONGODB_URI
{{- end }}

{{- define "crm.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{- define "crm.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end }}

{{/* Pod scheduling knobs of one service block. */}}
{{- define "crm.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* PodDisruptionBudget of one service: (dict "root" $ "service" "crm" "values" .Values.crm). */}}
{{- define "crm.pdb" -}}
{{- if .root.Values.podDisruptionBudget.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "crm.serviceName" . }}
  labels:
    {{- include "crm.serviceLabels" . | nindent 4 }}
spec:
  {{- if hasKey .values.pdb "minAvailable" }}
  minAvailable: {{ .values.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ .values.pdb.maxUnavailable | default 1 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "crm.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/* HorizontalPodAutoscaler of one service, when its autoscaling is enabled. */}}
{{- define "crm.hpa" -}}
{{- if .values.autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "crm.serviceName" . }}
  labels:
    {{- include "crm.serviceLabels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "crm.serviceName" . }}
  minReplicas: {{ .values.autoscaling.minReplicas }}
  maxReplicas: {{ .values.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .values.autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
{{- end }}
