import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../app-context';
import { PACKAGE_ROOT, packageVersion } from './package-root';
import { collectLicenses, summarize, type LicenceEntry } from './licenses';
import type { AppInfoView } from './result-shapes';

export { PACKAGE_ROOT };

/** What the service knows; app.info answers it with `dataDir` null for members. */
export type AppInfo = AppInfoView & { dataDir: string };

export class AppInfoService {
  private licencesCache: LicenceEntry[] | null = null;

  constructor(
    private readonly app: AppContext,
    private readonly root = PACKAGE_ROOT,
  ) {}

  version(): string {
    return packageVersion(this.root);
  }

  /** dist/licenses.json when built (the desktop app), else collected from package-lock.json. */
  licences(): LicenceEntry[] {
    if (this.licencesCache) return this.licencesCache;
    const built = path.join(this.root, 'dist', 'licenses.json');
    let entries: LicenceEntry[] = [];
    try {
      if (existsSync(built)) entries = (JSON.parse(readFileSync(built, 'utf8')) as { packages: LicenceEntry[] }).packages;
      else if (existsSync(path.join(this.root, 'package-lock.json'))) entries = collectLicenses(this.root);
    } catch (error) {
      this.app.log.warn('app-info: licences unavailable', { error: (error as Error).message });
    }
    this.licencesCache = entries;
    return entries;
  }

  info(): AppInfo {
    // Electron's typings declare these always present; under plain Node (headless) they are missing.
    const runtime: Partial<Record<string, string>> = process.versions;
    const electron = runtime.electron ?? null;
    return {
      name: 'PennyPost',
      version: this.version(),
      mode: electron ? 'desktop' : 'headless',
      versions: { node: process.versions.node, electron, chrome: runtime.chrome ?? null },
      platform: process.platform,
      arch: process.arch,
      dataDir: this.app.dataDir,
      keys: this.app.secrets.protection().mode,
      licences: summarize(this.licences()),
    };
  }
}
