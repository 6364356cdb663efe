// A minimal ustar writer: directories, regular files and symlinks, owned by root, with a
// fixed mtime so the same inputs always give the same bytes (and the same digests).

export type TarEntry =
  | { type: 'dir'; path: string; mode?: number }
  | { type: 'file'; path: string; data: Buffer; mode?: number }
  | { type: 'symlink'; path: string; target: string };

const BLOCK = 512;
/** 2000-01-01T00:00:00Z: any constant works; 0 upsets some tools. */
export const FIXED_MTIME = 946684800;

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, mode: number, typeflag: string, linkname = ''): Buffer {
  const h = Buffer.alloc(BLOCK);
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100) throw new Error(`tar: path too long: ${name}`);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  if (Buffer.byteLength(linkname) > 100) throw new Error(`tar: link target too long: ${linkname}`);
  h.write(name, 0, 100);
  h.write(octal(mode & 0o7777, 8), 100);
  h.write(octal(0, 8), 108); // uid
  h.write(octal(0, 8), 116); // gid
  h.write(octal(size, 12), 124);
  h.write(octal(FIXED_MTIME, 12), 136);
  h.write('        ', 148); // checksum placeholder: eight spaces
  h.write(typeflag, 156);
  h.write(linkname, 157, 100);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.write('root', 265);
  h.write('root', 297);
  h.write(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148);
  return h;
}

/** The archive bytes; entries are written in the order given (callers sort for stability). */
export function tar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const path = e.path.replace(/^\/+/, '');
    if (e.type === 'dir') {
      parts.push(header(path.endsWith('/') ? path : `${path}/`, 0, e.mode ?? 0o755, '5'));
    } else if (e.type === 'symlink') {
      parts.push(header(path, 0, 0o777, '2', e.target));
    } else {
      parts.push(header(path, e.data.length, e.mode ?? 0o644, '0'), e.data);
      const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
