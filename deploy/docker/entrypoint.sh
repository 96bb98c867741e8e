#!/bin/sh
# Starts one process of the platform: the one named by the first argument, else by $SERVICE (each image target
# sets it). Plain node on the compiled JavaScript (npm run build's dist/); nothing is transpiled or written at
# run time. `exec` makes node the direct child of tini, so SIGTERM reaches the service's own shutdown hooks.
set -eu

service="${1:-${SERVICE:-}}"
case "$service" in
  crm) entry=dist/services/crm/src/main.js ;;
  webhooks) entry=dist/services/webhooks/src/main.js ;;
  messaging) entry=dist/services/messaging/src/main.js ;;
  agents) entry=dist/services/agents/src/main.js ;;
  gateway) entry=dist/gateway/src/main.js ;;
  # The Helm chart's pre-install/pre-upgrade hook: the events topic with its replication factor.
  create-topic) entry=dist/services/shared/src/bin/create-topic.js ;;
  *)
    echo "usage: crm-entrypoint crm|webhooks|messaging|agents|gateway|create-topic (or set SERVICE); got '${service}'" >&2
    exit 64
    ;;
esac

cd /app
exec node "$entry"
