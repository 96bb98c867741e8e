#!/bin/sh
# Starts one process of the platform: the service named by the first argument, else by $SERVICE.
# `exec` makes node the direct child of tini, so SIGTERM reaches the service's own shutdown hooks.
set -eu

service="${1:-${SERVICE:-}}"
case "$service" in
  crm) entry=services/crm/src/main.ts ;;
  webhooks) entry=services/webhooks/src/main.ts ;;
  messaging) entry=services/messaging/src/main.ts ;;
  provider-simulator) entry=services/messaging/src/simulator/main.ts ;;
  gateway) entry=gateway/src/main.ts ;;
  *)
    echo "usage: crm-entrypoint crm|webhooks|messaging|provider-simulator|gateway (or set SERVICE); got '${service}'" >&2
    exit 64
    ;;
esac

cd /app
exec node --import tsx "$entry"
