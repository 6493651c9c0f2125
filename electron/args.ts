/**
 * The headless server's flags, also understood by the desktop app (`npm start -- --data-dir …`
 * passes them through): --data-dir, --port, --host, as `--flag value` or `--flag=value`.
 * Lenient: Electron and Chromium flags (and --hidden) are left alone. Flags win over the
 * environment (PENNYPOST_DATA_DIR, PENNYPOST_PORT, PENNYPOST_HOST), as in the CLI.
 */
export function desktopEnv(argv: readonly string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const names: Record<string, string> = { '--data-dir': 'PENNYPOST_DATA_DIR', '--port': 'PENNYPOST_PORT', '--host': 'PENNYPOST_HOST' };
  const out: NodeJS.ProcessEnv = { ...env };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const key = names[flag];
    if (!key) continue;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[i + 1];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) continue;
    if (eq < 0) i++;
    if (value !== '') out[key] = value;
  }
  return out;
}
