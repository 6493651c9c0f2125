// Minimal, sandboxed preload: exposes only the app version to the page.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('pennypost', {
  versions: { electron: process.versions.electron, chrome: process.versions.chrome },
});
