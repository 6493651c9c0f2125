import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs';

/**
 * Vitest's setup file (vitest.config.ts): runs before each test file, in its worker. The folders
 * tempDir() made for the file are removed after its last test — this hook is registered before the
 * file's own, so it runs after them (after the servers using the folders have stopped).
 */
afterAll(removeTempDirs);
