export { SqliteStore } from './sqlite-store.js';
export { openDatabase, type SqliteOptions, type Synchronous } from './database.js';
