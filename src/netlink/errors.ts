import { constants } from 'node:os';

/** A failed rtnetlink (or sysctl) operation, with the kernel's errno and its code. */
export class NetlinkError extends Error {
  override readonly name = 'NetlinkError';
  constructor(
    message: string,
    readonly errno: number,
    readonly code: string,
    /** Index of the failing operation in its batch, when it came from one. */
    readonly index?: number,
    readonly op?: string,
  ) {
    super(message);
  }
}

const errnoByCode = constants.errno as Record<string, number>;

export function errnoOf(code: string): number {
  return errnoByCode[code] ?? 0;
}

/** Throws a NetlinkError from the first failed result, if any. */
export function throwOnFailure(ops: { op: string }[], results: { status: string; errno?: number; code?: string; message?: string }[]): void {
  const index = results.findIndex((r) => r.status === 'error');
  if (index < 0) return;
  const r = results[index]!;
  const op = ops[index]?.op ?? '?';
  throw new NetlinkError(`${op} (operation ${index}) failed: ${r.message || r.code}`, r.errno ?? 0, r.code ?? 'EUNKNOWN', index, op);
}
