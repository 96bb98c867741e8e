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

{{/*
The five processes, in the order their objects are rendered, and the shape of each: what its code reads and serves,
which the chart wires and an operator does not choose (the env names are those of its config.ts). What an operator
tunes is in the service's block of values.yaml. services.yaml renders every service from these two.
  listen      grpc: the gRPC server (headless Service, native gRPC probes); http: the HTTP API (gateway)
  hostEnv/portEnv  the bind address and port variables of that server
  callbacks   messaging's provider-callback listener (MESSAGING_HTTP_HOST/PORT on httpPort, its own Service)
  calls       the services it calls over gRPC (<SERVICE>_GRPC_URL, and NetworkPolicy egress)
  secrets     variables from the chart's Secret (optional: the key may be absent)
  internet    why it reaches public addresses on 443 (NetworkPolicy egress), if it does
  kafka       whether it uses Kafka (NetworkPolicy egress)
*/}}
{{- define "crm.serviceShapes" -}}
crm:
  listen: grpc
  hostEnv: CRM_GRPC_HOST
  portEnv: CRM_GRPC_PORT
  calls: []
  secrets: []
  kafka: true
webhooks:
  listen: grpc
  hostEnv: WEBHOOKS_GRPC_HOST
  portEnv: WEBHOOKS_GRPC_PORT
  # crm: which API keys were revoked (their subscriptions are paused).
  calls: [crm]
  # Encrypts the signing secrets at rest; the id and the old keys only matter across a key rotation.
  secrets:
    - {name: WEBHOOK_SECRETS_KEY}
    - {name: WEBHOOK_SECRETS_KEY_ID, optional: true}
    - {name: WEBHOOK_SECRETS_OLD_KEYS, optional: true}
  internet: customer webhook endpoints
  kafka: true
messaging:
  listen: grpc
  hostEnv: MESSAGING_GRPC_HOST
  portEnv: MESSAGING_GRPC_PORT
  callbacks: true
  # Contacts and members (and contacts created by inbound messages) come from the crm service.
  calls: [crm]
  # The HMAC secret the providers sign their callbacks with; the bearer token sent to them (required: messaging
  # refuses to start in production with its development token).
  secrets:
    - {name: PROVIDER_CALLBACK_SECRET}
    - {name: PROVIDER_TOKEN, optional: true}
  internet: the messaging providers
  kafka: true
agents:
  listen: grpc
  hostEnv: AGENTS_GRPC_HOST
  portEnv: AGENTS_GRPC_PORT
  # crm: contacts, members, tags, the organization's timezone; messaging: conversations, history, sends.
  calls: [crm, messaging]
  # The model provider's key (MODEL_PROVIDER=openai).
  secrets:
    - {name: OPENAI_API_KEY, optional: true}
  internet: the model API
  kafka: true
gateway:
  listen: http
  hostEnv: HOST
  portEnv: PORT
  calls: [crm, webhooks, messaging, agents]
  # Shared by every replica, so that a cursor issued by one replica is accepted by another.
  secrets:
    - {name: CURSOR_SECRET}
    - {name: CURSOR_PREVIOUS_SECRET, optional: true}
  kafka: false
{{- end }}

{{- define "crm.serviceNames" -}}
[crm, webhooks, messaging, agents, gateway]
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

