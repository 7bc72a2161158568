/** Public API of the configuration files: loading ours, writing entries, importing others'. */
export { removeStaleTemps, writeFileAtomic } from './atomic-write.js';
export { configLockFile, withConfigLock } from './config-lock.js';
export type { DiscoveredImport, DiscoverOptions, ImportIntoResult } from './discover-imports.js';
export { claudeDesktopConfigPath, discoverImports, importInto } from './discover-imports.js';
export type { ConfigLocations, LoadedConfig } from './load-config.js';
export {
  loadConfig,
  loadConfigFile,
  projectConfigPath,
  userConfigPath,
} from './load-config.js';
export type { ReadTextOptions } from './read-text.js';
export { readTextIfExists } from './read-text.js';
export type { WriteEntriesOptions, WriteEntriesResult } from './write-entries.js';
export { writeServerEntries } from './write-entries.js';
