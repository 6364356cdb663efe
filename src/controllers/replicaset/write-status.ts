// Writing a workload's status the way every workload controller does: one update of /status,
// and on a conflict one more against a fresh read of the same object (a deleted or replaced
// object gets no status).
import type { KindObject } from '../../api/kinds.js';
import { isConflict, isNotFound, type ResourceAPI } from '../../client/index.js';

export async function writeStatus<T extends KindObject & { status?: unknown }>(api: ResourceAPI<T>, obj: T, status: T['status']): Promise<void> {
  try {
    await api.updateStatus({ ...obj, status });
  } catch (e) {
    if (isNotFound(e)) return;
    if (!isConflict(e)) throw e;
    const fresh = await api.get(obj.metadata.namespace, obj.metadata.name as string);
    if (fresh.metadata.uid !== obj.metadata.uid) return;
    await api.updateStatus({ ...fresh, status });
  }
}
