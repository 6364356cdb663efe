// API errors as Kubernetes `Status` objects. Every failure a client sees goes through here,
// so reasons and codes match what kubectl and client libraries expect.
import type { FieldError } from '../api/validation.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  /** The same error with another message (kubectl prints messages verbatim). */
  withMessage(message: string): StatusError {
    return new StatusError(this.code, this.reason, message, this.details);
  }

  toStatus(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, code: this.code };
    if (this.details) s.details = this.details;
    return s;
  }
}

/** `deployments.apps` as Kubernetes spells a qualified resource in messages. */
export function qualified(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

export const notFound = (resource: string, group: string, name: string) =>
  new StatusError(404, 'NotFound', `${qualified(resource, group)} "${name}" not found`, { name, group, kind: resource });

/** A path the server has no handler for (unknown resource or subresource): no name, no kind. */
export const noSuchPath = () => new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});

export const alreadyExists = (resource: string, group: string, name: string) =>
  new StatusError(409, 'AlreadyExists', `${qualified(resource, group)} "${name}" already exists`, { name, group, kind: resource });

export const conflict = (resource: string, group: string, name: string, why: string) =>
  new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(resource, group)} "${name}": ${why}`, { name, group, kind: resource });

export const badRequest = (message: string, causes?: StatusCause[]) =>
  new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);

export const unauthorized = () => new StatusError(401, 'Unauthorized', 'Unauthorized');

export const forbidden = (message: string, details?: StatusDetails) => new StatusError(403, 'Forbidden', message, details);

export const methodNotAllowed = (message: string) => new StatusError(405, 'MethodNotAllowed', message);

export const notAcceptable = (message: string) => new StatusError(406, 'NotAcceptable', message);

export const tooLarge = (message: string) => new StatusError(413, 'RequestEntityTooLarge', message);

export const unsupportedMediaType = (contentType: string) =>
  new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got ${contentType})`);

export const expired = (message: string) => new StatusError(410, 'Expired', message);

export const internalError = (message: string) => new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);

export const timeout = (message: string) => new StatusError(504, 'Timeout', message);

export const serviceUnavailable = (message: string) => new StatusError(503, 'ServiceUnavailable', message);

/** One validation failure at a field path (defined with the validators in src/api). */
export type { FieldError };

const typeWords: Record<FieldError['type'], string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueNotFound: 'Not found',
};

export function fieldErrorText(e: FieldError): string {
  return `${e.field}: ${typeWords[e.type]}${e.message ? `: ${e.message}` : ''}`;
}

/** 422 Invalid: `Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): StatusError {
  const text = errors.map(fieldErrorText);
  const list = text.length === 1 ? text[0] : `[${text.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualified(kind, group)} "${name}" is invalid: ${list}`, {
    name, group, kind,
    causes: errors.map((e) => ({ reason: e.type, message: `${typeWords[e.type]}${e.message ? `: ${e.message}` : ''}`, field: e.field })),
  });
}