{{/* The ServiceAccount of one service: (dict "root" $ "service" "crm"). One per service, token not mounted. */}}
{{- define "crm.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.create }}
{{- include "crm.serviceName" . }}
{{- else }}
{{- default "default" .root.Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Name of the Secret holding MONGODB_URI, CURSOR_SECRET, PROVIDER_CALLBACK_SECRET, WEBHOOK_SECRETS_KEY and PROVIDER_TOKEN. */}}
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

{{/* MongoDB's in-cluster replica set (mongodb.mode=operator): the MongoDBCommunity resource's name. */}}
{{- define "crm.mongodbName" -}}
{{- printf "%s-mongodb" (include "crm.fullname" . | trunc 50 | trimSuffix "-") }}
{{- end }}

{{/* Strimzi's Kafka cluster (kafka.mode=operator). */}}
{{- define "crm.kafkaName" -}}
{{- printf "%s-kafka" (include "crm.fullname" . | trunc 40 | trimSuffix "-") }}
{{- end }}

{{/* KAFKA_BROKERS: Strimzi's bootstrap Service (its TLS + SCRAM listener), or the external list. */}}
{{- define "crm.kafkaBrokers" -}}
{{- if eq .Values.kafka.mode "operator" }}
{{- printf "%s-kafka-bootstrap:9093" (include "crm.kafkaName" .) }}
{{- else }}
{{- required "kafka.external.brokers is required with kafka.mode=external" .Values.kafka.external.brokers }}
{{- end }}
{{- end }}

{{/*
Kafka logins. Every service that uses Kafka, and the external mode's topic hook (createTopic), logs in as a user of
its own (SASL/SCRAM): operator mode always, over TLS (Strimzi's listener on 9093, its cluster CA trusted); external
mode unless kafka.external.sasl.enabled=false, with TLS when kafka.external.tls.enabled. Each password is the key
KAFKA_PASSWORD_<SERVICE> of the chart's (or the existing) Secret; the topic hook's, of its own hook Secret.
*/}}
{{- define "crm.kafkaSasl" -}}
{{- or (eq .Values.kafka.mode "operator") .Values.kafka.external.sasl.enabled }}
{{- end }}

{{- define "crm.kafkaTls" -}}
{{- or (eq .Values.kafka.mode "operator") .Values.kafka.external.tls.enabled }}
{{- end }}

{{/* The Secret and key holding the PEM of the CA the brokers' certificates chain to; empty: the image's trusted CAs. */}}
{{- define "crm.kafkaCaSecret" -}}
{{- if eq .Values.kafka.mode "operator" }}
{{- printf "name: %s-cluster-ca-cert\nkey: ca.crt" (include "crm.kafkaName" .) }}
{{- else if and .Values.kafka.external.tls.enabled .Values.kafka.external.tls.caSecret.name }}
{{- printf "name: %s\nkey: %s" .Values.kafka.external.tls.caSecret.name .Values.kafka.external.tls.caSecret.key }}
{{- end }}
{{- end }}

{{/* The user one service logs in as: (dict "root" $ "service" "crm"); Strimzi names the user after its KafkaUser. */}}
{{- define "crm.kafkaUsername" -}}
{{- if eq .root.Values.kafka.mode "operator" }}
{{- include "crm.serviceName" . }}
{{- else }}
{{- required (printf "kafka.external.sasl.usernames.%s is required with kafka.external.sasl.enabled" .service) (index .root.Values.kafka.external.sasl.usernames .service) }}
{{- end }}
{{- end }}

{{- define "crm.kafkaPasswordKey" -}}
{{- printf "KAFKA_PASSWORD_%s" (.service | snakecase | upper) }}
{{- end }}

{{/* The services that use Kafka (their shape's `kafka`), as a YAML list. */}}
{{- define "crm.kafkaServices" -}}
{{- $shapes := include "crm.serviceShapes" . | fromYaml }}
{{- range $service := include "crm.serviceNames" . | fromYamlArray }}
{{- if (index $shapes $service).kafka }}
- {{ $service }}
{{- end }}
{{- end }}
{{- end }}

{{/*
One Kafka client's login and TLS: (dict "root" $ "service" "crm"), and "secretName" for a Secret other than the
chart's. The password never appears in the manifest.
*/}}
{{- define "crm.kafkaEnv" -}}
{{- if eq (include "crm.kafkaSasl" .root) "true" }}
- name: KAFKA_SASL_MECHANISM
  value: {{ ternary "scram-sha-512" .root.Values.kafka.external.sasl.mechanism (eq .root.Values.kafka.mode "operator") | quote }}
- name: KAFKA_SASL_USERNAME
  value: {{ include "crm.kafkaUsername" . | quote }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .secretName | default (include "crm.secretName" .root) }}
      key: {{ include "crm.kafkaPasswordKey" . }}
{{- end }}
{{- if eq (include "crm.kafkaTls" .root) "true" }}
- name: KAFKA_SSL
  value: "true"
{{- if include "crm.kafkaCaSecret" .root }}
- name: KAFKA_SSL_CA_FILE
  value: /etc/crm/kafka-ca/ca.crt
{{- end }}
{{- end }}
{{- end }}

{{- define "crm.kafkaCaVolumeMount" -}}
{{- if include "crm.kafkaCaSecret" . }}
- name: kafka-ca
  mountPath: /etc/crm/kafka-ca
  readOnly: true
{{- end }}
{{- end }}

{{- define "crm.kafkaCaVolume" -}}
{{- with include "crm.kafkaCaSecret" . | fromYaml }}
- name: kafka-ca
  secret:
    secretName: {{ .name }}
    items:
      - key: {{ .key }}
        path: ca.crt
{{- end }}
{{- end }}

{{/*
MONGODB_URI of one service: (dict "root" $ "service" "crm"). Each service has its own credentials, limited to its
own database. operator: the connection-string Secret the MongoDB Community Operator writes for the service's
user (<resource>-<auth db>-<user>); external: the key MONGODB_URI_<SERVICE> of the chart's (or the existing) Secret.
*/}}
{{- define "crm.secretEnv" -}}
- name: MONGODB_URI
  valueFrom:
    secretKeyRef:
      {{- if eq .root.Values.mongodb.mode "operator" }}
      name: {{ printf "%s-admin-%s" (include "crm.mongodbName" .root) .service }}
      key: connectionString.standard
      {{- else }}
      name: {{ include "crm.secretName" .root }}
      key: {{ printf "MONGODB_URI_%s" (upper .service) }}
      {{- end }}
{{- end }}

{{/*
SERVICE_TOKEN_SECRET (and, during a rotation, SERVICE_TOKEN_OLD_SECRETS): every process signs its gRPC calls with it
and every service refuses a call without a valid token (docs/security.md "Service identity").
*/}}
{{- define "crm.identityEnv" -}}
- name: SERVICE_TOKEN_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ include "crm.secretName" . }}
      key: SERVICE_TOKEN_SECRET
