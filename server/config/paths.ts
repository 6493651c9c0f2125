import os from 'node:os';
import path from 'node:path';

/**
 * The default data dir: the same folder the desktop app uses (Electron's userData for an app
 * named PennyPost), so headless and desktop modes share one ledger.
 *   Linux:   $XDG_CONFIG_HOME/PennyPost or ~/.config/PennyPost
 *   macOS:   ~/Library/Application Support/PennyPost
 *   Windows: %APPDATA%\PennyPost
 */
export function defaultDataDir(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA || path.join(home, 'AppData', 'Roaming'), 'PennyPost');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'PennyPost');
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'PennyPost');
}
