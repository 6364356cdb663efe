// Access modes, shared by PersistentVolumes and PersistentVolumeClaims: their validation
// (upstream's ValidatePersistentVolume/Claim rules) and kubectl's short form (RWO,ROX,…).
import { forbiddenField, notSupported, required, type FieldError } from '../../../api/validation.js';

const accessModes = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };

export function validateAccessModes(field: string, modes: unknown, emptyMessage: string): FieldError[] {
  const list: unknown[] = Array.isArray(modes) ? modes : [];
  if (!list.length) return [required(field, emptyMessage)];
  const errs: FieldError[] = [];
  for (const m of list) if (!accessModes.includes(m as string)) errs.push(notSupported(field, m, accessModes));
  if (list.includes('ReadWriteOncePod') && list.length > 1) errs.push(forbiddenField(field, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

export function accessModesText(modes: string[] | undefined): string {
  return (modes ?? []).map((m) => short[m] ?? m).join(',');
}