- name: SERVICE_TOKEN_OLD_SECRETS
  valueFrom:
    secretKeyRef:
      name: {{ include "crm.secretName" . }}
      key: SERVICE_TOKEN_OLD_SECRETS
      optional: true
{{- end }}

{{/* METRICS_HOST/METRICS_PORT: the Prometheus exporter of every process (METRICS_PORT=0 turns it off). */}}
{{- define "crm.metricsEnv" -}}
- name: METRICS_HOST
  value: "0.0.0.0"
- name: METRICS_PORT
  value: {{ ternary .Values.metrics.port 0 .Values.metrics.enabled | quote }}
{{- end }}

{{- define "crm.metricsContainerPort" -}}
{{- if .Values.metrics.enabled }}
- name: metrics
  containerPort: {{ .Values.metrics.port }}
  protocol: TCP
{{- end }}
{{- end }}

{{- define "crm.metricsServicePort" -}}
{{- if .Values.metrics.enabled }}
- name: metrics
  port: {{ .Values.metrics.port }}
  targetPort: metrics
  protocol: TCP
  appProtocol: http
{{- end }}
{{- end }}

{{/* Pod annotations of one service: the config checksum, Prometheus' scrape hints, the block's own. */}}
{{- define "crm.podAnnotations" -}}
checksum/config: {{ include (print .root.Template.BasePath "/configmap.yaml") .root | sha256sum }}
{{- if and .root.Values.metrics.enabled .root.Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .root.Values.metrics.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- with .values.podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
preStop: keep serving while the endpoint's removal reaches kube-proxy, Ingress controllers and the gRPC clients'
DNS; SIGTERM (the process's drain) follows. terminationGracePeriodSeconds must cover it plus the drain (20 s).
*/}}
{{- define "crm.lifecycle" -}}
{{- if gt (int .Values.preStopSleepSeconds) 0 }}
lifecycle:
  preStop:
    exec:
      command: ["sleep", {{ .Values.preStopSleepSeconds | quote }}]
{{- end }}
{{- end }}

{{/*
A probe's handler for one service: (dict ... "shape" <its shape> "values" <its values> ["path" "/readyz"]). A gRPC
server: the native gRPC probe on its port; the gateway: GET <path> (default /healthz) on its `http` port.
*/}}
{{- define "crm.probeHandler" -}}
{{- if eq .shape.listen "grpc" }}
grpc:
  port: {{ .values.port }}
{{- else }}
httpGet:
  path: {{ .path | default "/healthz" }}
  port: http
{{- end }}
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

{{/*
Pod scheduling of one service: (dict "root" $ "service" "crm" "values" .Values.crm). With podSpread.enabled, replicas
spread over nodes (hard) and zones (soft), and prefer nodes without a replica of the same service.
*/}}
{{- define "crm.scheduling" -}}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if .values.affinity }}
affinity:
  {{- toYaml .values.affinity | nindent 2 }}
{{- else if .root.Values.podSpread.enabled }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "crm.selectorLabels" . | nindent 14 }}
{{- end }}
{{- if .root.Values.podSpread.enabled }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: {{ .root.Values.podSpread.nodes }}
    labelSelector:
      matchLabels:
        {{- include "crm.selectorLabels" . | nindent 8 }}
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: {{ .root.Values.podSpread.zones }}
    labelSelector:
      matchLabels:
        {{- include "crm.selectorLabels" . | nindent 8 }}
{{- end }}
{{- with .values.tolerations }}
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
    {{- with .values.autoscaling.kafkaLag }}
    {{- if .enabled }}
    # Consumer lag per pod, from the services' own exporter through prometheus-adapter (custom.metrics.k8s.io).
    - type: Pods
      pods:
        metric:
          name: {{ .metricName }}
          {{- with .selector }}
          selector:
            {{- toYaml . | nindent 12 }}
          {{- end }}
        target:
          type: AverageValue
          averageValue: {{ .targetAverageValue | quote }}
    {{- end }}
    {{- end }}
  {{- with .values.autoscaling.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{/* Egress every pod of the release needs: DNS, and the OTel collector when traces are exported. */}}
{{- define "crm.egressBase" -}}
- to:
    {{- toYaml .Values.networkPolicy.dns.to | nindent 4 }}
  ports:
    - { protocol: UDP, port: 53 }
    - { protocol: TCP, port: 53 }
{{- if .Values.otel.endpoint }}
- to:
    {{- toYaml .Values.networkPolicy.otelCollector.to | nindent 4 }}
  ports:
    {{- range .Values.networkPolicy.otelCollector.ports }}
    - { protocol: TCP, port: {{ . }} }
    {{- end }}
{{- end }}
{{- end }}

{{- define "crm.egressKafka" -}}
- to:
    {{- if eq .Values.kafka.mode "operator" }}
    - podSelector:
        matchLabels:
          strimzi.io/cluster: {{ include "crm.kafkaName" . }}
    {{- else }}
    {{- toYaml .Values.networkPolicy.kafka.to | nindent 4 }}
    {{- end }}
  ports:
    {{- if eq .Values.kafka.mode "operator" }}
    - { protocol: TCP, port: 9093 }
    {{- else }}
    {{- range .Values.networkPolicy.kafka.ports }}
    - { protocol: TCP, port: {{ . }} }
    {{- end }}
    {{- end }}
{{- end }}

{{/*
NetworkPolicy of one service: (dict "root" $ "service" "crm" "values" .Values.crm "shape" <its shape>). The release's
default-deny policy (networkpolicy.yaml) blocks everything else.
*/}}
{{- define "crm.networkPolicy" -}}
{{- $root := .root }}
{{- if $root.Values.networkPolicy.enabled }}
{{- $shapes := include "crm.serviceShapes" $root | fromYaml }}
{{- $service := .service }}
{{- $shape := .shape }}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "crm.serviceName" . }}
  labels:
    {{- include "crm.serviceLabels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "crm.selectorLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- if or (eq $shape.listen "http") $shape.callbacks }}
    # {{ if $shape.callbacks }}The providers' signed callbacks, from the internet{{ else }}The public API: from the Ingress controller / load balancer{{ end }} (networkPolicy.publicFrom; empty: any source).
    - ports:
        - { protocol: TCP, port: http }
      {{- with $root.Values.networkPolicy.publicFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- $callers := list }}
    {{- range $caller, $callerShape := $shapes }}
    {{- if has $service $callerShape.calls }}{{ $callers = append $callers $caller }}{{ end }}
    {{- end }}
    {{- if $callers }}
    # gRPC from the services that call this one.
    - ports:
        - { protocol: TCP, port: grpc }
      from:
        {{- range $callers | sortAlpha }}
        - podSelector:
            matchLabels:
              {{- include "crm.selectorLabels" (dict "root" $root "service" .) | nindent 14 }}
        {{- end }}
    {{- end }}
    {{- if $root.Values.metrics.enabled }}
    # Prometheus scrapes the exporter.
    - ports:
        - { protocol: TCP, port: metrics }
      from:
        {{- toYaml $root.Values.networkPolicy.prometheus.from | nindent 8 }}
    {{- end }}
  egress:
    {{- include "crm.egressBase" $root | nindent 4 }}
    # MongoDB: the service's own credentials reach only its own database.
    - to:
        {{- if eq $root.Values.mongodb.mode "operator" }}
        - podSelector:
            matchLabels:
              app: {{ include "crm.mongodbName" $root }}-svc
        {{- else }}
        {{- toYaml $root.Values.networkPolicy.mongodb.to | nindent 8 }}
        {{- end }}
      ports:
        {{- range $root.Values.networkPolicy.mongodb.ports }}
        - { protocol: TCP, port: {{ . }} }
        {{- end }}
    {{- if $shape.kafka }}
    {{- include "crm.egressKafka" $root | nindent 4 }}
    {{- end }}
    {{- range $shape.calls }}
    # gRPC to {{ . }}.
    - to:
        - podSelector:
            matchLabels:
              {{- include "crm.selectorLabels" (dict "root" $root "service" .) | nindent 14 }}
      ports:
        - { protocol: TCP, port: {{ (index $root.Values .).port }} }
    {{- end }}
    {{- with $shape.internet }}
    # HTTPS to the internet ({{ . }}), private ranges excluded.
    - to:
        - ipBlock:
            cidr: {{ $root.Values.networkPolicy.internet.cidr }}
            {{- with $root.Values.networkPolicy.internet.except }}
            except:
              {{- toYaml . | nindent 14 }}
            {{- end }}
      ports:
        {{- range $root.Values.networkPolicy.internet.ports }}
        - { protocol: TCP, port: {{ . }} }
        {{- end }}
    {{- end }}
    {{- with (.values.networkPolicy | default dict).extraEgress }}
    # This release's own additions (<service>.networkPolicy.extraEgress).
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end }}
{{- end }}
