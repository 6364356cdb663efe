import { status as Status } from '@grpc/grpc-js';

/** gRPC status code names, as `CRIError.codeName` carries them. */
export type CRICodeName = keyof typeof Status;

/**
 * A failed CRI call. `code` is the gRPC status code (grpc.status.NOT_FOUND, ...);
 * `details` is the runtime's own message; `method` the RPC name ("CreateContainer").
 */
export class CRIError extends Error {
  readonly code: number;
  readonly codeName: CRICodeName | 'UNKNOWN';
  readonly method: string;
  readonly details: string;

  constructor(method: string, code: number, details: string) {
    const codeName = (Status[code] as CRICodeName | undefined) ?? 'UNKNOWN';
    super(`CRI ${method}: ${codeName}: ${details}`);
    this.name = 'CRIError';
    this.method = method;
    this.code = code;
    this.codeName = codeName;
    this.details = details;
  }
}

export function isCRIError(err: unknown, code?: number): err is CRIError {
  return err instanceof CRIError && (code === undefined || err.code === code);
}

export const isNotFound = (err: unknown): boolean => isCRIError(err, Status.NOT_FOUND);
export const isUnavailable = (err: unknown): boolean => isCRIError(err, Status.UNAVAILABLE);
export const isDeadlineExceeded = (err: unknown): boolean => isCRIError(err, Status.DEADLINE_EXCEEDED);

export { Status as CRIStatus };
