// Local images for a registry-less node: building OCI archives and importing them.
export { PAUSE_IMAGE, BUSYBOX_IMAGE, NODE_IMAGE, buildPauseImage, buildBusyboxImage, buildNodeImage, sharedLibraries, compilePause, pauseSource, builtinImages } from './builtin.js';
export type { BuiltImage } from './builtin.js';
export { importImage, importArchive, ensureBuiltinImages } from './import.js';
export { BuildOnPullCRIClient } from './build-on-pull.js';
export type { ImportOptions, ImportResult, ArchiveImportOptions } from './import.js';
export { ociArchive } from './oci.js';
export type { OCIArchive, ImageConfigSpec } from './oci.js';
export { tar } from './tar.js';
export type { TarEntry } from './tar.js';
