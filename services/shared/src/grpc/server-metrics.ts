import { status as GrpcStatus } from '@grpc/grpc-js';
import { instruments, secondsHistogram } from '../telemetry/metrics';

const rpc = instruments((meter) => ({
  duration: secondsHistogram(
    meter,
    'rpc_server_duration_seconds',
    'Time to answer a gRPC call, by service, method and status (streams: until the last message or the failure).',
  ),
}));

/**
 * Starts timing a call; the returned function records it with its final status. Labels are the method's path
 * (bounded by the proto), never the request.
 */
export function timeRpc(call: { getPath(): string }): (statusCode: number) => void {
  const startedAt = performance.now();
  const [, service = '', method = ''] = call.getPath().split('/');
  return (statusCode) =>
    rpc().duration.record((performance.now() - startedAt) / 1000, {
      rpc_service: service,
      rpc_method: method,
      rpc_grpc_status_code: statusCode,
    });
}

export const RPC_OK = GrpcStatus.OK;
export const RPC_CANCELLED = GrpcStatus.CANCELLED;
export const RPC_UNKNOWN = GrpcStatus.UNKNOWN;
