import type { paths } from './generated/api';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer O } ? O : never;

/** The JSON body of an operation: `RequestBody<'/v1/deals', 'post'>`. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The success envelope (`{data, meta}`) of an operation: `SuccessBody<'/v1/deals/{id}', 'get'>`. */
export type SuccessBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? {
        [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { 'application/json': infer B } } ? B : never) : never;
      }[keyof R]
    : never;
