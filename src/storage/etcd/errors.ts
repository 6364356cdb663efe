// etcd reports revision problems only as message text; these are the etcd 3.4 spellings.
const COMPACTED = 'required revision has been compacted';
const FUTURE = 'required revision is a future revision';
const TOO_LARGE = 'request is too large';

export function isCompacted(err: unknown): boolean {
  return err instanceof Error && err.message.includes(COMPACTED);
}

export function isFutureRevision(err: unknown): boolean {
  return err instanceof Error && err.message.includes(FUTURE);
}

/** A write larger than the server's --max-request-bytes. */
export function isRequestTooLarge(err: unknown): boolean {
  return err instanceof Error && err.message.includes(TOO_LARGE);
}
