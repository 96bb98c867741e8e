# shellcheck shell=bash
# The cluster's own Kafka and SecantusDB: deploy/local/stack.sh (the same servers as the tests' stack), with its
# state in $STATE/stack, bound to the bridge address so pods reach them, on ports of its own. The shared test stack
# on 127.0.0.1 stays as it is: pods cannot reach the host's loopback, and Kafka hands clients the address it
# advertises. Sourced by cluster.sh.

cluster_stack() {
  env -u MONGODB_URI -u KAFKA_BROKERS STACK_HOST="$NODE_IP" CRM_STACK_DIR="$STATE/stack" \
    STACK_MONGO_PORT="$CLUSTER_MONGO_PORT" STACK_KAFKA_PORT="$CLUSTER_KAFKA_PORT" \
    STACK_KAFKA_CONTROLLER_PORT="$CLUSTER_KAFKA_CONTROLLER_PORT" bash "$REPO_ROOT/deploy/local/stack.sh" "$@"
}

start_cluster_stack() {
  cluster_stack start
  note "Kafka $NODE_IP:$CLUSTER_KAFKA_PORT, SecantusDB $NODE_IP:$CLUSTER_MONGO_PORT"
}
