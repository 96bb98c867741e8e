import { status as GrpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { AppError } from './app-error';
import { ERROR_CATALOGUE, errorType, type ErrorCode } from './catalogue';
import { fromGrpcError, isTransportFailure, toGrpcError } from './grpc-errors';

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('error catalogue over gRPC', () => {
  it.each(CODES)('%s survives the trip service → gateway with its message and details', (code) => {
    const original = new AppError(code, `message for ${code}`, { field: 'x', n: 1 });
    const wire = toGrpcError(original);
    expect(wire.code).toBe(ERROR_CATALOGUE[code].grpc);
    const back = fromGrpcError(wire);
    expect(back.code).toBe(code);
    expect(back.message).toBe(`message for ${code}`);
    expect(back.details).toEqual({ field: 'x', n: 1 });
    expect(back.httpStatus).toBe(ERROR_CATALOGUE[code].http);
  });

  it('never echoes an unexpected error: it becomes INTERNAL_ERROR with the default message', () => {
    const back = fromGrpcError(toGrpcError(new Error('secret connection string mongodb://user:pass@db')));
    expect(back.code).toBe('INTERNAL_ERROR');
    expect(back.message).not.toContain('secret');
  });

  it('maps an unreachable service to SERVICE_UNAVAILABLE (503) and a passed deadline to UPSTREAM_TIMEOUT (504)', () => {
    expect(fromGrpcError({ code: GrpcStatus.UNAVAILABLE }).code).toBe('SERVICE_UNAVAILABLE');
    expect(fromGrpcError({ code: GrpcStatus.DEADLINE_EXCEEDED }).code).toBe('UPSTREAM_TIMEOUT');
    expect(fromGrpcError({ code: GrpcStatus.DEADLINE_EXCEEDED }).httpStatus).toBe(504);
  });

  it('counts as a transport failure only a service that did not answer, not one that answered an error', () => {
    expect(isTransportFailure({ code: GrpcStatus.UNAVAILABLE })).toBe(true);
    expect(isTransportFailure({ code: GrpcStatus.DEADLINE_EXCEEDED })).toBe(true);
    expect(isTransportFailure({ code: GrpcStatus.NOT_FOUND })).toBe(false);
    // A service that is up and says "retry" (a concurrent change) is answering: it must not open a breaker.
    expect(isTransportFailure(toGrpcError(new AppError('SERVICE_UNAVAILABLE')))).toBe(false);
    expect(isTransportFailure(toGrpcError(new AppError('UPSTREAM_TIMEOUT')))).toBe(false);
  });

  it('gives every HTTP status of the catalogue a public error type', () => {
    expect(errorType(401)).toBe('unauthorized');
    expect(errorType(410)).toBe('gone');
    expect(errorType(422)).toBe('unprocessable');
    for (const code of CODES) expect(errorType(ERROR_CATALOGUE[code].http)).toMatch(/^[a-z_]+$/);
  });
});
