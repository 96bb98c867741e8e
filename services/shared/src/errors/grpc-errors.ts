import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { AppError } from './app-error';
import { ERROR_CATALOGUE, isErrorCode } from './catalogue';

const ERROR_METADATA_KEY = 'x-app-error-bin';

/** Turns any thrown value into a gRPC error; catalogue errors travel whole in binary metadata. */
export function toGrpcError(error: unknown): Partial<ServiceError> {
  const appError = error instanceof AppError ? error : new AppError('INTERNAL_ERROR');
  const metadata = new Metadata();
  const payload = { code: appError.code, message: appError.message, details: appError.details };
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify(payload)));
  return { code: ERROR_CATALOGUE[appError.code].grpc, details: appError.message, metadata };
}

/**
 * The inverse of toGrpcError. A failure without our metadata maps by gRPC status: a passed deadline is
 * UPSTREAM_TIMEOUT (504, the service was too slow), an unreachable peer SERVICE_UNAVAILABLE (503).
 */
export function fromGrpcError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const serviceError = error as Partial<ServiceError>;
  const raw = appErrorPayload(serviceError);
  if (Buffer.isBuffer(raw)) {
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as { code?: unknown; message?: string; details?: Record<string, unknown> };
      if (isErrorCode(parsed.code)) return new AppError(parsed.code, parsed.message, parsed.details);
    } catch {
      // fall through to the status mapping
    }
  }
  if (serviceError.code === GrpcStatus.DEADLINE_EXCEEDED) return new AppError('UPSTREAM_TIMEOUT');
  if (serviceError.code === GrpcStatus.UNAVAILABLE) return new AppError('SERVICE_UNAVAILABLE');
  return new AppError('INTERNAL_ERROR');
}

/**
 * Whether a call failed because the service did not answer (not reachable, or not before the deadline), as
 * opposed to a service that answered with an error of its own (which carries our metadata).
 */
export function isTransportFailure(error: unknown): boolean {
  return transportFailureOf(error) !== undefined;
}

/** Which transport failure ended a call: not reachable, or no answer before its deadline; undefined otherwise. */
export function transportFailureOf(error: unknown): 'unreachable' | 'timed-out' | undefined {
  if (error === undefined || error === null) return undefined;
  const serviceError = error as Partial<ServiceError>;
  if (error instanceof AppError || appErrorPayload(serviceError) !== undefined) return undefined;
  if (serviceError.code === GrpcStatus.UNAVAILABLE) return 'unreachable';
  if (serviceError.code === GrpcStatus.DEADLINE_EXCEEDED) return 'timed-out';
  return undefined;
}

const appErrorPayload = (error: Partial<ServiceError>): unknown => error.metadata?.get(ERROR_METADATA_KEY)[0];
