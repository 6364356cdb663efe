export { EtcdStore, type EtcdOptions } from './etcd-store.js';
