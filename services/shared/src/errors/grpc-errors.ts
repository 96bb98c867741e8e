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

/** The inverse of toGrpcError. A failure without our metadata (deadline, unavailable peer) maps by gRPC status. */
export function fromGrpcError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const serviceError = error as Partial<ServiceError>;
  const raw = serviceError.metadata?.get(ERROR_METADATA_KEY)[0];
  if (Buffer.isBuffer(raw)) {
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as { code?: unknown; message?: string; details?: Record<string, unknown> };
      if (isErrorCode(parsed.code)) return new AppError(parsed.code, parsed.message, parsed.details);
    } catch {
      // fall through to the status mapping
    }
  }
  if (serviceError.code === GrpcStatus.UNAVAILABLE || serviceError.code === GrpcStatus.DEADLINE_EXCEEDED) {
    return new AppError('SERVICE_UNAVAILABLE');
  }
  return new AppError('INTERNAL_ERROR');
}
