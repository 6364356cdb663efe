// An API error as the client sees it: the server's Status, or a transport failure.
export interface StatusBody {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[] };
}

export class APIError extends Error {
  constructor(readonly code: number, readonly reason: string, message: string, readonly status?: StatusBody) {
    super(message);
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof APIError && e.code === 404;
export const isConflict = (e: unknown): boolean => e instanceof APIError && e.code === 409 && e.reason === 'Conflict';
export const isAlreadyExists = (e: unknown): boolean => e instanceof APIError && e.reason === 'AlreadyExists';
export const isGone = (e: unknown): boolean => e instanceof APIError && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
