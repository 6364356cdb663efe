// What a resource is to the API server: its names, versions with conversion, the strategy
// that prepares and validates objects, its subresources and how it prints as a Table.
// A resource module fills one ResourceDef; the generic registry does the rest.
import type { FieldError } from '../errors.js';
import type { KubeObject } from '../../api/object.js';
import type { Store } from '../../storage/store.js';
import type { UserInfo } from '../authn/index.js';

export interface RequestContext {
  user: UserInfo;
  /** The authenticated user when the request impersonates `user` (for logs, as audit's impersonatedUser). */
  impersonator?: UserInfo;
  dryRun: boolean;
  now: Date;
}

/** One served version. Conversion is total: every internal object has a versioned form. */
export interface VersionDef {
  version: string;
  /** OpenAPI schema name of the kind in this version (`io.k8s.api.apps.v1.Deployment`). */
  schemaName: string;
  toInternal(obj: KubeObject): KubeObject;
  fromInternal(obj: KubeObject): KubeObject;
  /** Version-specific defaults, applied to objects decoded in this version before conversion. */
  defaults?(obj: KubeObject): void;
  /** Sent as a `Warning: 299` header with every request in this version (a deprecated version). */
  deprecationWarning?: string;
  /**
   * Drops fields the version does not know, instead of the DSL schema's decoding (custom
   * resources prune by their structural schema and have no Go types to mistype).
   */
  prune?(body: Record<string, unknown>): { object: unknown; unknown: string[]; invalid: { path: string; message: string }[] };
  /** Table columns of this version, instead of the resource's (custom resources' additionalPrinterColumns). */
  columns?: TableColumn[];
  /**
   * Conversion that needs I/O (a CRD's conversion webhook). `prepare` converts these internal
   * objects to this version ahead of time, so that `fromInternal` of exactly these objects
   * answers; `toInternalAsync` stands in for `toInternal`. Handlers call both where set.
   */
  prepare?(objs: KubeObject[]): Promise<void>;
  toInternalAsync?(obj: KubeObject): Promise<KubeObject>;
}

/**
 * Create/update rules of a resource, after k8s.io/apiserver `rest.RESTCreateStrategy`.
 * prepare* may mutate the (internal) object; validate* never mutate.
 */
export interface Strategy {
  /** Clears fields a create may not set (status), sets generation. */
  prepareForCreate?(obj: KubeObject, ctx: RequestContext): void;
  /** Carries over what an update of this endpoint may not change (status, or spec for /status). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): void;
  /** Internal-path defaults, applied on create and update. */
  defaults?(obj: KubeObject): void;
  validate(obj: KubeObject, ctx: RequestContext): FieldError[];
  /** Checks that apply to a create only (a pod may not be created with ephemeral containers). */
  validateCreate?(obj: KubeObject, ctx: RequestContext): FieldError[];
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): FieldError[];
  /** Normalises equivalent forms before storage. */
  canonicalize?(obj: KubeObject): void;
}

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  priority: number;
  /** Cell value from the internal object. */
  cell(obj: KubeObject, now: Date): string | number | boolean;
}

export interface ScaleDef {
  replicas(obj: KubeObject): number;
  setReplicas(obj: KubeObject, replicas: number): void;
  statusReplicas(obj: KubeObject): number;
  selector(obj: KubeObject): string;
}

/** Side effects a resource needs around storage writes (IP and port allocation). */
export interface StorageHooks {
  /** Before a create (old undefined) or update is written, dry runs included: throw a StatusError to refuse (RBAC escalation checks). */
  checkWrite?(obj: KubeObject, old: KubeObject | undefined, ctx: RequestContext): Promise<void>;
  /** Before a create is written; may allocate. Throw a StatusError to refuse. */
  beforeCreate?(obj: KubeObject, ctx: RequestContext, store: Store): Promise<void>;
  /** A create failed after beforeCreate: undo its allocations. */
  createFailed?(obj: KubeObject, store: Store): Promise<void>;
  beforeUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext, store: Store): Promise<void>;
  updateFailed?(obj: KubeObject, old: KubeObject, store: Store): Promise<void>;
  /** After an update is written: release what the old object held and the new one does not. */
  afterUpdate?(obj: KubeObject, old: KubeObject, store: Store): Promise<void>;
  /** After the object is gone from storage. */
  afterDelete?(obj: KubeObject, store: Store): Promise<void>;
}

export interface ResourceDef {
  group: string;
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Served versions, preferred first. */
  versions: VersionDef[];
  /** The version objects are stored in. */
  storageVersion: string;
  /**
   * Set when objects are stored in another group's version (events.k8s.io Events live in
   * core/v1 form, shared with core Events).
   */
  storageCodec?: { apiVersion: string; version: VersionDef };
  /**
   * Converts objects stored under an earlier storage version (each carrying its stored
   * apiVersion and kind) to internal ones, where that needs I/O (a CRD's conversion webhook).
   * Without it the storage version's toInternal reads them.
   */
  convertStored?(objs: KubeObject[]): Promise<KubeObject[]>;
  strategy: Strategy;
  /** Present when the resource has a /status subresource. */
  statusStrategy?: Strategy;
  /** Strategies of other writable subresources (a namespace's /finalize). */
  subresourceStrategies?: Record<string, Strategy>;
  scale?: ScaleDef;
  hooks?: StorageHooks;
  /** Extra printer columns after NAME (AGE is added last unless a column places it). */
  columns?: TableColumn[];
  /** The NAME cell, when it says more than the name (a default StorageClass's "(default)"). */
  nameCell?(obj: KubeObject): string;
  /** How metadata.name is validated; default a DNS-1123 subdomain (Services: DNS-1035 label). */
  nameValidator?(name: string): string | null;
  /** Selectable fields beyond metadata.name/namespace. */
  fieldLabels?(obj: KubeObject): Record<string, string>;
  /**
   * Graceful deletion: seconds to wait before the object disappears (pods bound to a node),
   * or undefined to delete at once.
   */
  gracePeriod?(obj: KubeObject, requested: number | undefined): number | undefined;
  /**
   * A DELETE that removed the object answers with the object instead of a `Status`
   * (upstream's ReturnDeletedObject: pods, services, namespaces, service accounts).
   */
  returnDeletedObject?: boolean;
  /** Deletion goes through a finalizer first (namespaces): set deletion state instead. */
  onDelete?(obj: KubeObject, now: Date): boolean;
  /**
   * Whether a terminating object may now disappear. Default: no metadata finalizers left.
   * Namespaces also wait for spec.finalizers.
   */
  isFinalized?(obj: KubeObject): boolean;
  /** Extra subresources this resource serves beyond status/scale (e.g. binding, finalize). */
  extraSubresources?: string[];
  /** Storage prefix when not `/registry/<resource>/` (custom resources use their group). */
  storagePrefix?: string;
  /** A custom resource: no strategic merge patch (415, as upstream). */
  custom?: boolean;
}

export function storageKey(def: ResourceDef, namespace: string | undefined, name: string): string {
  const prefix = resourcePrefix(def);
  return def.namespaced ? `${prefix}${namespace}/${name}` : `${prefix}${name}`;
}

/** `/registry/<resource>/`: built-in resources carry no group prefix, as in Kubernetes. */
export function resourcePrefix(def: ResourceDef): string {
  return def.storagePrefix ?? `/registry/${def.resource}/`;
}
