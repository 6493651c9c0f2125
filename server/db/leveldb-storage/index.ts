export { getRxStorageLevel, openLevel, type RxStorageLevel } from './storage';
export { RxStorageInstanceLevel, type LevelDb, type LevelStorageSettings } from './instance';
